package hybridsearch

import "time"

// TokenScope is the one scope the app's bearer tokens carry: read-only
// search over the user's own files and notes.
const TokenScope = "search:read"

// Token is the record of one per-user bearer token for direct MCP access.
// It never holds the token itself, which is shown once when issued.
type Token struct {
	ID      string    `json:"id"` // the JWT's jti
	User    UserID    `json:"user"`
	Name    string    `json:"name"` // chosen by the user, e.g. "Claude Desktop"
	Scope   string    `json:"scope"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Revoked bool      `json:"revoked"`
	// RevokedAt is when the token was revoked; zero while it is not.
	RevokedAt time.Time `json:"revoked_at,omitzero"`
}

// Active reports whether t is neither revoked nor expired at now.
func (t Token) Active(now time.Time) bool {
	return !t.Revoked && now.Before(t.Expires)
}
