package hybridsearch

import "context"

// UserID is a Nextcloud user id. The empty UserID means "no user": the
// calls AppAPI makes for the app itself (init, enable, webhooks).
type UserID string

type userKey struct{}

// NewContextWithUser returns a copy of ctx carrying the acting user, as
// verified by the AppAPI middleware. Search and file calls still take the
// user as an explicit argument; this is only how handlers find it.
func NewContextWithUser(ctx context.Context, u UserID) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFromContext returns the acting user set by NewContextWithUser and
// whether one was set (it may be set and empty).
func UserFromContext(ctx context.Context) (UserID, bool) {
	u, ok := ctx.Value(userKey{}).(UserID)
	return u, ok
}
