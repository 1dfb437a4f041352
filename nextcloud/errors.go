package nextcloud

import (
	"net/http"
	"strings"

	"github.com/hybrid-search/hybridsearch"
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
		return hybridsearch.EUNAUTHORIZED
	case http.StatusNotFound, http.StatusGone, ocsNotFound:
		return hybridsearch.ENOTFOUND
	case http.StatusConflict, http.StatusPreconditionFailed, http.StatusLocked:
		return hybridsearch.ECONFLICT
	case http.StatusRequestEntityTooLarge, http.StatusInsufficientStorage:
		return hybridsearch.ETOOLARGE
	case http.StatusTooManyRequests, http.StatusRequestTimeout, ocsServerError:
		return hybridsearch.EUNAVAILABLE
	}
	switch {
	case code >= 500 && code < 600:
		return hybridsearch.EUNAVAILABLE
	case code >= 400 && code < 500:
		return hybridsearch.EINVALID
	}
	return hybridsearch.EINTERNAL
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
