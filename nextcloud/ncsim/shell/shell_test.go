package shell

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestHumanSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1536, "1.5 KB"}, {3 << 20, "3.0 MB"}}
	for _, tt := range tests {
		if got := HumanSize(tt.n); got != tt.want {
			t.Errorf("HumanSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestCrumbs(t *testing.T) {
	got := Crumbs("/a b/c")
	want := []Crumb{{"All files", "/index.php/apps/files/?dir=/"}, {"a b", "/index.php/apps/files/?dir=%2Fa+b"}, {"c", "/index.php/apps/files/?dir=%2Fa+b%2Fc"}}
	if !slices.Equal(got, want) {
		t.Errorf("Crumbs = %v, want %v", got, want)
	}
}

// TestRoutes serves every static file the pages link to, and the theme
// stylesheets of known themes only.
func TestRoutes(t *testing.T) {
	mux := http.NewServeMux()
	Routes(mux)
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
	for urlPath := range staticFiles {
		if w := get(urlPath); w.Code != http.StatusOK || w.Body.Len() == 0 {
			t.Errorf("GET %s = %d with %d bytes", urlPath, w.Code, w.Body.Len())
		}
	}
	for _, id := range Themes() {
		w := get("/index.php/apps/theming/theme/" + id + ".css?plain=1")
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), ":root { --") {
			t.Errorf("theme %s = %d %q", id, w.Code, w.Body.String())
		}
	}
	if w := get("/index.php/apps/theming/theme/neon.css"); w.Code != http.StatusNotFound {
		t.Errorf("unknown theme = %d, want 404", w.Code)
	}
}
