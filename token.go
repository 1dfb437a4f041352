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
	// Client is the OAuth client_id the grant was given to through the
	// app's authorization server; "" for tokens issued in the app. An OAuth
	// grant's access and refresh tokens all name this record, so revoking
	// it ends them all.
	Client string `json:"client_id,omitempty"`
	// Resource is the RFC 8707 resource an OAuth grant is bound to.
	Resource string `json:"resource,omitempty"`
}

// Active reports whether t is neither revoked nor expired at now.
func (t Token) Active(now time.Time) bool {
	return !t.Revoked && now.Before(t.Expires)
}
