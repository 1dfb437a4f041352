package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// demoGet GETs a proxied API path of the demo as user (Basic, app password).
func demoGet(t *testing.T, d *demoProcess, u demoUser, path string, v any) {
	t.Helper()
	base := strings.TrimSuffix(d.ready.MCPURL, "/mcp")
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
	req.SetBasicAuth(u.UID, u.AppPassword)
	resp, body := doReq(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s as %s: %d %s", path, u.UID, resp.StatusCode, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// awaitDemoIndexed waits until every file of the demo's users is indexed.
func awaitDemoIndexed(t *testing.T, d *demoProcess) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for _, u := range d.ready.Users {
		for {
			var st struct {
				Files struct{ Indexed, Pending int } `json:"files"`
			}
			demoGet(t, d, u, "/api/status", &st)
			if st.Files.Indexed > 0 && st.Files.Pending == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s's files not indexed in time: %+v", u.UID, st)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// TestMCPOAuthWithTypeScriptClient runs the whole "sign in with
// Nextcloud" dance against the demo, through the simulated AppAPI proxy:
// the official TypeScript SDK's OAuth client provider discovers the
// app's authorization server from the 401, registers (dynamically, then
// with a client ID metadata document), sends the user to the
// authorization URL; chromium signs in on Nextcloud's login page and
// allows access on the consent page; the SDK trades the code for tokens
// and calls the tools as alice, and bob's note never shows. Then MCP
// Inspector's CLI does the same, headless.
func TestMCPOAuthWithTypeScriptClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the demo and a browser")
	}
	node := needTSClient(t)
	browser := chromiumPath(t)

	docURL, docEnv := clientDocServer(t, "Doc Assistant", "http://127.0.0.1/callback")
	d := startDemo(t, docEnv...)
	alice, bob := d.ready.Users[0], d.ready.Users[1]
	awaitDemoIndexed(t, d)
	var bobSearch struct {
		Results []struct {
			FileID int64 `json:"file_id"`
		} `json:"results"`
	}
	demoGet(t, d, bob, "/api/search?q=quokkasalary", &bobSearch)
	if len(bobSearch.Results) != 1 {
		t.Fatalf("bob's search for his note: %+v", bobSearch)
	}
	bobDoc := bobSearch.Results[0].FileID
	proxyBase := strings.TrimSuffix(d.ready.MCPURL, "/mcp")

	check := func(how string, r oauthRun, wantClient string, document bool) {
		t.Helper()
		if r.Error != "" {
			t.Fatalf("%s: %s", how, r.Error)
		}
		registered := "client:registered"
		if document {
			registered = "client:metadata-document"
		}
		if !slices.Contains(r.Events, registered) || !slices.Contains(r.Events, "redirect") || !slices.Contains(r.Events, "tokens") {
			t.Errorf("%s: SDK events %v", how, r.Events)
		}
		if r.Discovery.AuthorizationServer != proxyBase || r.Discovery.Issuer != proxyBase || r.Discovery.Resource != d.ready.MCPURL {
			t.Errorf("%s: discovery %+v", how, r.Discovery)
		}
		if r.LoginPage != "/index.php/login" || r.Consent.User != "alice" || r.Consent.Client != wantClient ||
			!strings.HasPrefix(r.Consent.RedirectHost, "127.0.0.1:") || !strings.HasPrefix(r.Consent.URL, proxyBase+"/oauth/authorize") {
			t.Errorf("%s: login page %q, consent %+v", how, r.LoginPage, r.Consent)
		}
		if document != (r.Consent.ClientID != nil && *r.Consent.ClientID == docURL) {
			t.Errorf("%s: consent shows client id %v", how, r.Consent.ClientID)
		}
		if !r.Callback.StateOK || !r.Callback.HasCode || r.Callback.Iss != proxyBase || r.Token.Scope != hs.TokenScope || !r.Token.HasRefresh {
			t.Errorf("%s: callback %+v, token %+v", how, r.Callback, r.Token)
		}
		if !slices.Equal(r.Tools, []string{"nc_get_document", "nc_index_status", "nc_semantic_search"}) {
			t.Errorf("%s: tools %v", how, r.Tools)
		}
		s := r.Calls["search"]
		if s.IsError || !strings.Contains(s.Text, "Kubernetes") {
			t.Errorf("%s: alice's search: %s", how, s.Text)
		}
		if f := r.Calls["forbidden"]; !f.IsError || !strings.Contains(f.Text, "not found") {
			t.Errorf("%s: bob's note by id: %+v", how, f)
		}
		if strings.Contains(strings.ToLower(r.Raw), "quokkasalary") || strings.Contains(r.Raw, "Salary review") || strings.Contains(r.Raw, `"file_id":`+itoa(bobDoc)+`,`) {
			t.Errorf("%s: bob's note appears in alice's session:\n%s", how, r.Raw)
		}
	}
	common := []string{"--user", "alice", "--password", "alice", "--query", "kubernetes upgrade", "--forbidden-id", itoa(bobDoc), "--chromium", browser}

	r := runOAuthClient(t, node, append([]string{d.ready.MCPURL, "--screenshots", artifactsDir(t, "oauth")}, common...)...)
	check("dynamic registration", r, "Hybrid Search e2e (TypeScript SDK)", false)
	r = runOAuthClient(t, node, append([]string{d.ready.MCPURL, "--client-metadata-url", docURL}, common...)...)
	check("client ID metadata document", r, "Doc Assistant", true)

	// Both grants are alice's tokens now, listed beside the demo token.
	var list struct {
		Tokens []hs.Token `json:"tokens"`
	}
	demoGet(t, d, alice, "/api/tokens", &list)
	var names []string
	for _, tk := range list.Tokens {
		if tk.Client != "" && tk.Resource == d.ready.MCPURL && tk.Active(time.Now()) {
			names = append(names, tk.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"Doc Assistant", "Hybrid Search e2e (TypeScript SDK)"}) {
		t.Errorf("alice's OAuth grants in /api/tokens: %v (%+v)", names, list.Tokens)
	}
	demoGet(t, d, bob, "/api/tokens", &list)
	for _, tk := range list.Tokens {
		if tk.Client != "" {
			t.Errorf("bob has an OAuth grant: %+v", tk)
		}
	}

	// MCP Inspector's CLI, headless, through the same dance.
	insp := runInspector(t, d.ready.MCPURL, "--user", "alice", "--password", "alice", "--query", "kubernetes upgrade", "--chromium", browser)
	if insp.ConsentClient != "MCP Inspector" || insp.ExitCode != 0 || !strings.Contains(string(insp.Result), "Kubernetes") {
		t.Errorf("MCP Inspector CLI: %+v", insp)
	}
	if strings.Contains(strings.ToLower(string(insp.Result)), "quokkasalary") {
		t.Errorf("bob's note in the Inspector's result: %s", insp.Result)
	}
}

// inspectorRun is what inspector.mjs prints.
type inspectorRun struct {
	ConsentClient string          `json:"consentClient"`
	ExitCode      int             `json:"exitCode"`
	Result        json.RawMessage `json:"result"`
	Stderr        string          `json:"stderr"`
}

// runInspector installs the Inspector project (npm ci) when needed and
// runs inspector.mjs.
func runInspector(t *testing.T, args ...string) inspectorRun {
	t.Helper()
	needInspector(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"inspector.mjs"}, args...)...)
	cmd.Dir = inspectorDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node inspector.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var r inspectorRun
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("inspector.mjs output is not JSON: %v\n%s", err, out)
	}
	return r
}

// TestTypeScriptSDKsSignInRefreshRevoke signs alice in through the demo's
// proxy with the official TypeScript SDK v1 (1.32.2) without state (as its
// example provider does: OAuth 2.1 makes state optional with PKCE) and
// with the SDK v2 (@modelcontextprotocol/client 2.4.0) identified by a
// client ID metadata document. Each then meets a broken access token (the
// SDK refreshes, the refresh token rotates, no browser) and, after the
// grant is revoked at the revocation endpoint (RFC 7009; neither SDK has
// a call for it), asks for a new sign-in.
func TestTypeScriptSDKsSignInRefreshRevoke(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the demo and a browser")
	}
	node := needTSClient(t)
	browser := chromiumPath(t)
	docURL, docEnv := clientDocServer(t, "TypeScript SDK v2", "http://127.0.0.1/callback")
	d := startDemo(t, docEnv...)
	awaitDemoIndexed(t, d)
	common := []string{"--user", "alice", "--password", "alice", "--query", "kubernetes upgrade", "--chromium", browser, "--refresh-and-revoke"}
	for _, tt := range []struct {
		name  string
		args  []string
		state bool
	}{
		{"SDK v1, dynamic registration, no state", []string{"--sdk", "v1", "--no-state"}, false},
		{"SDK v2, client ID metadata document", []string{"--sdk", "v2", "--client-metadata-url", docURL}, true},
	} {
		r := runOAuthClient(t, node, append(append([]string{d.ready.MCPURL}, tt.args...), common...)...)
		if r.Error != "" || !slices.Contains(r.Events, "tokens") || r.AuthorizationHasState != tt.state || !r.Callback.HasCode {
			t.Errorf("%s: sign-in: error %q, events %v, state sent %v, callback %+v", tt.name, r.Error, r.Events, r.AuthorizationHasState, r.Callback)
			continue
		}
		if s := r.Calls["search"]; s.IsError || !strings.Contains(s.Text, "Kubernetes") {
			t.Errorf("%s: search: %s", tt.name, s.Text)
		}
		if f := r.Refresh; f == nil || !f.Connected || !f.Rotated || slices.Contains(f.Events, "redirect") || !slices.Contains(f.Events, "tokens") {
			t.Errorf("%s: a broken access token: %+v, want a refresh (rotated) without a new sign-in", tt.name, f)
		}
		if v := r.Revoke; v == nil || v.Status != http.StatusOK || v.After.Connected || !slices.Contains(v.After.Events, "redirect") {
			t.Errorf("%s: after revocation: %+v, want 200 and a new sign-in asked for", tt.name, v)
		}
		t.Logf("%s: signed in (state sent: %v), refreshed with rotation, revoked (RFC 7009 %d), then asked to sign in again", tt.name, r.AuthorizationHasState, r.Revoke.Status)
	}
}

// clientDocServer serves a client ID metadata document for name with
// redirectURIs over TLS on 127.0.0.1 and returns its URL (the client_id)
// and the demo environment that lets the app fetch it: the host allowed
// by OAUTH_CLIENT_METADATA_HOSTS, the test certificate trusted through
// SSL_CERT_FILE.
func clientDocServer(t *testing.T, name string, redirectURIs ...string) (string, []string) {
	t.Helper()
	var docURL string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"client_id": docURL, "client_name": name, "redirect_uris": redirectURIs,
			"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none",
		})
	}))
	t.Cleanup(srv.Close)
	docURL = srv.URL + "/clients/" + strings.ReplaceAll(strings.ToLower(name), " ", "-") + ".json"
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return docURL, []string{"OAUTH_CLIENT_METADATA_HOSTS=" + srv.Listener.Addr().String(), "SSL_CERT_FILE=" + certFile}
}
