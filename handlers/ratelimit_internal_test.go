package handlers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

// TestRateKey: requests count against an address only where the app can
// trust it: the peer's on its own port, X-Origin-Ip where AppAPI's proxy
// set it (behind HaRP: with AppAPI's shared key), an IPv6 address's /64.
// HaRP passes no caller address, so its own route has none.
func TestRateKey(t *testing.T) {
	s := &Server{appID: "app", secret: "sec"}
	sign := func(r *http.Request) *http.Request {
		r.Header.Set("EX-APP-ID", "app")
		r.Header.Set("EX-APP-VERSION", "1")
		r.Header.Set(appapi.AuthHeader, appapi.EncodeAuth("", "sec"))
		return r
	}
	req := func(peer, originIP string, opts ...func(*http.Request)) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/oauth/register", nil)
		r.RemoteAddr = peer
		if originIP != "" {
			r.Header.Set("X-Origin-Ip", originIP)
		}
		for _, o := range opts {
			o(r)
		}
		return r
	}
	withKey := func(r *http.Request) { r.Header.Set("harp-shared-key", "k") }
	for _, tt := range []struct {
		name    string
		harpKey string
		r       *http.Request
		want    string
		ok      bool
	}{
		{"direct", "", req("10.0.0.7:5555", "1.2.3.4"), "10.0.0.7", true},
		{"direct IPv6", "", req("[2001:db8:1:2:3:4:5:6]:5555", ""), "2001:db8:1:2::/64", true},
		{"AppAPI's proxy", "", sign(req("127.0.0.1:5555", "1.2.3.4")), "1.2.3.4", true},
		{"AppAPI's proxy, IPv6", "", sign(req("127.0.0.1:5555", "2001:db8::9")), "2001:db8::/64", true},
		{"AppAPI's proxy, no address", "", sign(req("127.0.0.1:5555", "")), "127.0.0.1", true},
		{"forged X-Origin-Ip, unsigned", "", req("10.0.0.7:5555", "9.9.9.9"), "10.0.0.7", true},
		{"behind HaRP, AppAPI's proxy", "k", sign(req("@", "1.2.3.4", withKey)), "1.2.3.4", true},
		{"behind HaRP, HaRP's own route", "k", sign(req("@", "1.2.3.4")), "", false},
	} {
		s.harpKey = tt.harpKey
		got, ok := s.rateKey(tt.r)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: rateKey = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLimiterIsBounded: the per-address limiter forgets the least
// recently seen addresses beyond its size, so a flood from many
// addresses cannot grow it without end, and an address seen again is
// still limited.
func TestLimiterIsBounded(t *testing.T) {
	l := newLimiter(limit{per: time.Minute, burst: 2}, 100)
	for i := range 10000 {
		l.allow(fmt.Sprint("addr", i))
	}
	if n := l.size(); n > 100 {
		t.Errorf("limiter tracks %d addresses, want at most 100", n)
	}
	for i := range 3 {
		if ok := l.allow("steady"); ok != (i < 2) {
			t.Errorf("request %d from one address: allowed %v", i, ok)
		}
	}
}
