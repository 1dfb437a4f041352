package appapi_test

import (
	"testing"

	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

func TestAuthRoundTrip(t *testing.T) {
	tests := []struct {
		name, user, secret, wantValue string
	}{
		{"user", "alice", "s3cret", "YWxpY2U6czNjcmV0"},
		{"app itself", "", "s3cret", "OnMzY3JldA=="},
		{"colon in secret", "bob", "a:b", "Ym9iOmE6Yg=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appapi.EncodeAuth(tt.user, tt.secret)
			if got != tt.wantValue {
				t.Errorf("EncodeAuth(%q, %q) = %q, want %q", tt.user, tt.secret, got, tt.wantValue)
			}
			user, secret, err := appapi.DecodeAuth(got)
			if err != nil || user != tt.user || secret != tt.secret {
				t.Errorf("DecodeAuth(%q) = %q, %q, %v; want %q, %q", got, user, secret, err, tt.user, tt.secret)
			}
		})
	}
}

func TestDecodeAuthRejects(t *testing.T) {
	for _, v := range []string{"not base64!", "YWxpY2U=" /* "alice", no colon */} {
		if u, s, err := appapi.DecodeAuth(v); err == nil {
			t.Errorf("DecodeAuth(%q) = %q, %q, nil; want an error", v, u, s)
		}
	}
}

func TestURLs(t *testing.T) {
	const nc = "https://cloud.example"
	tests := []struct{ name, got, want string }{
		{"ProxyPath", appapi.ProxyPath("hybridsearch"), "/index.php/apps/app_api/proxy/hybridsearch"},
		{"ProxyURL", appapi.ProxyURL(nc, "hybridsearch"), nc + "/index.php/apps/app_api/proxy/hybridsearch"},
		{"PrettyProxyURL", appapi.PrettyProxyURL(nc, "hybridsearch"), nc + "/apps/app_api/proxy/hybridsearch"},
		{"HaRPURL", appapi.HaRPURL(nc, "hybridsearch"), nc + "/exapps/hybridsearch"},
		{"EmbeddedURL", appapi.EmbeddedURL(nc, "hybridsearch", "search"), nc + "/index.php/apps/app_api/embedded/hybridsearch/search"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
