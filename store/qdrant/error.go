package qdrant

import (
	"context"
	"errors"
	"fmt"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	hs "github.com/hybrid-search/hybridsearch"
)

// qdrantError maps an error of a Qdrant call to an error kind:
// Unavailable, DeadlineExceeded (the per-call timeout), ResourceExhausted
// and Aborted give EUNAVAILABLE, InvalidArgument EINVALID, NotFound
// ENOTFOUND, Unauthenticated and PermissionDenied EUNAUTHORIZED,
// AlreadyExists ECONFLICT, anything else EINTERNAL. When the caller's ctx
// is done the error wraps ctx.Err() instead, without a kind.
func qdrantError(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("store: qdrant %s: %w", op, cerr)
	}
	var rate *qc.QdrantResourceExhaustedError
	if errors.As(err, &rate) {
		return hs.WrapError(hs.EUNAVAILABLE, err,
			fmt.Sprintf("store: qdrant %s: rate limited, retry after %d s", op, rate.RetryAfterS))
	}
	st, _ := status.FromError(err)
	kind, what := hs.EINTERNAL, "failed"
	switch {
	case isTooLarge(err):
		// Retrying the same message cannot help.
		return hs.WrapError(hs.ETOOLARGE, err, fmt.Sprintf("store: qdrant %s: message over the gRPC size limit", op))
	}
	switch st.Code() {
	case codes.Unavailable, codes.ResourceExhausted, codes.Aborted, codes.Canceled:
		kind, what = hs.EUNAVAILABLE, "qdrant is unavailable"
	case codes.DeadlineExceeded:
		kind, what = hs.EUNAVAILABLE, "qdrant timed out"
	case codes.InvalidArgument:
		kind, what = hs.EINVALID, st.Message()
	case codes.NotFound:
		kind, what = hs.ENOTFOUND, st.Message()
	case codes.Unauthenticated, codes.PermissionDenied:
		kind, what = hs.EUNAUTHORIZED, "qdrant refused the API key"
	case codes.AlreadyExists:
		kind, what = hs.ECONFLICT, st.Message()
	}
	return hs.WrapError(kind, err, fmt.Sprintf("store: qdrant %s: %s", op, what))
}

// isTooLarge reports whether err is gRPC refusing a message over its size
// limit (ResourceExhausted "received message larger than max" or "trying
// to send message larger than max"), as opposed to Qdrant's rate limit.
func isTooLarge(err error) bool {
	if err == nil {
		return false
	}
	st, ok := status.FromError(err)
	if !ok {
		var e *hs.Error
		if errors.As(err, &e) && e.Err != nil {
			return isTooLarge(e.Err)
		}
		return false
	}
	return st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "message larger than max")
}
