package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hybrid-search/hybridsearch"
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
	var rate *qdrant.QdrantResourceExhaustedError
	if errors.As(err, &rate) {
		return hybridsearch.WrapError(hybridsearch.EUNAVAILABLE, err,
			fmt.Sprintf("store: qdrant %s: rate limited, retry after %d s", op, rate.RetryAfterS))
	}
	st, _ := status.FromError(err)
	kind, what := hybridsearch.EINTERNAL, "failed"
	switch st.Code() {
	case codes.Unavailable, codes.ResourceExhausted, codes.Aborted, codes.Canceled:
		kind, what = hybridsearch.EUNAVAILABLE, "qdrant is unavailable"
	case codes.DeadlineExceeded:
		kind, what = hybridsearch.EUNAVAILABLE, "qdrant timed out"
	case codes.InvalidArgument:
		kind, what = hybridsearch.EINVALID, st.Message()
	case codes.NotFound:
		kind, what = hybridsearch.ENOTFOUND, st.Message()
	case codes.Unauthenticated, codes.PermissionDenied:
		kind, what = hybridsearch.EUNAUTHORIZED, "qdrant refused the API key"
	case codes.AlreadyExists:
		kind, what = hybridsearch.ECONFLICT, st.Message()
	}
	return hybridsearch.WrapError(kind, err, fmt.Sprintf("store: qdrant %s: %s", op, what))
}
