package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"html/template"
)

func randomNonce() (string, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b[:]), nil
}

// pageTemplate draws the OAuth pages like Nextcloud's guest pages (login,
// "Connect to your account"): the logo on the primary-colour background
// and one light, rounded box with pill-shaped buttons.
var pageTemplate = template.Must(template.New("oauth").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex, nofollow">
{{if .Next}}<meta http-equiv="refresh" content="0;url={{.Next}}">{{end}}
<title>{{.Title}} - Hybrid Search - Nextcloud</title>
<style nonce="{{.Nonce}}">
:root { --color-primary: #00679e; --color-primary-hover: #005a8a; --color-text: #222; --color-text-maxcontrast: #6b6b6b; --color-border: #dbdbdb; }
* { box-sizing: border-box; }
html, body { margin: 0; min-height: 100%; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Oxygen-Sans, Cantarell, Ubuntu, "Helvetica Neue", "Noto Sans", "Liberation Sans", Arial, sans-serif; font-size: 15px; line-height: 1.5; color: var(--color-text);
  background: linear-gradient(40deg, #0082c9 0%, var(--color-primary) 100%); display: flex; flex-direction: column; align-items: center; padding: 48px 16px; min-height: 100vh; }
.logo { width: 120px; height: 60px; margin-bottom: 28px; }
main.guest-box { background: rgba(255,255,255,.92); border-radius: 28px; box-shadow: 0 0 10px rgba(77,77,77,.5); padding: 28px 32px; width: 100%; max-width: 480px; }
h2 { font-size: 20px; font-weight: bold; margin: 0 0 12px; }
p { margin: 0 0 12px; }
.muted { color: var(--color-text-maxcontrast); font-size: 13px; }
dl { margin: 16px 0; padding: 12px 16px; border: 1px solid var(--color-border); border-radius: 12px; background: #fff; }
dt { font-weight: bold; font-size: 13px; color: var(--color-text-maxcontrast); }
dd { margin: 0 0 8px; overflow-wrap: anywhere; }
dd:last-child { margin-bottom: 0; }
code { font-family: ui-monospace, "Cascadia Mono", "DejaVu Sans Mono", monospace; font-size: 13px; }
.buttons { display: flex; gap: 12px; justify-content: flex-end; margin-top: 20px; flex-wrap: wrap; }
.button { display: inline-flex; align-items: center; justify-content: center; min-height: 44px; padding: 0 24px; border-radius: 22px; font: inherit; font-weight: bold; text-decoration: none; cursor: pointer; border: 2px solid transparent; }
.button.primary { background: var(--color-primary); color: #fff; }
.button.primary:hover, .button.primary:focus { background: var(--color-primary-hover); }
.button.secondary { background: #ededed; color: var(--color-text); }
.button.secondary:hover, .button.secondary:focus { background: #dbdbdb; }
.error-code { color: #c9302c; }
</style>
</head>
<body id="body-login">
<svg class="logo" viewBox="0 0 120 60" role="img" aria-label="Nextcloud"><g fill="none" stroke="#fff"><circle cx="60" cy="30" r="17" stroke-width="9"/><circle cx="19" cy="30" r="10" stroke-width="7"/><circle cx="101" cy="30" r="10" stroke-width="7"/></g></svg>
<main class="guest-box">
<h2 id="heading">{{.Heading}}</h2>
{{- with .Consent}}
<p>Signed in to Nextcloud as <strong id="user">{{$.User}}</strong>.</p>
<p><strong id="client-name">{{.ClientName}}</strong> wants to use Hybrid Search as you.</p>
<dl>
<dt>It will be able to</dt><dd id="scope">{{$.Scope}}</dd>
<dt>You will be sent back to</dt><dd><code id="redirect-host">{{.RedirectHost}}</code></dd>
{{- if .MetadataDocument}}
<dt>The app's identity is published at</dt><dd><code id="client-id">{{.ClientID}}</code></dd>
{{- else}}
<dt>About this app</dt><dd>It registered itself, so its name is not verified. Only allow it if you just started signing in from it.</dd>
{{- end}}
</dl>
<form method="post" action="" id="consent">
<input type="hidden" name="request" value="{{.ID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="buttons">
<button class="button secondary" type="submit" name="decision" value="deny" id="deny">Cancel</button>
<button class="button primary" type="submit" name="decision" value="allow" id="allow">Allow access</button>
</div>
</form>
<p class="muted">You can take this access back at any time in Hybrid Search under Tokens.</p>
{{- else}}
<p id="text">{{.Text}}</p>
{{- if .Code}}<p class="muted">Error code: <code class="error-code" id="error-code">{{.Code}}</code></p>{{end}}
{{- if .Next}}
<div class="buttons"><a class="button primary" id="next" href="{{.Next}}">{{.NextText}}</a></div>
{{- end}}
{{- end}}
</main>
</body>
</html>
`))
