package tokens

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	hs "github.com/hybrid-search/hybridsearch"
)

// Limits on issued tokens.
const (
	DefaultTTL    = 90 * 24 * time.Hour  // when Issue is given 0
	MaxTTL        = 365 * 24 * time.Hour // one year
	MinTTL        = time.Minute
	MaxActive     = 50  // unexpired, unrevoked tokens per user
	MaxNameLength = 100 // runes
	DefaultName   = "MCP token"
	// MaxTokenBytes bounds what Verify parses.
	MaxTokenBytes = 4096
	// purgeAfter is how long an expired or revoked record stays listed.
	purgeAfter = 30 * 24 * time.Hour
	// keyInfo is the HKDF info string of the signing key. Changing it
	// invalidates every token.
	keyInfo = "hybrid_search/mcp-bearer-token/hs256/v1"
	// DefaultUserGrace is how long a user Nextcloud confirmed keeps
	// access while Nextcloud cannot be asked (Options.UserGrace).
	DefaultUserGrace = 5 * time.Minute
)

// UserChecker tells whether a user exists in Nextcloud
// (*nextcloud.UserDirectory, which answers from a list it keeps for a
// bounded time).
type UserChecker interface {
	UserExists(ctx context.Context, user hs.UserID) (bool, error)
}

// Store keeps token records; kv.TokenStore is the production one.
// Get returns ENOTFOUND for a missing record, Create ECONFLICT for an
// existing one; unavailability is EUNAVAILABLE.
type Store interface {
	Create(ctx context.Context, t hs.Token) error
	Put(ctx context.Context, t hs.Token) error
	Get(ctx context.Context, user hs.UserID, id string) (hs.Token, error)
	List(ctx context.Context, user hs.UserID) ([]hs.Token, error)
	Delete(ctx context.Context, user hs.UserID, id string) error
}

// Options configure a Service.
type Options struct {
	Secret   string // required: APP_SECRET, from which the signing key is derived
	Audience string // required: the MCP URL tokens are for (the aud claim)
	Issuer   string // required: the iss claim, e.g. the app's base URL
	Store    Store  // required
	// Users, if set, is asked on every Verify and Get whether the token's
	// user still exists in Nextcloud: a user deleted there loses access as
	// soon as Users says so. When Nextcloud cannot be asked, a user it
	// confirmed within UserGrace keeps access; anyone else gets
	// EUNAVAILABLE (access is never granted on a guess).
	Users UserChecker
	// UserGrace: 0 means DefaultUserGrace.
	UserGrace time.Duration
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger // nil means slog.Default()
}

// Service issues and checks tokens. It is safe for concurrent use.
type Service struct {
	key      []byte
	audience string
	issuer   string
	store    Store
	users    UserChecker
	grace    time.Duration
	now      func() time.Time
	log      *slog.Logger

	mu        sync.Mutex
	confirmed map[hs.UserID]time.Time // when Users last said the user exists
}

// claims are a token's JWT claims.
type claims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope"`
	// Grant names the record of an OAuth grant, which many access tokens
	// (each with its own jti) share; empty for tokens issued in the app,
	// whose record is their jti.
	Grant string `json:"grant,omitempty"`
}

// New returns a Service, or an error naming the first missing option.
func New(o Options) (*Service, error) {
	switch {
	case o.Secret == "":
		return nil, errors.New("tokens: Secret is required")
	case o.Audience == "":
		return nil, errors.New("tokens: Audience is required")
	case o.Issuer == "":
		return nil, errors.New("tokens: Issuer is required")
	case o.Store == nil:
		return nil, errors.New("tokens: Store is required")
	}
	key, err := DeriveKey(o.Secret)
	if err != nil {
		return nil, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.UserGrace <= 0 {
		o.UserGrace = DefaultUserGrace
	}
	return &Service{key: key, audience: o.Audience, issuer: o.Issuer, store: o.Store, users: o.Users, grace: o.UserGrace,
		now: o.Now, log: o.Logger, confirmed: map[hs.UserID]time.Time{}}, nil
}

// DeriveKey returns the 32-byte HS256 signing key for secret:
// HKDF-SHA256 with no salt and a fixed info string.
func DeriveKey(secret string) ([]byte, error) {
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, keyInfo, 32)
	if err != nil {
		return nil, fmt.Errorf("tokens: derive key: %w", err)
	}
	return key, nil
}

// Audience returns the aud claim of issued tokens (the MCP URL).
func (s *Service) Audience() string { return s.audience }

// Issue creates a token for user named name, valid for ttl (0 means
// DefaultTTL; at most MaxTTL). It returns the raw token, to be shown once,
// and its record. EUNAUTHORIZED for the empty user, EINVALID for a bad
// name or ttl or when the user has MaxActive tokens already.
func (s *Service) Issue(ctx context.Context, user hs.UserID, name string, ttl time.Duration) (string, hs.Token, error) {
	if user == "" {
		return "", hs.Token{}, hs.Errorf(hs.EUNAUTHORIZED, "tokens need a signed-in user")
	}
	name, err := cleanName(name)
	if err != nil {
		return "", hs.Token{}, err
	}
	switch {
	case ttl == 0:
		ttl = DefaultTTL
	case ttl < MinTTL:
		return "", hs.Token{}, hs.Errorf(hs.EINVALID, "a token must be valid for at least %s", MinTTL)
	case ttl > MaxTTL:
		return "", hs.Token{}, hs.Errorf(hs.EINVALID, "a token can be valid for at most %d days", int(MaxTTL.Hours()/24))
	}
	now := s.now().UTC().Truncate(time.Second)
	id, err := newID()
	if err != nil {
		return "", hs.Token{}, err
	}
	rec := hs.Token{ID: id, User: user, Name: name, Scope: hs.TokenScope, Created: now, Expires: now.Add(ttl)}
	raw, err := s.sign(claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: s.issuer, Subject: string(user), Audience: jwt.ClaimStrings{s.audience},
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(rec.Expires), ID: id,
		},
		Scope: hs.TokenScope,
	})
	if err != nil {
		return "", hs.Token{}, err
	}
	if err := s.create(ctx, rec); err != nil {
		return "", hs.Token{}, err
	}
	s.log.Info("bearer token issued", "user_id", user, "token_id", id, "expires", rec.Expires)
	return raw, rec, nil
}

// create stores a new record for rec.User unless the user has MaxActive
// active records already (EINVALID).
func (s *Service) create(ctx context.Context, rec hs.Token) error {
	if err := s.Room(ctx, rec.User); err != nil {
		return err
	}
	if err := s.store.Create(ctx, rec); err != nil {
		return fmt.Errorf("tokens: issue: %w", err)
	}
	return nil
}

// Room reports whether user may have one more token: EINVALID, saying
// so, when MaxActive are active already.
func (s *Service) Room(ctx context.Context, user hs.UserID) error {
	existing, err := s.List(ctx, user)
	if err != nil {
		return err
	}
	now, active := s.now(), 0
	for _, t := range existing {
		if t.Active(now) {
			active++
		}
	}
	if active >= MaxActive {
		return hs.Errorf(hs.EINVALID, "you have %d active tokens, the most allowed; revoke one first", active)
	}
	return nil
}

// sign returns the signed JWT of c.
func (s *Service) sign(c claims) (string, error) {
	raw, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("tokens: sign: %w", err)
	}
	return raw, nil
}

// List returns user's tokens, oldest first, including revoked and expired
// ones for purgeAfter; older records are deleted on the way.
func (s *Service) List(ctx context.Context, user hs.UserID) ([]hs.Token, error) {
	if user == "" {
		return nil, hs.Errorf(hs.EUNAUTHORIZED, "tokens need a signed-in user")
	}
	all, err := s.store.List(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("tokens: list: %w", err)
	}
	cutoff := s.now().Add(-purgeAfter)
	out := all[:0:0]
	for _, t := range all {
		end := t.Expires
		if t.Revoked && t.RevokedAt.Before(end) {
			end = t.RevokedAt
		}
		if end.Before(cutoff) {
			if err := s.store.Delete(ctx, user, t.ID); err != nil {
				s.log.Warn("old token record not purged", "token_id", t.ID, slog.Any("error", err))
			}
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// Revoke revokes user's token id at once; revoking a revoked token is not
// an error. ENOTFOUND if user has no such token.
func (s *Service) Revoke(ctx context.Context, user hs.UserID, id string) error {
	if user == "" {
		return hs.Errorf(hs.EUNAUTHORIZED, "tokens need a signed-in user")
	}
	t, err := s.store.Get(ctx, user, id)
	if hs.ErrorKind(err) == hs.ENOTFOUND {
		return hs.Errorf(hs.ENOTFOUND, "no token %q", id)
	}
	if err != nil {
		return fmt.Errorf("tokens: revoke: %w", err)
	}
	if t.Revoked {
		return nil
	}
	t.Revoked, t.RevokedAt = true, s.now().UTC().Truncate(time.Second)
	if err := s.store.Put(ctx, t); err != nil {
		return fmt.Errorf("tokens: revoke: %w", err)
	}
	s.log.Info("bearer token revoked", "user_id", user, "token_id", id)
	return nil
}

// Verify checks raw and returns its user and record. Any bad token
// (malformed, tampered, another algorithm, expired, for another audience
// or issuer, without the scope, unknown or revoked, or of a user deleted
// in Nextcloud) gives EUNAUTHORIZED with a short reason; a Store or a
// Nextcloud that does not answer gives EUNAVAILABLE, since the token may
// well be good.
func (s *Service) Verify(ctx context.Context, raw string) (hs.UserID, hs.Token, error) {
	deny := func(format string, args ...any) (hs.UserID, hs.Token, error) {
		return "", hs.Token{}, hs.Errorf(hs.EUNAUTHORIZED, "invalid token: "+format, args...)
	}
	if raw == "" {
		return deny("missing")
	}
	if len(raw) > MaxTokenBytes {
		return deny("too long")
	}
	var c claims
	_, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithAudience(s.audience), jwt.WithIssuer(s.issuer),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now))
	if err != nil {
		return deny("%s", reason(err))
	}
	if c.Subject == "" || c.ID == "" {
		return deny("no subject or id")
	}
	recID := c.ID
	if c.Grant != "" {
		recID = c.Grant
	}
	if !slices.Contains(strings.Fields(c.Scope), hs.TokenScope) {
		return deny("scope %s missing", hs.TokenScope)
	}
	user := hs.UserID(c.Subject)
	rec, err := s.store.Get(ctx, user, recID)
	switch hs.ErrorKind(err) {
	case "":
	case hs.ENOTFOUND, hs.EINVALID:
		return deny("unknown token")
	default:
		return "", hs.Token{}, fmt.Errorf("tokens: verify: %w", err)
	}
	switch now := s.now(); {
	case rec.User != user || (c.Grant != "") != (rec.Client != ""):
		return deny("unknown token")
	case rec.Revoked:
		return deny("revoked")
	case !now.Before(rec.Expires):
		return deny("expired")
	}
	if err := s.checkUser(ctx, user); err != nil {
		return "", hs.Token{}, err
	}
	return user, rec, nil
}

// checkUser asks Users whether user still exists: EUNAUTHORIZED when
// Nextcloud says no; when it cannot be asked, nil for a user it confirmed
// within the grace and EUNAVAILABLE for anyone else.
func (s *Service) checkUser(ctx context.Context, user hs.UserID) error {
	if s.users == nil {
		return nil
	}
	ok, err := s.users.UserExists(ctx, user)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil && ok:
		s.confirmed[user] = now
		return nil
	case err == nil:
		delete(s.confirmed, user)
		return hs.Errorf(hs.EUNAUTHORIZED, "invalid token: the user no longer exists in Nextcloud")
	}
	if at, ok := s.confirmed[user]; ok && now.Sub(at) < s.grace {
		s.log.Warn("Nextcloud did not confirm a token's user; access kept within the grace", "user_id", user,
			"confirmed_ago", now.Sub(at).Round(time.Second), slog.Any("error", err))
		return nil
	}
	return hs.WrapError(hs.EUNAVAILABLE, err, "Nextcloud did not confirm that the token's user exists; try again shortly")
}

// reason turns a parse error into a short, safe phrase.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "issued for another server"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "issued by another server"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "bad signature"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "algorithm not allowed"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "required claim missing"
	}
	return "not accepted"
}

// cleanName trims name and checks it: at most MaxNameLength runes, no
// control characters; empty becomes DefaultName.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return DefaultName, nil
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return "", hs.Errorf(hs.EINVALID, "a token name must be printable text")
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "", hs.Errorf(hs.EINVALID, "a token name can be at most %d characters", MaxNameLength)
	}
	return name, nil
}

// newID returns a random token id: 128 bits, base64url.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("tokens: random id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
