package search

import (
	"context"
	"errors"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// skipCode is the machine-readable reason (hs.Skip*) leg did not run with
// err: the semantic leg fails in the embedder ("embed the query", see
// searchSemantic) or in the store; the keyword and fuzzy legs only in the
// store.
func skipCode(leg string, err error) string {
	msg := strings.ToLower(err.Error())
	embed := leg == hs.AlgorithmSemantic && strings.HasPrefix(msg, "embed the query")
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
