package hybridsearch

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Error kinds. The set is closed; anything else reads as EINTERNAL.
// They are translated in exactly three places: HTTP statuses (handlers),
// queue decisions (queue) and MCP tool errors (mcp).
const (
	EINVALID      = "invalid"      // the caller sent something wrong; do not retry
	ENOTFOUND     = "not_found"    // the thing does not exist or is not visible
	EUNAUTHORIZED = "unauthorized" // missing or bad credentials, or no access
	EFORBIDDEN    = "forbidden"    // a known caller asked for what only others (admins) may
	ECONFLICT     = "conflict"     // the state changed under the caller
	ETOOLARGE     = "too_large"    // input over a size limit
	EUNAVAILABLE  = "unavailable"  // a dependency is down or slow; retry later
	EINTERNAL     = "internal"     // a bug or an unexpected failure
)

// Error is an error with a kind and a message that is safe to show a user.
// Err, if non-nil, is the underlying cause; it is logged, never shown.
type Error struct {
	Kind    string
	Message string
	Err     error
	// Code, if set, names the failure in a word a client can translate
	// (a component's state, ComponentStatus.Code); see ErrorCode.
	Code string
}

// WithCode sets e's Code and returns e.
func (e *Error) WithCode(code string) *Error {
	e.Code = code
	return e
}

// ErrorCode returns the Code of the first *Error in err's chain that has
// one, or "".
func ErrorCode(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Code != "" {
			return e.Code
		}
		err = e.Err
	}
	return ""
}

// Error returns the message, followed by the cause when there is one.
func (e *Error) Error() string {
	switch {
	case e.Err != nil && e.Message != "" && !strings.HasSuffix(e.Message, e.Err.Error()):
		return e.Message + ": " + e.Err.Error()
	case e.Message != "":
		return e.Message
	case e.Err != nil:
		return e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted message.
// A %w verb in format also records the wrapped error as the cause.
func Errorf(kind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Message: err.Error(), Err: errors.Unwrap(err)}
}

// WrapError returns an *Error of the given kind whose message is msg and
// whose cause is err.
func WrapError(kind string, err error, msg string) *Error {
	return &Error{Kind: kind, Message: msg, Err: err}
}

// ErrorKind returns the kind of the first *Error in err's chain,
// "" for a nil error and EINTERNAL for any other error.
func ErrorKind(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return EINTERNAL
}

// ErrorMessage returns the user-safe message of the first *Error in err's
// chain, or a generic text for errors of unknown kind.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "internal error"
}

// endpointRE matches what names a host inside a message: a URL
// ("http://qdrant:6334/...", "nats://10.0.0.4:4222") or a host with a port
// ("ollama-gpu1:11434", "127.0.0.1:4222", "[::1]:6334").
var endpointRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>,;)]*[^\s"'<>,;):.]` +
	`|\[[0-9A-Fa-f:.]+\]:\d{1,5}\b` +
	`|\b(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*):\d{2,5}\b`)

// RedactEndpoints replaces every URL and host:port in msg with "[internal
// address]". Messages shown to users and MCP clients pass through it: the
// addresses of Nextcloud, Qdrant, Ollama or NATS as the app reaches them
// are the admin's business (the log keeps them), not the user's.
func RedactEndpoints(msg string) string {
	if !strings.Contains(msg, ":") {
		return msg
	}
	return endpointRE.ReplaceAllString(msg, "[internal address]")
}
