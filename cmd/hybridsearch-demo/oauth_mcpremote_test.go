package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// mcpRemoteRun is what mcpremote.mjs prints.
type mcpRemoteRun struct {
	AuthorizationURLs []string `json:"authorizationUrls"`
	Registration      string   `json:"registration"`
	Consent           struct {
		Client   string  `json:"client"`
		ClientID *string `json:"clientID"`
	} `json:"consent"`
	CallbackReached bool              `json:"callbackReached"`
	Outcome         string            `json:"outcome"`
	BrowserOpened   bool              `json:"browserOpened"`
	Tools           []string          `json:"tools"`
	Calls           map[string]tsCall `json:"calls"`
	Error           string            `json:"error"`
	SignInError     string            `json:"signInError"`
	StderrTail      string            `json:"stderrTail"`
	raw             string
}

func runMCPRemote(t *testing.T, node string, args ...string) mcpRemoteRun {
	t.Helper()
	var r mcpRemoteRun
	r.raw = runNodeJSON(t, node, 4*time.Minute, "mcpremote.mjs", args, &r)
	return r
}

// TestMCPRemoteSignsIn runs mcp-remote (0.15.1, the stdio bridge of many
// desktop clients) through the demo's AppAPI proxy: once with
// --client-metadata-url (its client identified by a client ID metadata
// document, which failed after consent when the authorization server's
// metadata was not where mcp-remote looks), once with dynamic
// registration. Chromium signs alice in; then mcp-remote, started again
// with a broken stored access token, refreshes without a browser; after
// alice revokes the grant in the app, the next start must sign in again.
func TestMCPRemoteSignsIn(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the demo, mcp-remote and a browser")
	}
	node := needTSClient(t)
	browser := chromiumPath(t)
	port := freePort(t)
	docURL, docEnv := clientDocServer(t, "mcp-remote (document)", fmt.Sprintf("http://localhost:%d/oauth/callback", port))
	d := startDemo(t, docEnv...)
	awaitDemoIndexed(t, d)
	alice := d.ready.Users[0]
	common := []string{"--user", "alice", "--password", "alice", "--chromium", browser, "--query", "kubernetes upgrade"}
	signedIn := func(t *testing.T, how string, r mcpRemoteRun, wantRegistration string, wantBrowser bool) {
		t.Helper()
		if r.Error != "" || r.SignInError != "" || r.Outcome != "connected" || r.BrowserOpened != wantBrowser ||
			(wantBrowser && (r.Registration != wantRegistration || !r.CallbackReached)) {
			t.Fatalf("%s: outcome %q, registration %q, browser %v, error %q %q\n%s", how, r.Outcome, r.Registration, r.BrowserOpened, r.Error, r.SignInError, r.StderrTail)
		}
		if !slices.Equal(r.Tools, []string{"nc_get_document", "nc_index_status", "nc_semantic_search"}) || r.Calls["search"].IsError || !strings.Contains(r.Calls["search"].Text, "Kubernetes") {
			t.Errorf("%s: tools %v, search %+v", how, r.Tools, r.Calls["search"])
		}
	}

	for _, tt := range []struct {
		name, registration string
		extra              []string
	}{
		{"client ID metadata document", "client ID metadata document", []string{"--client-metadata-url", docURL}},
		{"dynamic registration", "dynamic registration", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			config := t.TempDir()
			args := append([]string{d.ready.MCPURL, "--port", fmt.Sprint(port), "--config", config}, append(common, tt.extra...)...)
			r := runMCPRemote(t, node, args...)
			signedIn(t, "first start", r, tt.registration, true)
			if tt.extra != nil && (r.Consent.ClientID == nil || *r.Consent.ClientID != docURL || r.Consent.Client != "mcp-remote (document)") {
				t.Errorf("consent page: %+v, want the document's client", r.Consent)
			}
			// A broken stored access token: mcp-remote refreshes, no browser.
			r = runMCPRemote(t, node, append(args, "--corrupt-access-token")...)
			signedIn(t, "refresh", r, "", false)
			// Alice revokes the grant in the app: the next start must sign in.
			var list struct {
				Tokens []hs.Token `json:"tokens"`
			}
			demoGet(t, d, alice, "/api/tokens", &list)
			revoked := 0
			for _, tk := range list.Tokens {
				if tk.Client != "" && tk.Active(time.Now()) {
					req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, strings.TrimSuffix(d.ready.MCPURL, "/mcp")+"/api/tokens/"+tk.ID, nil)
					req.SetBasicAuth(alice.UID, alice.AppPassword)
					if resp, body := doReq(t, req); resp.StatusCode >= 300 {
						t.Fatalf("revoke %s: %d %s", tk.ID, resp.StatusCode, body)
					}
					revoked++
				}
			}
			if revoked != 1 {
				t.Errorf("alice had %d OAuth grants, want 1", revoked)
			}
			r = runMCPRemote(t, node, append(args, "--no-sign-in")...)
			if r.Outcome != "stopped" || len(r.AuthorizationURLs) == 0 {
				t.Errorf("after the grant was revoked: outcome %q, authorization URLs %v, want a new sign-in\n%s", r.Outcome, r.AuthorizationURLs, r.StderrTail)
			}
			t.Logf("mcp-remote 0.15.1, %s: signed in, refreshed without a browser, asked to sign in again after revocation", tt.name)
		})
	}
}
