package nextcloud

import (
	"net/http"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// OCS status codes that are not HTTP statuses.
const (
	ocsUnauthorised = 997
	ocsNotFound     = 998
	ocsServerError  = 996
)

// statusKind maps an HTTP status or an OCS status code to an error kind.
func statusKind(code int) string {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, ocsUnauthorised:
		return hs.EUNAUTHORIZED
	case http.StatusNotFound, http.StatusGone, ocsNotFound:
		return hs.ENOTFOUND
	case http.StatusConflict, http.StatusPreconditionFailed, http.StatusLocked:
		return hs.ECONFLICT
	case http.StatusRequestEntityTooLarge, http.StatusInsufficientStorage:
		return hs.ETOOLARGE
	case http.StatusTooManyRequests, http.StatusRequestTimeout, ocsServerError:
		return hs.EUNAVAILABLE
	}
	switch {
	case code >= 500 && code < 600:
		return hs.EUNAVAILABLE
	case code >= 400 && code < 500:
		return hs.EINVALID
	}
	return hs.EINTERNAL
}

// statusError is the error for a failed request: code is the HTTP status
// or OCS status code, detail Nextcloud's own message (may be empty).
func statusError(op string, code int, detail string) error {
	detail = strings.TrimSpace(detail)
	if len(detail) > 200 {
		detail = detail[:200] + "..."
	}
	text := http.StatusText(code)
	if text == "" {
		text = "status"
	}
	if detail != "" {
		return errorf(statusKind(code), "%s: %d %s: %s", op, code, text, detail)
	}
	return errorf(statusKind(code), "%s: %d %s", op, code, text)
}
