package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// TokenRequest is a token request (POST /oauth/token).
type TokenRequest struct {
	GrantType    string
	ClientID     string
	Code         string
	RedirectURI  string
	CodeVerifier string
	RefreshToken string
	Scope        string
	Resources    []string
}

// TokenResponse is a successful token response (RFC 6749 5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// codeRecord is an authorization code's record, under the code's hash.
// The client and redirect URI it was issued for are kept as hashes: the
// exchange only compares them.
type codeRecord struct {
	ClientHash   string    `json:"client"`
	ClientName   string    `json:"client_name"`
	RedirectHash string    `json:"redirect"`
	Challenge    string    `json:"code_challenge"`
	Scope        string    `json:"scope"`
	Resource     string    `json:"resource"`
	User         hs.UserID `json:"user"`
	Created      time.Time `json:"created"`
	// Used is set by the first exchange attempt: a code is spent even
	// when that attempt fails.
	Used bool `json:"used,omitempty"`
	// Grant is the record issued for the code, revoked if the code is
	// presented again (RFC 6749 4.1.2).
	Grant string `json:"grant,omitempty"`
}

// refreshRecord is a refresh token's record, under the token's hash.
type refreshRecord struct {
	ClientID string    `json:"client_id"`
	User     hs.UserID `json:"user"`
	Grant    string    `json:"grant"`
	Expires  time.Time `json:"expires"`
	// Used is set when the token is exchanged for the next one; a used
	// token presented again is a replay and revokes the grant.
	Used bool `json:"used,omitempty"`
}

// Token answers a token request: authorization_code (with PKCE) or
// refresh_token (rotating). Refusals are *Errors with the RFC 6749 5.2
// code (and invalid_target, RFC 8707); nothing is issued then.
func (s *Server) Token(ctx context.Context, r TokenRequest) (TokenResponse, error) {
	if r.ClientID == "" {
		return TokenResponse{}, fail(ErrInvalidRequest, "client_id is missing (clients are public: send it in the body)")
	}
	switch r.GrantType {
	case "authorization_code":
		return s.exchange(ctx, r)
	case "refresh_token":
		return s.refresh(ctx, r)
	case "":
		return TokenResponse{}, fail(ErrInvalidRequest, "grant_type is missing")
	}
	return TokenResponse{}, fail(ErrUnsupportedGrantType, "grant_type must be authorization_code or refresh_token")
}

// exchange spends an authorization code.
func (s *Server) exchange(ctx context.Context, r TokenRequest) (TokenResponse, error) {
	switch {
	case r.Code == "":
		return TokenResponse{}, fail(ErrInvalidRequest, "code is missing")
	case r.RedirectURI == "":
		return TokenResponse{}, fail(ErrInvalidRequest, "redirect_uri is missing")
	case r.CodeVerifier == "":
		return TokenResponse{}, fail(ErrInvalidRequest, "code_verifier is missing (PKCE)")
	}
	// A registered client must still exist; a metadata document client
	// is not fetched again (the code records who it was issued to).
	if !strings.HasPrefix(r.ClientID, "https://") {
		if _, err := s.client(ctx, r.ClientID); err != nil {
			return TokenResponse{}, err
		}
	}
	key := hashKey(r.Code)
	var c codeRecord
	rev, err := getJSON(ctx, s.o.Codes, key, &c)
	if hs.ErrorKind(err) == hs.ENOTFOUND {
		return TokenResponse{}, fail(ErrInvalidGrant, "unknown or expired code")
	}
	if err != nil {
		return TokenResponse{}, err
	}
	if c.Used {
		s.revokeReplayed(ctx, c.User, c.Grant, "authorization code used twice")
		return TokenResponse{}, fail(ErrInvalidGrant, "the code was already used")
	}
	c.Used = true
	rev, err = updateJSON(ctx, s.o.Codes, key, c, rev)
	if hs.ErrorKind(err) == hs.ECONFLICT {
		return TokenResponse{}, fail(ErrInvalidGrant, "the code was already used")
	}
	if err != nil {
		return TokenResponse{}, err
	}
	switch {
	case s.now().Sub(c.Created) > CodeTTL:
		return TokenResponse{}, fail(ErrInvalidGrant, "the code has expired")
	case subtle.ConstantTimeCompare([]byte(c.ClientHash), []byte(hashKey(r.ClientID))) != 1:
		return TokenResponse{}, fail(ErrInvalidGrant, "the code was issued to another client")
	case c.RedirectHash != hashKey(r.RedirectURI):
		return TokenResponse{}, fail(ErrInvalidGrant, "redirect_uri differs from the authorization request's")
	case !verifyPKCE(c.Challenge, r.CodeVerifier):
		return TokenResponse{}, fail(ErrInvalidGrant, "code_verifier does not match the code_challenge")
	}
	if len(r.Resources) > 0 && (len(r.Resources) > 1 || r.Resources[0] != c.Resource) {
		return TokenResponse{}, fail(ErrInvalidTarget, "resource must be the one authorized: %s", c.Resource)
	}
	rec, err := s.o.Grants.Grant(ctx, c.User, c.ClientName, r.ClientID, c.Resource)
	if hs.ErrorKind(err) == hs.EINVALID {
		return TokenResponse{}, &Error{Code: ErrInvalidGrant, Description: hs.ErrorMessage(err), Status: 400, Err: err}
	}
	if err != nil {
		return TokenResponse{}, err
	}
	c.Grant = rec.ID
	if _, err := updateJSON(ctx, s.o.Codes, key, c, rev); err != nil {
		s.log.Warn("oauth code record not linked to its grant", "client_id", clientTag(r.ClientID), "error", err)
	}
	s.touch(ctx, r.ClientID)
	return s.issue(ctx, rec, c.Scope)
}

// refresh spends a refresh token for a new pair.
func (s *Server) refresh(ctx context.Context, r TokenRequest) (TokenResponse, error) {
	if r.RefreshToken == "" {
		return TokenResponse{}, fail(ErrInvalidRequest, "refresh_token is missing")
	}
	key := hashKey(r.RefreshToken)
	var rt refreshRecord
	rev, err := getJSON(ctx, s.o.Refresh, key, &rt)
	if hs.ErrorKind(err) == hs.ENOTFOUND {
		return TokenResponse{}, fail(ErrInvalidGrant, "unknown or expired refresh token")
	}
	if err != nil {
		return TokenResponse{}, err
	}
	if rt.ClientID != r.ClientID {
		return TokenResponse{}, fail(ErrInvalidGrant, "the refresh token was issued to another client")
	}
	if rt.Used {
		s.revokeReplayed(ctx, rt.User, rt.Grant, "refresh token used after rotation")
		return TokenResponse{}, fail(ErrInvalidGrant, "the refresh token was already used; the grant is revoked, sign in again")
	}
	if !s.now().Before(rt.Expires) {
		return TokenResponse{}, fail(ErrInvalidGrant, "the refresh token has expired")
	}
	rec, err := s.o.Grants.Get(ctx, rt.User, rt.Grant)
	if hs.ErrorKind(err) == hs.ENOTFOUND {
		return TokenResponse{}, fail(ErrInvalidGrant, "the grant is gone; sign in again")
	}
	if err != nil {
		return TokenResponse{}, err
	}
	if !rec.Active(s.now()) {
		return TokenResponse{}, fail(ErrInvalidGrant, "the grant was revoked or has expired; sign in again")
	}
	if len(r.Resources) > 0 && (len(r.Resources) > 1 || r.Resources[0] != rec.Resource) {
		return TokenResponse{}, fail(ErrInvalidTarget, "resource must be the one authorized: %s", rec.Resource)
	}
	scope := rec.Scope
	if r.Scope != "" {
		if scope, err = grantScope(r.Scope); err != nil {
			return TokenResponse{}, err
		}
	}
	rt.Used = true
	if _, err := updateJSON(ctx, s.o.Refresh, key, rt, rev); err != nil {
		if hs.ErrorKind(err) == hs.ECONFLICT {
			// Another request spent it at the same moment: a replay too.
			s.revokeReplayed(ctx, rt.User, rt.Grant, "refresh token used twice at once")
			return TokenResponse{}, fail(ErrInvalidGrant, "the refresh token was already used; the grant is revoked, sign in again")
		}
		return TokenResponse{}, err
	}
	s.touch(ctx, rt.ClientID)
	return s.issue(ctx, rec, scope)
}

// issue signs an access token of rec and creates its next refresh token.
func (s *Server) issue(ctx context.Context, rec hs.Token, scope string) (TokenResponse, error) {
	access, exp, err := s.o.Grants.AccessToken(rec, 0)
	if err != nil {
		return TokenResponse{}, err
	}
	refresh, err := randomString(32)
	if err != nil {
		return TokenResponse{}, err
	}
	rtExp := s.now().UTC().Add(RefreshTTL)
	if rec.Expires.Before(rtExp) {
		rtExp = rec.Expires
	}
	rt := refreshRecord{ClientID: rec.Client, User: rec.User, Grant: rec.ID, Expires: rtExp}
	if _, err := createJSON(ctx, s.o.Refresh, hashKey(refresh), rt); err != nil {
		return TokenResponse{}, err
	}
	return TokenResponse{
		AccessToken: access, TokenType: "Bearer", ExpiresIn: int(exp.Sub(s.now()).Round(time.Second).Seconds()),
		RefreshToken: refresh, Scope: scope,
	}, nil
}

// revokeReplayed revokes grant id of user after a replay. Failures only
// log: the request is refused either way.
func (s *Server) revokeReplayed(ctx context.Context, user hs.UserID, id, why string) {
	if user == "" || id == "" {
		return
	}
	s.log.Warn("oauth grant revoked: "+why, "user_id", user, "token_id", id)
	if err := s.o.Grants.Revoke(ctx, user, id); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
		s.log.Error("oauth grant not revoked after a replay", "user_id", user, "token_id", id, "error", err)
	}
}

// verifyPKCE checks BASE64URL(SHA256(verifier)) == challenge (RFC 7636
// 4.6), after checking the verifier's form (43 to 128 unreserved chars).
func verifyPKCE(challenge, verifier string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	for _, r := range verifier {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' || r == '~') {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// Revoke handles an RFC 7009 revocation request from client clientID:
// an access or refresh token of that client's grant revokes the whole
// grant. An unknown or invalid token is not an error (RFC 7009 2.2); a
// token of another client or of no client is refused.
func (s *Server) Revoke(ctx context.Context, token, hint, clientID string) error {
	switch {
	case clientID == "":
		return fail(ErrInvalidRequest, "client_id is missing (clients are public: send it in the body)")
	case token == "":
		return fail(ErrInvalidRequest, "token is missing")
	case hint != "" && hint != "access_token" && hint != "refresh_token":
		return fail(ErrUnsupportedTokenType, "token_type_hint must be access_token or refresh_token")
	}
	user, grant, owner, err := s.tokenGrant(ctx, token)
	if err != nil || grant == "" {
		return err
	}
	if owner != clientID {
		return fail(ErrUnauthorizedClient, "the token was not issued to this client")
	}
	if err := s.o.Grants.Revoke(ctx, user, grant); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
		return err
	}
	s.log.Info("oauth grant revoked by its client", "user_id", user, "token_id", grant, "client_id", clientTag(clientID))
	return nil
}

// tokenGrant finds the grant of a refresh or access token, and the client
// it belongs to; grant is "" for a token that is not known.
func (s *Server) tokenGrant(ctx context.Context, token string) (user hs.UserID, grant, client string, err error) {
	var rt refreshRecord
	_, err = getJSON(ctx, s.o.Refresh, hashKey(token), &rt)
	switch hs.ErrorKind(err) {
	case "":
		return rt.User, rt.Grant, rt.ClientID, nil
	case hs.ENOTFOUND:
	default:
		return "", "", "", err
	}
	u, rec, err := s.o.Grants.Verify(ctx, token)
	switch hs.ErrorKind(err) {
	case "":
		return u, rec.ID, rec.Client, nil
	case hs.EUNAUTHORIZED:
		return "", "", "", nil
	}
	return "", "", "", err
}
