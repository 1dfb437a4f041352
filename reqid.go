package hybridsearch

import "context"

type requestIDKey struct{}

// NewContextWithRequestID returns a copy of ctx carrying the id of the
// request being served (AppAPI's AA-REQUEST-ID, or one the app made up).
// Logs written with ctx carry it, and calls to Nextcloud send it on.
func NewContextWithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFromContext returns the request id in ctx, or "".
func RequestIDFromContext(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
