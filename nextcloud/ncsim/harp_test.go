package ncsim

import (
	"errors"
	"io"
	"net/http"
	"testing"
)

// TestBearerThroughProxyAndHaRP: an Authorization: Bearer token Nextcloud
// does not know (an ExApp's own token) logs nobody in and is not
// throttled, so a PUBLIC route reaches the ExApp with user "" and the
// header intact; an app password as Bearer logs its user in. The same
// holds through HaRP, which asks /harp/user-info and never strips headers.
func TestBearerThroughProxyAndHaRP(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.ThrottleMaxAttempts = 2 })
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f,
		Route{URL: `^\/?mcp\/?$`, Verb: "GET,POST,DELETE", AccessLevel: AccessPublic},
		Route{URL: `^\/?api\/`, Verb: "GET,POST", AccessLevel: AccessUser},
	)
	aaEnable(t, s, "hybrid_search")
	secret := env.Get("APP_SECRET")
	bob := s.AddUser("dave", "Dave", false)
	foreign := http.Header{"Authorization": {"Bearer app-issued.jwt.token"}}
	appPassword := http.Header{"Authorization": {"Bearer " + bob.AppPassword}}

	for _, front := range []string{proxyPrefix, harpPrefix} {
		base := ts.URL + front + "hybrid_search/"
		for i := 0; i < 5; i++ { // more than ThrottleMaxAttempts: token logins are not throttled
			resp, body := aaProxyDo(t, http.MethodPost, base+"mcp", foreign, `{}`)
			if resp.StatusCode != 200 {
				t.Fatalf("%s unknown bearer on a PUBLIC route = %d %s", front, resp.StatusCode, body)
			}
		}
		calls := f.Calls("/mcp")
		c := calls[len(calls)-1]
		if c.Header.Get("Authorization") != "Bearer app-issued.jwt.token" || c.Header.Get("Authorization-App-Api") != b64(":"+secret) {
			t.Errorf("%s forwarded Authorization %q, AUTHORIZATION-APP-API %q; want the token and user \"\"", front,
				c.Header.Get("Authorization"), c.Header.Get("Authorization-App-Api"))
		}
		if resp, _ := aaProxyDo(t, http.MethodPost, base+"mcp", appPassword, `{}`); resp.StatusCode != 200 {
			t.Fatalf("%s app password as bearer = %d", front, resp.StatusCode)
		}
		calls = f.Calls("/mcp")
		if got := calls[len(calls)-1].Header.Get("Authorization-App-Api"); got != b64("dave:"+secret) {
			t.Errorf("%s app password as bearer: AUTHORIZATION-APP-API = %q, want user dave", front, got)
		}
		want := http.StatusNotFound // AppAPI proxy: denial is a 404
		if front == harpPrefix {
			want = http.StatusForbidden // HaRP: the first matching route decides, 403
		}
		if resp, _ := aaProxyDo(t, http.MethodGet, base+"api/items", foreign, ""); resp.StatusCode != want {
			t.Errorf("%s unknown bearer on a USER route = %d, want %d", front, resp.StatusCode, want)
		}
		if resp, _ := aaProxyDo(t, http.MethodGet, base+"api/items", appPassword, ""); resp.StatusCode != 200 {
			t.Errorf("%s app password on a USER route = %d", front, resp.StatusCode)
		}
	}
	if got := f.Calls("/mcp")[0].Header.Get("Aa-Version"); got != s.AppAPIVersion {
		t.Errorf("AA-VERSION through the proxy = %q", got)
	}
	if got := f.Calls("/mcp")[len(f.Calls("/mcp"))-1].Header.Get("Aa-Version"); got != "32" {
		t.Errorf("AA-VERSION through HaRP = %q, want the literal 32", got)
	}
}

// TestHaRPRefusals: HaRP drops the connection for "..", and for the
// lifecycle routes when the request is not AppAPI's; unknown apps and
// paths with no route get 404; the user-info route wants HaRP's key.
func TestHaRPRefusals(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, nil)
	aaRegister(t, s, f, Route{URL: `.*`, Verb: "GET", AccessLevel: AccessPublic})
	aaEnable(t, s, "hybrid_search")
	base := ts.URL + harpPrefix + "hybrid_search"
	for _, p := range []string{"/heartbeat", "/init", "/enabled", "/a/%2e%2e/b"} {
		req, _ := http.NewRequest(http.MethodGet, base+p, nil)
		resp, err := aaNoRedirect.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s answered %d, want a dropped connection", p, resp.StatusCode)
		} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Logf("GET %s: %v", p, err)
		}
	}
	if resp, body := aaProxyDo(t, http.MethodGet, ts.URL+harpPrefix+"nope/x", nil, ""); resp.StatusCode != 404 || body != "404 Not Found" {
		t.Errorf("unknown app = %d %q", resp.StatusCode, body)
	}
	for _, key := range []string{"", "wrong"} {
		h := aaBasic("alice", "alice")
		if key != "" {
			h.Set("Harp-Shared-Key", key)
		}
		if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+harpUserInfoPath+"?appId=hybrid_search", h, ""); resp.StatusCode != 401 {
			t.Errorf("user-info with key %q = %d, want 401", key, resp.StatusCode)
		}
	}
	h := aaBasic("alice", "alice")
	h.Set("Harp-Shared-Key", s.harpKey())
	if _, body := aaProxyDo(t, http.MethodGet, ts.URL+harpUserInfoPath+"?appId=hybrid_search", h, ""); body != "{\"user_id\":\"alice\",\"access_level\":2}\n" {
		t.Errorf("user-info for an admin = %q", body)
	}
}
