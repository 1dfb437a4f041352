package shell

import (
	"html/template"
	"net/http"
)

// loginTemplate is the login form.
var loginTemplate = template.Must(template.New("login").Parse(`<!DOCTYPE html>
<html lang="en">
<head data-requesttoken="{{.Token}}"><meta charset="utf-8"><title>Login - Nextcloud</title>
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="icon" href="/core/img/favicon.svg">
<link rel="stylesheet" href="/index.php/apps/theming/theme/default.css?plain=1">
<link rel="stylesheet" href="/index.php/apps/theming/theme/dark.css?plain=1" media="(prefers-color-scheme: dark)">
<link rel="stylesheet" href="/core/css/ncsim-server.css"></head>
<body id="body-login">
<main class="login-box">
<div class="login-logo"></div>
<h1>Log in to Nextcloud (simulated)</h1>
{{if .Error}}<p class="warning" id="login-error">{{.Error}}</p>{{end}}
<form method="post" action="/index.php/login" name="login">
<input type="hidden" name="requesttoken" value="{{.Token}}">
<input type="hidden" name="redirect_url" value="{{.Redirect}}">
<p><label for="user">Account name</label> <input type="text" name="user" id="user" value="{{.User}}" autocomplete="username" required></p>
<p><label for="password">Password</label> <input type="password" name="password" id="password" autocomplete="current-password" required></p>
<p><button type="submit" id="submit">Log in</button></p>
</form>
</main>
</body>
</html>
`))

// Login fills the login page: Token is the request token, Redirect the
// redirect_url to return to, User the account name to prefill, Error the
// message of a failed attempt.
type Login struct {
	Token, Redirect, User, Error string
}

// WriteLogin writes the simulator's login form with status.
func WriteLogin(w http.ResponseWriter, status int, p Login) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache, no-store, must-revalidate")
	w.WriteHeader(status)
	_ = loginTemplate.Execute(w, p)
}
