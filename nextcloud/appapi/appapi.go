// Package appapi holds the pure facts of Nextcloud's AppAPI protocol that
// more than the Nextcloud client needs: the AUTHORIZATION-APP-API header's
// encoding and the URL shapes under which Nextcloud (AppAPI's proxy and
// embedded pages) and HaRP publish an ExApp. It has no HTTP client and
// imports only the standard library, so handlers may use it.
//
// Checked against nextcloud/app_api v32.0.0–v35.0.0beta4
// (lib/Service/AppAPIService.php: base64_decode of the header, split at
// the first ':'; appinfo/routes.php: /proxy/{appId}/{other} and
// /embedded/{appId}/{name}) and nextcloud/HaRP (haproxy_agent.py:
// /exapps/{exapp_id}).
package appapi

import (
	"encoding/base64"
	"errors"
	"strings"
)

// AuthHeader is the header that carries the acting user and the app
// secret, in both directions.
const AuthHeader = "AUTHORIZATION-APP-API"

// EncodeAuth returns the AuthHeader value for user ("" for the app
// itself) and secret: base64 of "user:secret".
func EncodeAuth(user, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + secret))
}

// ErrNotBase64 is DecodeAuth's error for a value that is not standard
// base64.
var ErrNotBase64 = errors.New("AUTHORIZATION-APP-API is not base64")

// DecodeAuth splits an AuthHeader value into user and secret at the first
// ':' (user IDs never contain one; secrets may). It fails on a value that
// is not standard base64 or has no ':'. Callers compare the secret in
// constant time.
func DecodeAuth(value string) (user, secret string, err error) {
	raw, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		return "", "", ErrNotBase64
	}
	user, secret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", errors.New("AUTHORIZATION-APP-API has no user:secret pair")
	}
	return user, secret, nil
}

// ProxyPath is the path of app appID under AppAPI's proxy, relative to
// Nextcloud's base URL: /index.php/apps/app_api/proxy/<appID>.
func ProxyPath(appID string) string { return "/index.php/apps/app_api/proxy/" + appID }

// ProxyURL is app appID's base URL through AppAPI's proxy.
func ProxyURL(nextcloudURL, appID string) string { return nextcloudURL + ProxyPath(appID) }

// PrettyProxyURL is ProxyURL as Nextcloud writes it with pretty URLs
// (front_controller_active, the official Docker image): without
// /index.php. Both reach the same route.
func PrettyProxyURL(nextcloudURL, appID string) string {
	return nextcloudURL + "/apps/app_api/proxy/" + appID
}

// HaRPURL is app appID's base URL through HaRP, which serves ExApps under
// /exapps/<appID> on Nextcloud's own host.
func HaRPURL(nextcloudURL, appID string) string { return nextcloudURL + "/exapps/" + appID }

// EmbeddedURL is the Nextcloud page that shows app appID's top-menu entry
// menu inside Nextcloud's shell.
func EmbeddedURL(nextcloudURL, appID, menu string) string {
	return nextcloudURL + "/index.php/apps/app_api/embedded/" + appID + "/" + menu
}
