package app

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestOAuthDiscoveryWhereClientsLook: the discovery paths of the clients
// as their sources walk them, through the simulated AppAPI proxy.
// mcp-remote (0.15, src/lib/authorization-server-metadata.ts and its
// GET probe) first GETs the MCP URL for a 401 and, finding no protected-
// resource metadata, takes the MCP URL itself for the authorization server
// and tries four URLs, of which only <MCP URL>/.well-known/openid-configuration
// reaches the app. The TypeScript SDK (client/auth.js buildDiscoveryUrls)
// reaches <issuer>/.well-known/openid-configuration. The OpenID document
// says only what is true: no ID tokens are issued (no algorithms, no
// openid scope), the key set is empty.
func TestOAuthDiscoveryWhereClientsLook(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t)
	mcpURL := o.base + "/mcp"
	get := func(u string) (int, http.Header, map[string]any) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, body := doReq(t, req)
		var m map[string]any
		_ = json.Unmarshal([]byte(body), &m)
		return resp.StatusCode, resp.Header, m
	}
	// mcp-remote's probe: GET without credentials is a 401 that names the
	// metadata, not a 405.
	if status, h, _ := get(mcpURL); status != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), `resource_metadata="`+o.base+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("GET %s without credentials = %d, WWW-Authenticate %q; want 401 naming the metadata", mcpURL, status, h.Get("WWW-Authenticate"))
	}
	for _, u := range []string{mcpURL + "/.well-known/openid-configuration", mcpURL + "/.well-known/oauth-authorization-server",
		o.base + "/.well-known/openid-configuration", o.base + "/.well-known/oauth-authorization-server"} {
		status, _, md := get(u)
		if status != 200 || md["issuer"] != o.base || md["authorization_endpoint"] != o.base+"/oauth/authorize" || md["token_endpoint"] != o.base+"/oauth/token" {
			t.Errorf("GET %s = %d %v, want the authorization server's metadata", u, status, md)
		}
	}
	_, _, oidc := get(o.base + "/.well-known/openid-configuration")
	algs, present := oidc["id_token_signing_alg_values_supported"].([]any)
	scopes, _ := oidc["scopes_supported"].([]any)
	if !present || len(algs) != 0 || slices.Contains(scopes, any("openid")) || oidc["jwks_uri"] != o.base+"/oauth/jwks" {
		t.Errorf("OpenID document claims what is not true: algorithms %v, scopes %v, jwks_uri %v", oidc["id_token_signing_alg_values_supported"], scopes, oidc["jwks_uri"])
	}
	if _, _, rfc8414 := get(o.base + "/.well-known/oauth-authorization-server"); rfc8414["id_token_signing_alg_values_supported"] != nil || rfc8414["jwks_uri"] != nil {
		t.Errorf("RFC 8414 document has OpenID members: %v", rfc8414)
	}
}

// TestOAuthCORSPreflight: a browser-based client registering or
// discovering sends a CORS preflight (OPTIONS) first. AppAPI's PHP proxy
// has no OPTIONS route in any release (app_api appinfo/routes.php,
// v32.0.0 to v35.0.0beta4: GET, POST, PUT and DELETE only), so Nextcloud
// answers 405 there and the app never sees it; HaRP forwards every verb
// (haproxy_agent.py _exapps_msg matches routes by path only), so through
// /exapps/ the app answers the preflight.
func TestOAuthCORSPreflight(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t)
	harp := o.Sim.BaseURL + "/exapps/hybrid_search"
	preflight := func(u, method, headers string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions, u, nil)
		req.Header.Set("Origin", "https://client.example")
		req.Header.Set("Access-Control-Request-Method", method)
		if headers != "" {
			req.Header.Set("Access-Control-Request-Headers", headers)
		}
		resp, _ := doReq(t, req)
		return resp
	}
	for _, tt := range []struct{ path, method, headers string }{
		{"/oauth/register", "POST", "content-type"},
		{"/oauth/token", "POST", "content-type,mcp-protocol-version"},
		{"/oauth/revoke", "POST", "content-type"},
		{"/.well-known/oauth-protected-resource/mcp", "GET", "mcp-protocol-version"},
		{"/.well-known/openid-configuration", "GET", "mcp-protocol-version"},
		{"/mcp/.well-known/openid-configuration", "GET", "mcp-protocol-version"},
	} {
		resp := preflight(harp+tt.path, tt.method, tt.headers)
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), tt.method) ||
			!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "content-type") || !strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "mcp-protocol-version") {
			t.Errorf("preflight of %s %s through HaRP: %d %v", tt.method, tt.path, resp.StatusCode, h)
		}
		if resp := preflight(o.base+tt.path, tt.method, tt.headers); resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("preflight of %s through AppAPI's proxy: %d, want the 405 Nextcloud answers", tt.path, resp.StatusCode)
		}
	}
}
