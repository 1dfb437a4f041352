package search

import (
	"context"
	"errors"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// embedError is the embedder's failure to embed a query, which skipCode
// tells apart from a store's.
type embedError struct{ err error }

func (e embedError) Error() string { return "embed the query: " + e.err.Error() }
func (e embedError) Unwrap() error { return e.err }

// skipCode is the machine-readable reason (hs.Skip*) a leg did not run
// with err: the semantic leg fails in the embedder (an embedError) or in
// the store; the keyword and fuzzy legs only in the store.
func skipCode(err error) string {
	msg := strings.ToLower(err.Error())
	embed := errors.As(err, new(embedError))
	unavailable := hs.ErrorKind(err) == hs.EUNAVAILABLE
	switch {
	case err == errSemanticOff:
		return hs.SkipSemanticOff
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(msg, "timed out") || strings.Contains(msg, "deadline exceeded"):
		return hs.SkipTimeout
	case embed && unavailable:
		return hs.SkipEmbedderUnavailable
	case embed:
		return hs.SkipEmbedderError
	case unavailable:
		return hs.SkipStoreUnavailable
	}
	return hs.SkipStoreError
}
