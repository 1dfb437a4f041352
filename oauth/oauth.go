package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Lifetimes and limits.
const (
	// RequestTTL is how long an authorization request waits for the user
	// to sign in and decide.
	RequestTTL = 10 * time.Minute
	// CodeTTL is how long an authorization code can be exchanged.
	CodeTTL = time.Minute
	// RefreshTTL is how long a refresh token stays usable; every use
	// replaces it with a new one (never past the grant's own end).
	RefreshTTL = 30 * 24 * time.Hour
	// ClientTTL is how long a dynamically registered client stays
	// usable after its last successful token exchange or refresh.
	ClientTTL = 90 * 24 * time.Hour
	// UnconfirmedClientTTL is how long a registration stays usable when
	// no token exchange has succeeded with it yet.
	UnconfirmedClientTTL = 24 * time.Hour
)

// Endpoint paths, relative to the issuer (the app's base URL).
const (
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token"
	RegisterPath  = "/oauth/register"
	RevokePath    = "/oauth/revoke"
	JWKSPath      = "/oauth/jwks"
)

// Error codes of RFC 6749 (4.1.2.1, 5.2), RFC 7591 (3.2.2), RFC 8707 (2)
// and RFC 7009 (2.2.1).
const (
	ErrInvalidRequest          = "invalid_request"
	ErrInvalidClient           = "invalid_client"
	ErrInvalidGrant            = "invalid_grant"
	ErrUnauthorizedClient      = "unauthorized_client"
	ErrUnsupportedGrantType    = "unsupported_grant_type"
	ErrUnsupportedResponseType = "unsupported_response_type"
	ErrInvalidScope            = "invalid_scope"
	ErrInvalidTarget           = "invalid_target"
	ErrAccessDenied            = "access_denied"
	ErrServerError             = "server_error"
	ErrTemporarilyUnavailable  = "temporarily_unavailable"
	ErrInvalidRedirectURI      = "invalid_redirect_uri"
	ErrInvalidClientMetadata   = "invalid_client_metadata"
	ErrUnsupportedTokenType    = "unsupported_token_type"
)

// Error is an OAuth error response: Code and Description go to the client
// (JSON, or the query of a redirect), Err is only logged.
type Error struct {
	Code        string
	Description string
	// Status is the HTTP status of a JSON error response: 400, or 401 for
	// invalid_client.
	Status int
	// Redirect, when set, is where an authorization request's error goes:
	// the client's redirect URI with error, error_description, state and
	// iss. Without it the user sees the error (the client or its redirect
	// URI did not check out, so nothing may be sent there).
	Redirect string
	Err      error
}

// Error returns the code, description and cause, for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Description + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Description
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// fail returns an *Error with status 400 (401 for invalid_client).
func fail(code, format string, args ...any) *Error {
	status := http.StatusBadRequest
	if code == ErrInvalidClient {
		status = http.StatusUnauthorized
	}
	return &Error{Code: code, Description: fmt.Sprintf(format, args...), Status: status}
}

// Records is one key-value bucket with revisions (*kv.Records). Get
// returns ENOTFOUND for a missing key; Create ECONFLICT for an existing
// one; Update ECONFLICT when the revision moved on.
type Records interface {
	Create(ctx context.Context, key string, value []byte) (uint64, error)
	Get(ctx context.Context, key string) ([]byte, uint64, error)
	Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error)
	Delete(ctx context.Context, key string) error
}

// Grants records grants and signs their tokens (*tokens.Service). Verify
// gives EUNAUTHORIZED for any token that is not good; Room gives EINVALID
// when the user has as many tokens as allowed.
type Grants interface {
	Room(ctx context.Context, user hs.UserID) error
	Grant(ctx context.Context, user hs.UserID, name, clientID, resource string) (hs.Token, error)
	AccessToken(rec hs.Token, ttl time.Duration) (string, time.Time, error)
	Get(ctx context.Context, user hs.UserID, id string) (hs.Token, error)
	Revoke(ctx context.Context, user hs.UserID, id string) error
	Verify(ctx context.Context, raw string) (hs.UserID, hs.Token, error)
}

// Options configure a Server.
type Options struct {
	// Issuer is the app's base URL through the Nextcloud proxy, no
	// trailing slash: the issuer identifier, and the base of every
	// endpoint. Required.
	Issuer string
	// Resource is the MCP URL (the canonical one, through the proxy): the
	// resource this server issues tokens for. Required.
	Resource string
	// Aliases are other URLs of the same MCP endpoint that clients may
	// name as resource (HaRP's /exapps/ URL); their tokens are for
	// Resource too.
	Aliases []string
	// Secret seals registrations into their client_id and pending
	// sign-ins into their handle (the app's secret). Required. Changing
	// it makes clients register again.
	Secret []byte
	Grants Grants // required
	// Clients, Requests, Codes and Refresh keep the clients that signed
	// someone in (and registrations of earlier versions), the sign-ins a
	// signed-in user opened, codes and refresh tokens; their buckets
	// should expire entries after ClientTTL, RequestTTL, a few CodeTTLs
	// and RefreshTTL. Nothing an anonymous caller sends is stored.
	// Required.
	Clients, Requests, Codes, Refresh Records
	// Fetcher fetches client ID metadata documents; nil turns them off.
	Fetcher *Fetcher
	Now     func() time.Time // nil means time.Now
	Logger  *slog.Logger     // nil means slog.Default()
}

// Server is the authorization server. It is safe for concurrent use.
type Server struct {
	o    Options
	now  func() time.Time
	log  *slog.Logger
	seal *sealer
}

// New returns a Server, or an error naming the first missing option.
func New(o Options) (*Server, error) {
	switch {
	case o.Issuer == "":
		return nil, errors.New("oauth: Issuer is required")
	case o.Resource == "":
		return nil, errors.New("oauth: Resource is required")
	case len(o.Secret) == 0:
		return nil, errors.New("oauth: Secret is required")
	case o.Grants == nil:
		return nil, errors.New("oauth: Grants is required")
	case o.Clients == nil || o.Requests == nil || o.Codes == nil || o.Refresh == nil:
		return nil, errors.New("oauth: Clients, Requests, Codes and Refresh are required")
	}
	seal, err := newSealer(o.Secret)
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, now: o.Now, log: o.Logger, seal: seal}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}

// Issuer returns the issuer identifier.
func (s *Server) Issuer() string { return s.o.Issuer }

// Resource returns the one resource tokens are issued for.
func (s *Server) Resource() string { return s.o.Resource }

// randomString returns n random bytes, base64url: ids, codes, secrets.
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("oauth: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashKey is the record key of a secret (code, refresh token): its
// SHA-256 in hex, so the bucket never holds the secret itself.
func hashKey(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// getJSON reads key into v; ENOTFOUND passes through.
func getJSON(ctx context.Context, r Records, key string, v any) (uint64, error) {
	data, rev, err := r.Get(ctx, key)
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return 0, hs.Errorf(hs.EINTERNAL, "oauth: record %s: %w", key, err)
	}
	return rev, nil
}

func createJSON(ctx context.Context, r Records, key string, v any) (uint64, error) {
	data, err := marshal(v)
	if err != nil {
		return 0, err
	}
	return r.Create(ctx, key, data)
}

func updateJSON(ctx context.Context, r Records, key string, v any, rev uint64) (uint64, error) {
	data, err := marshal(v)
	if err != nil {
		return 0, err
	}
	return r.Update(ctx, key, data, rev)
}

// clientTag names a client in logs: a metadata document's URL, or a
// fingerprint of a (long, sealed) registered client_id.
func clientTag(id string) string {
	if strings.HasPrefix(id, "https://") || len(id) <= 64 {
		return truncate(id, 200)
	}
	return "registered:" + hashKey(id)[:16]
}
