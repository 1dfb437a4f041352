package app

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// browser is a minimal web browser for the OAuth pages: a cookie jar, 3xx
// followed by net/http, meta refresh followed by hand, forms read with
// regular expressions. It stops at stopAt (the client's redirect URI).
type browser struct {
	t      *testing.T
	client *http.Client
	stopAt string
}

func newBrowser(t *testing.T, stopAt string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar}, stopAt: stopAt}
}

// visit is one page the browser ended on.
type visit struct {
	url    string // the page's URL, or the client's redirect URI reached
	status int
	body   string
	next   string // the meta refresh target, if any
}

var (
	metaRefresh = regexp.MustCompile(`<meta http-equiv="refresh" content="0;url=([^"]*)">`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)
	errorCode   = regexp.MustCompile(`id="error-code">([a-z_]+)<`)
)

// get loads u and follows meta refreshes until a page without one, or the
// stop URL (not loaded).
func (b *browser) get(u string) visit {
	b.t.Helper()
	for range 10 {
		if b.stopAt != "" && strings.HasPrefix(u, b.stopAt) {
			return visit{url: u}
		}
		v := b.do(http.MethodGet, u, nil, nil)
		if v.next == "" {
			return v
		}
		u = v.next
	}
	b.t.Fatalf("browser: too many refreshes")
	return visit{}
}

// do sends one request and reads the page.
func (b *browser) do(method, u string, form url.Values, header http.Header) visit {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("browser %s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	v := visit{url: resp.Request.URL.String(), status: resp.StatusCode, body: string(data)}
	if m := metaRefresh.FindStringSubmatch(v.body); m != nil {
		v.next = html.UnescapeString(m[1])
		if ref, err := url.Parse(v.next); err == nil {
			v.next = resp.Request.URL.ResolveReference(ref).String()
		}
	}
	return v
}

// fields returns the hidden inputs of the page's form.
func (v visit) fields() url.Values {
	f := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(v.body, -1) {
		f.Set(m[1], html.UnescapeString(m[2]))
	}
	return f
}

// errorCode is the OAuth error code an error page shows.
func (v visit) errorCode() string {
	if m := errorCode.FindStringSubmatch(v.body); m != nil {
		return m[1]
	}
	return ""
}

// login signs the browser in through the simulator's login form.
func (b *browser) login(nextcloudURL, uid, password string) {
	b.t.Helper()
	page := b.get(nextcloudURL + "/index.php/login")
	f := page.fields()
	f.Set("user", uid)
	f.Set("password", password)
	if v := b.do(http.MethodPost, nextcloudURL+"/index.php/login", f, nil); v.status != http.StatusOK || strings.Contains(v.body, "login-error") {
		b.t.Fatalf("login as %s: %d %s", uid, v.status, v.body)
	}
}

// pkcePair returns a verifier and its S256 challenge.
func pkcePair(seed string) (verifier, challenge string) {
	verifier = base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat(seed, 64)))[:64]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// postForm sends a form to an OAuth endpoint and decodes the JSON answer.
func postForm(t *testing.T, u string, f url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, u, strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, body := doReq(t, req)
	var out map[string]any
	if body != "" {
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("POST %s: %d, not JSON: %s", u, resp.StatusCode, body)
		}
	}
	if cc := resp.Header.Get("Cache-Control"); resp.StatusCode != http.StatusOK && cc != "no-store" && !strings.Contains(u, "/revoke") {
		t.Errorf("POST %s: Cache-Control %q, want no-store", u, cc)
	}
	return resp.StatusCode, out
}
