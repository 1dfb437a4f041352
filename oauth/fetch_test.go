package oauth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/oauth"
)

// docServer serves client metadata documents over TLS on 127.0.0.1.
func docServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	return srv, srv.Listener.Addr().String()
}

func TestFetcher(t *testing.T) {
	var mu sync.Mutex
	var body, ctype string
	var status int
	set := func(b, c string, st int) { mu.Lock(); body, ctype, status = b, c, st; mu.Unlock() }
	srv, host := docServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect.json":
			http.Redirect(w, r, "/client.json", http.StatusFound)
			return
		case "/slow.json":
			time.Sleep(300 * time.Millisecond)
		}
		mu.Lock()
		b, c, st := body, ctype, status
		mu.Unlock()
		w.Header().Set("Content-Type", c)
		w.WriteHeader(st)
		_, _ = w.Write([]byte(b))
	})
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	id := srv.URL + "/client.json"
	doc := func(clientID string) string {
		return `{"client_id":"` + clientID + `","client_name":"Doc Client","redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"none"}`
	}
	allowed := &oauth.Fetcher{AllowHosts: []string{host}, RootCAs: pool, Timeout: 200 * time.Millisecond}

	for _, tt := range []struct {
		name    string
		fetcher *oauth.Fetcher
		id      string
		body    string
		ctype   string
		status  int
		wantErr string // "" = success
	}{
		{"good", allowed, id, doc(id), "application/json", 200, ""},
		{"loopback without allow-list", &oauth.Fetcher{RootCAs: pool}, id, doc(id), "application/json", 200, "not public"},
		{"private address", &oauth.Fetcher{}, "https://10.1.2.3/client.json", "", "", 0, "not public"},
		{"link-local metadata service", &oauth.Fetcher{}, "https://169.254.169.254/latest/meta-data", "", "", 0, "not public"},
		{"http", allowed, strings.Replace(id, "https:", "http:", 1), doc(id), "application/json", 200, "not an https URL"},
		{"no path", allowed, srv.URL + "/", doc(id), "application/json", 200, "needs a path"},
		{"dot segment", allowed, srv.URL + "/a/../client.json", doc(id), "application/json", 200, "dot segments"},
		{"user info", allowed, "https://u:p@" + host + "/client.json", doc(id), "application/json", 200, "user info"},
		{"fragment", allowed, id + "#x", doc(id), "application/json", 200, "fragment"},
		{"redirect not followed", allowed, srv.URL + "/redirect.json", doc(id), "application/json", 200, "HTTP 302"},
		{"not found", allowed, id, "", "application/json", 404, "HTTP 404"},
		{"not JSON type", allowed, id, doc(id), "text/html", 200, "not application/json"},
		{"other client_id", allowed, id, doc("https://evil.example/client.json"), "application/json", 200, "not its own URL"},
		{"too large", allowed, id, `{"client_id":"` + id + `","x":"` + strings.Repeat("a", oauth.MaxMetadataBytes) + `"}`, "application/json", 200, "larger than"},
		{"secret", allowed, id, `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "application/json", 200, "client secret"},
		{"bad redirect", allowed, id, `{"client_id":"` + id + `","redirect_uris":["http://evil.example/cb"]}`, "application/json", 200, "loopback"},
		{"timeout", allowed, srv.URL + "/slow.json", doc(srv.URL + "/slow.json"), "application/json", 200, "no answer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set(tt.body, tt.ctype, tt.status)
			c, err := tt.fetcher.Fetch(t.Context(), tt.id)
			if tt.wantErr == "" {
				if err != nil || c.ID != tt.id || c.Name != "Doc Client" || len(c.RedirectURIs) != 1 {
					t.Errorf("Fetch = %+v, %v", c, err)
				}
				return
			}
			e, ok := err.(*oauth.Error)
			if !ok || e.Code != oauth.ErrInvalidClient || !strings.Contains(e.Description, tt.wantErr) {
				t.Errorf("Fetch = %v, want invalid_client mentioning %q", err, tt.wantErr)
			}
		})
	}

	// A whole authorization with a document client.
	set(doc(id), "application/json", 200)
	f := newFixture(t, allowed)
	v, ch := pkce("doc")
	p, err := f.srv.Start(t.Context(), oauth.AuthRequest{ResponseType: "code", ClientID: id, RedirectURI: "http://127.0.0.1:5555/cb", State: "s", CodeChallenge: ch, CodeChallengeMethod: "S256"})
	if err != nil || !p.MetadataDocument() || p.ClientName != "Doc Client" {
		t.Fatalf("Start with a document client = %+v, %v", p, err)
	}
	p, _ = f.srv.Resume(t.Context(), p.ID, "alice")
	next, err := f.srv.Decide(t.Context(), p.ID, "alice", p.CSRF, true)
	if err != nil {
		t.Fatal(err)
	}
	code := next[strings.Index(next, "code=")+5:]
	code = code[:strings.IndexAny(code+"&", "&")]
	// The document host is down now: the exchange does not need it.
	set("", "", 500)
	tok, err := f.srv.Token(t.Context(), oauth.TokenRequest{GrantType: "authorization_code", ClientID: id, Code: code, RedirectURI: "http://127.0.0.1:5555/cb", CodeVerifier: v})
	if err != nil || tok.AccessToken == "" {
		t.Errorf("exchange for a document client = %+v, %v", tok, err)
	}
}
