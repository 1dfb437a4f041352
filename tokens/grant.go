package tokens

import (
	"context"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	hs "github.com/hybrid-search/hybridsearch"
)

// Lifetimes of OAuth grants and their access tokens.
const (
	// GrantTTL is how long an OAuth grant (and every refresh token of it)
	// lasts; then the user signs in again.
	GrantTTL = 90 * 24 * time.Hour
	// AccessTTL is the lifetime of one OAuth access token; clients refresh.
	AccessTTL = time.Hour
)

// Grant records an OAuth grant: user let the client clientID, named name,
// search as them, for the resource (the MCP URL the client asked for,
// RFC 8707). The record is listed and revoked like any token, and counts
// towards MaxActive. EUNAUTHORIZED for the empty user, EINVALID for a bad
// name, an empty client or resource, or too many active tokens.
func (s *Service) Grant(ctx context.Context, user hs.UserID, name, clientID, resource string) (hs.Token, error) {
	if user == "" {
		return hs.Token{}, hs.Errorf(hs.EUNAUTHORIZED, "tokens need a signed-in user")
	}
	if clientID == "" || resource == "" {
		return hs.Token{}, hs.Errorf(hs.EINVALID, "a grant needs a client and a resource")
	}
	name, err := cleanName(name)
	if err != nil {
		return hs.Token{}, err
	}
	id, err := newID()
	if err != nil {
		return hs.Token{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	rec := hs.Token{ID: id, User: user, Name: name, Scope: hs.TokenScope, Created: now, Expires: now.Add(GrantTTL),
		Client: clientID, Resource: resource}
	if err := s.create(ctx, rec); err != nil {
		return hs.Token{}, err
	}
	s.log.Info("oauth grant recorded", "user_id", user, "token_id", id, "client_id", clientID)
	return rec, nil
}

// AccessToken signs a new access token of the grant rec, valid for ttl
// (0 means AccessTTL) but never past the grant. Its audience is the
// grant's resource and, when that differs, the service's own audience, so
// Verify accepts it.
func (s *Service) AccessToken(rec hs.Token, ttl time.Duration) (string, time.Time, error) {
	if rec.Client == "" || rec.User == "" || rec.ID == "" {
		return "", time.Time{}, hs.Errorf(hs.EINVALID, "tokens: access token for a record that is no grant")
	}
	if ttl <= 0 {
		ttl = AccessTTL
	}
	now := s.now().UTC().Truncate(time.Second)
	exp := now.Add(ttl)
	if rec.Expires.Before(exp) {
		exp = rec.Expires
	}
	if !now.Before(exp) {
		return "", time.Time{}, hs.Errorf(hs.EUNAUTHORIZED, "the grant has expired")
	}
	aud := jwt.ClaimStrings{rec.Resource}
	if rec.Resource != s.audience {
		aud = append(aud, s.audience)
	}
	jti, err := newID()
	if err != nil {
		return "", time.Time{}, err
	}
	raw, err := s.sign(claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: s.issuer, Subject: string(rec.User), Audience: aud,
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp), ID: jti,
		},
		Scope: rec.Scope,
		Grant: rec.ID,
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return raw, exp, nil
}

// Get returns user's record id (an OAuth client refreshing its grant);
// ENOTFOUND if there is none or user no longer exists in Nextcloud (see
// Options.Users).
func (s *Service) Get(ctx context.Context, user hs.UserID, id string) (hs.Token, error) {
	if user == "" {
		return hs.Token{}, hs.Errorf(hs.EUNAUTHORIZED, "tokens need a signed-in user")
	}
	t, err := s.store.Get(ctx, user, id)
	if hs.ErrorKind(err) == hs.ENOTFOUND || hs.ErrorKind(err) == hs.EINVALID {
		return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "no token %q", id)
	}
	if err != nil {
		return hs.Token{}, fmt.Errorf("tokens: get: %w", err)
	}
	if err := s.checkUser(ctx, user); hs.ErrorKind(err) == hs.EUNAUTHORIZED {
		return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "no token %q: its user no longer exists", id)
	} else if err != nil {
		return hs.Token{}, err
	}
	return t, nil
}
