package app

import (
	"encoding/json"
	"net"
	"strconv"
	"testing"

	"github.com/hybrid-search/hybridsearch/appinfo"
)

// TestStatusReportsBuildVersion: /api/status (the panel's footer shows its
// version) reports this build's version, also when AppAPI registered
// another one (an install not yet updated with occ app_api:app:update).
func TestStatusReportsBuildVersion(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{"APP_VERSION": "0.0.9"}})
	resp, body := env.proxyGet(t, &env.Alice, "api/status")
	var st struct{ Version string }
	if err := json.Unmarshal([]byte(body), &st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /api/status = %d %s (%v)", resp.StatusCode, body, err)
	}
	if st.Version != appinfo.Version() {
		t.Errorf("/api/status version = %q, want info.xml's %q", st.Version, appinfo.Version())
	}
}

// TestAppHostIPv6Wildcard: AppAPI accepts APP_HOST="::"; the app listens
// on every address (IPv4 too) instead of failing with "too many colons".
func TestAppHostIPv6Wildcard(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	env["APP_HOST"] = "::"
	c, err := load(env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr() != "[::]:23000" {
		t.Errorf("Addr() = %q, want [::]:23000", c.Addr())
	}
	ln, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		t.Skipf("no IPv6 here: %v", err)
	}
	ln.Close()
	port := freePort(t) // APP_HOST "::" is what is tested: the app must open the port itself
	te := newTestEnv(t, envOptions{extra: map[string]string{"APP_HOST": "::", "APP_PORT": strconv.Itoa(port)}})
	if got := te.Main.ListenAddr(); got != "[::]:"+strconv.Itoa(port) {
		t.Errorf("ListenAddr() = %q", got)
	}
	resp, _ := doReq(t, mustReq(t, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/heartbeat"))
	if resp.StatusCode != 200 {
		t.Errorf("GET /heartbeat over IPv4 = %d", resp.StatusCode)
	}
}
