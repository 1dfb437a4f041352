package embedding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/internal/ollamamsg"
)

// hostError is a failure that concerns one host rather than the request:
// the host could not be reached, timed out, or lacks the model. The batch
// may be retried on another host.
type hostError struct{ err error }

func (e *hostError) Error() string { return e.err.Error() }
func (e *hostError) Unwrap() error { return e.err }

// isHostError reports whether err says "try another host".
func isHostError(err error) bool {
	var he *hostError
	return errors.As(err, &he)
}

// classify turns an error from the Ollama client into an error with a
// root kind. op is "embed" or "show"; host is the redacted base URL; ctx is
// the caller's context (not the per-request one), to tell a cancelled
// caller from a slow host. The result never holds input text: Ollama's
// messages do not echo inputs, and they are cut to ollamamsg.Max bytes.
func classify(ctx context.Context, op, host, model string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: %w", op, host, ctxErr)
	}
	var se api.StatusError
	if errors.As(err, &se) {
		return classifyStatus(op, host, model, se)
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: unauthorized (status %d): check the proxy credentials", op, host, ae.StatusCode)
	}
	var je *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &je) || errors.As(err, &te) {
		return hs.Errorf(hs.EINTERNAL, "embedding: ollama %s on %s: malformed response: %w", op, host, err)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &hostError{hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: timed out: %w", op, host, err)}
	}
	// Anything else from http.Client.Do is a transport failure: refused,
	// reset, DNS, TLS.
	return &hostError{hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: host unreachable: %w", op, host, err)}
}

// classifyStatus maps an error status of Ollama to a root kind. A 400
// about the context length is ETOOLARGE: the runner refuses an input
// longer than its context ("the input length exceeds the context length",
// runner/ollamarunner/runner.go errorInputTooLong), and EmbedHandler's
// retry of a truncated input fails with that message or with "input
// exceeds maximum context length and cannot be truncated further" or
// "input after truncation exceeds maximum context length"
// (server/routes.go, v0.17.4), all with status 400.
func classifyStatus(op, host, model string, se api.StatusError) error {
	msg := se.ErrorMessage
	msg = ollamamsg.Clip(msg)
	cause := errors.New(msg)
	switch code := se.StatusCode; {
	case code == http.StatusNotFound:
		return &hostError{hs.WrapError(hs.EUNAVAILABLE, cause,
			fmt.Sprintf("embedding model %q is not available on %s: run \"ollama pull %s\" there", model, host, model))}
	case code == http.StatusServiceUnavailable:
		return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: server busy (status 503): %w", op, host, cause)
	case code >= 500:
		return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: server error (status %d): %w", op, host, code, cause)
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code == 499:
		return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: status %d: %w", op, host, code, cause)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama %s on %s: access denied (status %d): check the proxy credentials: %w", op, host, code, cause)
	case code == http.StatusBadRequest && strings.Contains(msg, "context length"):
		return hs.Errorf(hs.ETOOLARGE, "embedding: ollama %s on %s: an input is too long for the model's context and could not be truncated (status 400): %w", op, host, cause)
	default:
		return hs.Errorf(hs.EINVALID, "embedding: ollama %s on %s rejected the input (status %d): %w", op, host, code, cause)
	}
}
