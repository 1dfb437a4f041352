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
		w.Header().Set("Cache-Control", "no-store") // each case sees its own document
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

// TestFetcherRefusesEmbeddedIPv4: IPv6 forms that carry an IPv4 address
// (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, Teredo) are refused
// whatever the address in them, before anything is dialled.
func TestFetcherRefusesEmbeddedIPv4(t *testing.T) {
	f := &oauth.Fetcher{Timeout: 2 * time.Second}
	for _, host := range []string{"[::ffff:127.0.0.1]", "[::ffff:8.8.8.8]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[::7f00:1]", "[::8.8.8.8]",
		"[::]", "[::1]", "[::ffff:0:8.8.8.8]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "[fec0::1]", "[64:ff9b::8.8.8.8]"} {
		_, err := f.Fetch(t.Context(), "https://"+host+"/client.json")
		e, ok := err.(*oauth.Error)
		if !ok || !strings.Contains(e.Description, "not public") {
			t.Errorf("Fetch from %s = %v, want its address refused as not public", host, err)
		}
	}
}

// TestFetcherCaches: a document is fetched once while its cache headers
// allow (max-age, capped; a short default without them), every time with
// no-store or no-cache, once for many concurrent requests, and the cache
// keeps at most CacheEntries documents; failures are not kept.
func TestFetcherCaches(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	cacheControl := map[string]string{"/fresh.json": "public, max-age=60", "/nostore.json": "no-store", "/nocache.json": "no-cache", "/zero.json": "max-age=0",
		"/huge.json": "max-age=99999999"}
	failing := true
	srv, host := docServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		fail := failing && r.URL.Path == "/flaky.json"
		mu.Unlock()
		if fail {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path == "/slow.json" {
			time.Sleep(100 * time.Millisecond)
		}
		if cc, ok := cacheControl[r.URL.Path]; ok {
			w.Header().Set("Cache-Control", cc)
		}
		w.Header().Set("Content-Type", "application/json")
		id := "https://" + r.Host + r.URL.Path
		_, _ = w.Write([]byte(`{"client_id":"` + id + `","client_name":"Doc Client","redirect_uris":["http://127.0.0.1/cb"]}`))
	})
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	f := &oauth.Fetcher{AllowHosts: []string{host}, RootCAs: pool, Now: clock, CacheEntries: 3}
	fetch := func(path string) {
		t.Helper()
		if _, err := f.Fetch(t.Context(), srv.URL+path); err != nil {
			t.Fatalf("Fetch %s: %v", path, err)
		}
	}
	count := func(path string) int { mu.Lock(); defer mu.Unlock(); return hits[path] }

	for range 3 {
		fetch("/fresh.json")
	}
	if n := count("/fresh.json"); n != 1 {
		t.Errorf("max-age=60: fetched %d times in a row, want 1", n)
	}
	advance(61 * time.Second)
	fetch("/fresh.json")
	if n := count("/fresh.json"); n != 2 {
		t.Errorf("max-age=60, 61 s later: fetched %d times, want 2", n)
	}
	for _, p := range []string{"/nostore.json", "/nocache.json", "/zero.json"} {
		fetch(p)
		fetch(p)
		if n := count(p); n != 2 {
			t.Errorf("%s: fetched %d times for 2 requests, want 2", p, n)
		}
	}
	fetch("/huge.json")
	advance(oauth.MaxMetadataCacheAge + time.Second)
	fetch("/huge.json")
	if n := count("/huge.json"); n != 2 {
		t.Errorf("a max-age beyond the cap: fetched %d times across the cap, want 2", n)
	}
	fetch("/plain.json")
	fetch("/plain.json")
	if n := count("/plain.json"); n != 1 {
		t.Errorf("no cache headers: fetched %d times in a row, want 1 (a short default)", n)
	}
	advance(oauth.DefaultMetadataCacheAge + time.Second)
	fetch("/plain.json")
	if n := count("/plain.json"); n != 2 {
		t.Errorf("no cache headers, after the default: fetched %d times, want 2", n)
	}

	// Bounded: a, b, c fill it; d evicts the least recently used (a).
	for _, p := range []string{"/a.json", "/b.json", "/c.json", "/a.json", "/d.json", "/b.json"} {
		fetch(p)
	}
	if a, b := count("/a.json"), count("/b.json"); a != 1 || b != 2 {
		t.Errorf("LRU of 3: a fetched %d times (want 1), b %d (want 2: evicted by d)", a, b)
	}

	// Failures are not kept.
	if _, err := f.Fetch(t.Context(), srv.URL+"/flaky.json"); err == nil {
		t.Fatal("flaky document fetched while down")
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	fetch("/flaky.json")

	// Concurrent requests for one document share one fetch.
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { _, _ = f.Fetch(t.Context(), srv.URL+"/slow.json") })
	}
	wg.Wait()
	if n := count("/slow.json"); n != 1 {
		t.Errorf("10 concurrent requests fetched %d times, want 1", n)
	}
}
