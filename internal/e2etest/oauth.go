package e2etest

import (
	"testing"
	"time"
)

// OAuthRun is what oauth.mjs prints.
type OAuthRun struct {
	Events    []string `json:"events"`
	Discovery struct {
		AuthorizationServer string `json:"authorizationServer"`
		Resource            string `json:"resource"`
		Issuer              string `json:"issuer"`
	} `json:"discovery"`
	LoginPage string `json:"loginPage"`
	Consent   struct {
		URL          string  `json:"url"`
		Client       string  `json:"client"`
		User         string  `json:"user"`
		RedirectHost string  `json:"redirectHost"`
		ClientID     *string `json:"clientID"`
	} `json:"consent"`
	Callback struct {
		StateOK bool   `json:"state_ok"`
		Iss     string `json:"iss"`
		HasCode bool   `json:"has_code"`
	} `json:"callback"`
	Token struct {
		Scope      string `json:"scope"`
		HasRefresh bool   `json:"has_refresh"`
	} `json:"token"`
	Tools                 []string          `json:"tools"`
	Calls                 map[string]TSCall `json:"calls"`
	Error                 string            `json:"error"`
	AuthorizationHasState bool              `json:"authorizationHasState"`
	Refresh               *ReconnectRun     `json:"refresh"`
	Revoke                *struct {
		Endpoint string       `json:"endpoint"`
		Status   int          `json:"status"`
		After    ReconnectRun `json:"after"`
	} `json:"revoke"`
	Raw string `json:"-"` // the output as printed
}

// ReconnectRun is one connection of oauth.mjs --refresh-and-revoke.
type ReconnectRun struct {
	Connected    bool     `json:"connected"`
	Unauthorized bool     `json:"unauthorized"`
	Rotated      bool     `json:"rotated"`
	Events       []string `json:"events"`
	Error        string   `json:"error"`
}

// RunOAuthClient runs oauth.mjs with args.
func RunOAuthClient(t *testing.T, node string, args ...string) OAuthRun {
	t.Helper()
	var r OAuthRun
	r.Raw = RunNodeJSON(t, node, 2*time.Minute, "oauth.mjs", args, &r)
	return r
}
