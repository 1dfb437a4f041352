package oauth_test

import (
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/oauth"
)

// TestRedirectURIPolicy: what RFC 8252 and the MCP authorization spec
// expect registers (https, http on a loopback address and any port,
// private-use schemes in reverse-domain form, and Cursor's documented
// cursor:// callback); schemes that hand the browser to an operating
// system handler (ms-msdt:, search-ms:, smb://, another browser...) are
// refused with an error that says what is allowed.
func TestRedirectURIPolicy(t *testing.T) {
	f := newFixture(t, nil)
	for _, uri := range []string{
		"https://app.example/callback",
		"http://127.0.0.1/callback", "http://127.0.0.1:51234/cb", "http://[::1]:8080/cb", "http://localhost:3000/oauth/callback",
		"com.example.app:/oauth2redirect/example-provider", "com.example.app:/cb", "io.github.someone.client://callback",
		"cursor://anysphere.cursor-mcp/oauth/callback",
	} {
		if _, err := f.srv.Register(t.Context(), []byte(`{"redirect_uris":["`+uri+`"]}`)); err != nil {
			t.Errorf("%s refused: %v", uri, err)
		}
	}
	for _, uri := range []string{
		"ms-msdt:/id", "ms-msdt:?id=PCWDiagnostic", "search-ms:/q", "search-ms:query=x", "smb://attacker.example/share", "googlechrome://attacker.example",
		"microsoft-edge:https://attacker.example", "ms-excel:ofe|u|https://attacker.example/x.xlsx", "shell:startup", "steam://run/1",
		"vbscript:msgbox", "file:///etc/passwd", "http://attacker.example/cb", "intent://x#Intent;end", "myapp://callback", "a:b",
	} {
		_, err := f.srv.Register(t.Context(), []byte(`{"redirect_uris":["`+uri+`"]}`))
		e, ok := err.(*oauth.Error)
		if !ok || e.Code != oauth.ErrInvalidRedirectURI || !strings.Contains(e.Description, "reverse-domain") {
			t.Errorf("%s = %v, want invalid_redirect_uri naming what is allowed", uri, err)
		}
	}
}

// TestClientNamePolicy: a client name is what the consent page shows, so
// it may not reorder itself (bidi controls) or hide characters.
func TestClientNamePolicy(t *testing.T) {
	f := newFixture(t, nil)
	for _, name := range []string{"Claude", "MCP Inspector", "Überprüfer 検索 🔎", "a.b-c (d)"} {
		c, err := f.srv.Register(t.Context(), []byte(`{"redirect_uris":["https://app.example/cb"],"client_name":"`+name+`"}`))
		if err != nil || c.Name != name {
			t.Errorf("client_name %q = %+v, %v", name, c, err)
		}
	}
	for _, name := range []string{
		`Good\u202eetisoppo`, `x\u202a`, `x\u202b`, `x\u202c`, `x\u202d`, `x\u2066y`, `x\u2067`, `x\u2068`, `x\u2069`,
		`Nextcl\u200boud`, `a\u200cb`, `a\u200db`, `a\u200eb`, `a\u200fb`, `a\u2060b`, `a\ufeffb`, `a\u00adb`, `a\u061cb`, `a\u2028b`, `a\ue000b`, `a\udb40\udc41b`,
	} {
		_, err := f.srv.Register(t.Context(), []byte(`{"redirect_uris":["https://app.example/cb"],"client_name":"`+name+`"}`))
		e, ok := err.(*oauth.Error)
		if !ok || e.Code != oauth.ErrInvalidClientMetadata || !strings.Contains(e.Description, "client_name") {
			t.Errorf("client_name %s = %v, want invalid_client_metadata", name, err)
		}
	}
}
