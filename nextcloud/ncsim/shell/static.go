package shell

import (
	"embed"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// static holds the page shell's stylesheet, theme variables, icons and the
// scripts of the simulated Files app and settings pages.
//
//go:embed static
var static embed.FS

// staticFiles maps the URL paths Nextcloud serves these from to the
// embedded files.
var staticFiles = map[string]string{
	"/core/css/ncsim-server.css":                   "static/server.css",
	"/core/img/logo/logo.svg":                      "static/img/logo.svg",
	"/core/img/favicon.svg":                        "static/img/favicon.svg",
	"/core/img/filetypes/folder.svg":               "static/img/folder.svg",
	"/core/img/filetypes/file.svg":                 "static/img/file.svg",
	"/apps/files/img/app.svg":                      "static/img/app-files.svg",
	"/apps/app_api/img/app.svg":                    "static/img/app-generic.svg",
	"/apps/settings/img/admin.svg":                 "static/img/settings.svg",
	"/apps/app_api/js/app_api-filesplugin.js":      "static/js/filesplugin.js",
	"/apps/files/js/ncsim-files.js":                "static/js/files.js",
	"/apps/settings/js/declarative-settings.js":    "static/js/declarative-settings.js",
	"/apps/settings/js/ncsim-personal-settings.js": "static/js/personal-settings.js",
	"/apps/assistant/js/ncsim-assistant.js":        "static/js/assistant.js",
	"/apps/assistant/css/ncsim-assistant.css":      "static/assistant.css",
	"/apps/assistant/img/app.svg":                  "static/img/assistant.svg",
}

// Routes registers the static files, the Assistant page's script, style
// and icon, and the theming stylesheets on mux.
func Routes(mux *http.ServeMux) {
	for urlPath, file := range staticFiles {
		mux.HandleFunc("GET "+urlPath, func(w http.ResponseWriter, r *http.Request) {
			serveStatic(w, file)
		})
	}
	mux.HandleFunc("GET /index.php/apps/theming/theme/{file}", handleThemeCSS)
}

// Themes returns the themes the simulator knows: the theming app's themes
// of type "theme" (apps/theming/lib/Themes), one of which a user may enable
// at a time. "default" follows the browser's prefers-color-scheme.
func Themes() []string { return []string{"default", "light", "dark"} }

func serveStatic(w http.ResponseWriter, file string) {
	data, err := static.ReadFile(file)
	if err != nil {
		http.Error(w, "ncsim: "+err.Error(), http.StatusInternalServerError)
		return
	}
	ct := "text/plain; charset=utf-8"
	switch {
	case strings.HasSuffix(file, ".css"):
		ct = "text/css; charset=utf-8"
	case strings.HasSuffix(file, ".js"):
		ct = "text/javascript; charset=utf-8"
	case strings.HasSuffix(file, ".svg"):
		ct = "image/svg+xml"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(data)
}

var cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)

// themeVars returns the CSS variable declarations of a theme: the default
// theme's for "default" and "light", with the dark theme's on top for
// "dark" (DarkTheme extends DefaultTheme).
func themeVars(id string) string {
	read := func(name string) string {
		data, _ := static.ReadFile("static/theming/" + name + ".vars")
		return strings.Join(strings.Fields(cssComment.ReplaceAllString(string(data), "")), " ")
	}
	vars := read("light")
	if id == "dark" {
		vars += " " + read("dark")
	}
	return vars
}

// handleThemeCSS serves GET /index.php/apps/theming/theme/{themeId}.css
// (ThemingController::getThemeStylesheet): with plain=1 the variables on
// :root (the default theme, and the light and dark themes under their
// prefers-color-scheme media queries), otherwise on [data-theme-<id>], the
// attribute the page's <body> carries for each theme the user enabled.
func handleThemeCSS(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".css")
	if !ok || !slices.Contains(Themes(), id) {
		http.NotFound(w, r)
		return
	}
	sel := "[data-theme-" + id + "]"
	if p := r.URL.Query().Get("plain"); p == "1" || p == "true" {
		sel = ":root"
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write([]byte(sel + " { " + themeVars(id) + " }\n"))
}
