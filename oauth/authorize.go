package oauth

import (
	"context"
	"crypto/subtle"
	"net/url"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// AuthRequest is an authorization request (GET /oauth/authorize).
type AuthRequest struct {
	ResponseType        string
	ClientID            string
	RedirectURI         string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
	Scope               string
	// Resources are the resource parameters (RFC 8707), usually one.
	Resources []string
}

// Pending is an authorization request that passed the checks and waits
// for the user to sign in and decide. Its ID is the handle the login
// redirect carries back: the request itself, sealed, so that nothing is
// stored for it until a signed-in user opens it. It is bound to the first
// signed-in user who does (a small record under the handle's hash), and
// only that user, with CSRF, can decide.
type Pending struct {
	ID string
	// ClientID is the client's metadata document URL; "" for a
	// registered client (whose long client_id the handle carries only as
	// a hash).
	ClientID    string
	ClientName  string
	RedirectURI string
	State       string
	Challenge   string
	Scope       string
	Resource    string
	Created     time.Time
	User        hs.UserID
	// CSRF is the consent form's token, set when the request is bound.
	CSRF    string
	Decided bool

	clientHash string // hashKey of the client_id
}

// sealedRequest is what a pending request's handle carries.
type sealedRequest struct {
	ClientHash  string `json:"h"`
	ClientID    string `json:"c,omitempty"` // metadata document clients only
	ClientName  string `json:"n"`
	RedirectURI string `json:"r"`
	State       string `json:"s,omitempty"`
	Challenge   string `json:"p"`
	Resource    string `json:"x"`
	Created     int64  `json:"t"`
}

// boundRequest is the record of a pending request a signed-in user
// opened, under the hash of its handle.
type boundRequest struct {
	User    hs.UserID `json:"user"`
	CSRF    string    `json:"csrf"`
	Decided bool      `json:"decided,omitempty"`
}

// MetadataDocument reports whether the client is identified by a client ID
// metadata document (ClientID is the document's URL).
func (p Pending) MetadataDocument() bool { return p.ClientID != "" }

// RedirectHost is the host the browser goes back to: what the consent
// page shows.
func (p Pending) RedirectHost() string {
	u, err := url.Parse(p.RedirectURI)
	if err != nil {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Host
}

// Limits of authorization request parameters.
const (
	maxStateLength = 1024
	challengeLen   = 43 // base64url of a SHA-256
	// maxHandleLength bounds a pending request's handle: its longest
	// client document URL, name, redirect URI and state, sealed.
	maxHandleLength = 12 << 10
)

// Start checks an authorization request and returns it as Pending, stored
// nowhere (its ID carries it). An unknown client or a redirect URI it did
// not register gives an *Error without Redirect: the user must see it,
// nothing may go to that URI. Every other problem gives an *Error with
// Redirect set. state is optional: PKCE, which is required, protects the
// code (OAuth 2.1).
func (s *Server) Start(ctx context.Context, r AuthRequest) (Pending, error) {
	c, err := s.client(ctx, r.ClientID)
	if err != nil {
		return Pending{}, err
	}
	if r.RedirectURI == "" {
		return Pending{}, fail(ErrInvalidRequest, "redirect_uri is missing")
	}
	if !matchRedirectURI(c.RedirectURIs, r.RedirectURI) {
		return Pending{}, fail(ErrInvalidRequest, "redirect_uri %q is not registered for this client", truncate(r.RedirectURI, 200))
	}
	redirect := func(code, format string, args ...any) (Pending, error) {
		e := fail(code, format, args...)
		e.Redirect = s.redirectWith(r.RedirectURI, url.Values{"error": {code}, "error_description": {e.Description}}, r.State)
		return Pending{}, e
	}
	switch {
	case r.ResponseType != "code":
		return redirect(ErrUnsupportedResponseType, "response_type must be code")
	case len(r.State) > maxStateLength:
		return redirect(ErrInvalidRequest, "state is longer than %d bytes", maxStateLength)
	case r.CodeChallenge == "":
		return redirect(ErrInvalidRequest, "code_challenge is required (PKCE)")
	case r.CodeChallengeMethod != "S256":
		return redirect(ErrInvalidRequest, "code_challenge_method must be S256")
	case len(r.CodeChallenge) != challengeLen || !isBase64URL(r.CodeChallenge):
		return redirect(ErrInvalidRequest, "code_challenge is not a base64url SHA-256")
	}
	scope, err := grantScope(r.Scope)
	if err != nil {
		return redirect(ErrInvalidScope, "%s", err.(*Error).Description)
	}
	resource, err := s.checkResource(r.Resources)
	if err != nil {
		return redirect(ErrInvalidTarget, "%s", err.(*Error).Description)
	}
	sr := sealedRequest{ClientHash: hashKey(c.ID), ClientName: c.displayName(), RedirectURI: r.RedirectURI, State: r.State,
		Challenge: r.CodeChallenge, Resource: resource, Created: s.now().Unix()}
	if strings.HasPrefix(c.ID, "https://") {
		sr.ClientID = c.ID
	}
	if resource == s.o.Resource {
		sr.Resource = ""
	}
	id, err := s.seal.seal(purposeRequest, sr)
	if err != nil {
		return Pending{}, err
	}
	p := s.unsealed(id, sr)
	p.Scope = scope
	return p, nil
}

// unsealed is the Pending a handle describes, before anyone opened it.
func (s *Server) unsealed(id string, sr sealedRequest) Pending {
	resource := sr.Resource
	if resource == "" {
		resource = s.o.Resource
	}
	return Pending{
		ID: id, ClientID: sr.ClientID, ClientName: sr.ClientName, RedirectURI: sr.RedirectURI, State: sr.State,
		Challenge: sr.Challenge, Scope: hs.TokenScope, Resource: resource, Created: time.Unix(sr.Created, 0).UTC(), clientHash: sr.ClientHash,
	}
}

// checkResource returns the resource to bind: the one given, which must
// be this server's MCP URL, or that URL when none is given.
func (s *Server) checkResource(resources []string) (string, error) {
	switch {
	case len(resources) == 0:
		return s.o.Resource, nil
	case len(resources) > 1:
		return "", fail(ErrInvalidTarget, "one resource only: %s", s.o.Resource)
	case resources[0] != s.o.Resource && !slices.Contains(s.o.Aliases, resources[0]):
		return "", fail(ErrInvalidTarget, "resource %q is not served here; the resource is %s", truncate(resources[0], 200), s.o.Resource)
	}
	return resources[0], nil
}

// Resume returns the pending request id. A signed-in user (non-empty)
// binds an unbound request to themselves and gets its CSRF token; a
// request bound to someone else is refused. An unknown, expired or
// decided request gives invalid_request (shown to the user).
func (s *Server) Resume(ctx context.Context, id string, user hs.UserID) (Pending, error) {
	p, rev, err := s.pending(ctx, id)
	if err != nil {
		return Pending{}, err
	}
	switch {
	case user == "":
		return p, nil
	case p.User != "" && p.User != user:
		return Pending{}, fail(ErrAccessDenied, "this sign-in request was opened by another account; start again from your app")
	case p.User == user:
		return p, nil
	case rev != 0:
		return Pending{}, fail(ErrInvalidRequest, "this sign-in request is unknown or has expired; start again from your app")
	}
	csrf, err := randomString(32)
	if err != nil {
		return Pending{}, err
	}
	if _, err := createJSON(ctx, s.o.Requests, hashKey(id), boundRequest{User: user, CSRF: csrf}); err != nil {
		if hs.ErrorKind(err) == hs.ECONFLICT {
			return s.Resume(ctx, id, user) // bound meanwhile: check by whom
		}
		return Pending{}, err
	}
	p.User, p.CSRF = user, csrf
	return p, nil
}

// pending opens a handle and loads its record, if a user opened it: an
// undecided, unexpired request; rev is 0 when nobody opened it yet.
func (s *Server) pending(ctx context.Context, id string) (Pending, uint64, error) {
	gone := fail(ErrInvalidRequest, "this sign-in request is unknown or has expired; start again from your app")
	var sr sealedRequest
	if id == "" || len(id) > maxHandleLength || !s.seal.open(purposeRequest, id, &sr) {
		return Pending{}, 0, gone
	}
	p := s.unsealed(id, sr)
	if s.now().Sub(p.Created) > RequestTTL {
		return Pending{}, 0, gone
	}
	var b boundRequest
	rev, err := getJSON(ctx, s.o.Requests, hashKey(id), &b)
	switch {
	case hs.ErrorKind(err) == hs.ENOTFOUND:
		return p, 0, nil
	case err != nil:
		return Pending{}, 0, err
	case b.Decided:
		return Pending{}, 0, gone
	}
	p.User, p.CSRF = b.User, b.CSRF
	return p, rev, nil
}

// Decide records user's answer to the pending request id, whose consent
// form carried csrf, and returns where the browser goes: the client's
// redirect URI with a code (allow) or access_denied. A request bound to
// someone else, a wrong CSRF token or a decided request gives an *Error
// without Redirect, and nothing is issued.
func (s *Server) Decide(ctx context.Context, id string, user hs.UserID, csrf string, allow bool) (string, error) {
	if user == "" {
		return "", fail(ErrAccessDenied, "sign in to Nextcloud first")
	}
	p, rev, err := s.pending(ctx, id)
	if err != nil {
		return "", err
	}
	if rev == 0 || p.User != user || p.CSRF == "" || subtle.ConstantTimeCompare([]byte(csrf), []byte(p.CSRF)) != 1 {
		return "", fail(ErrInvalidRequest, "the consent form is not valid for this request (CSRF check failed); start again from your app")
	}
	if allow {
		if err := s.o.Grants.Room(ctx, user); hs.ErrorKind(err) == hs.EINVALID {
			return "", &Error{Code: ErrAccessDenied, Description: hs.ErrorMessage(err) + " (in Hybrid Search under Tokens), then start again from your app", Status: 403, Err: err}
		} else if err != nil {
			return "", err
		}
	}
	if _, err := updateJSON(ctx, s.o.Requests, hashKey(id), boundRequest{User: p.User, CSRF: p.CSRF, Decided: true}, rev); err != nil {
		if hs.ErrorKind(err) == hs.ECONFLICT {
			return "", fail(ErrInvalidRequest, "this sign-in request was already answered")
		}
		return "", err
	}
	if !allow {
		s.log.Info("oauth authorization denied", "user_id", user, "client", p.clientLog())
		return s.redirectWith(p.RedirectURI, url.Values{"error": {ErrAccessDenied}, "error_description": {"the user declined"}}, p.State), nil
	}
	code, err := randomString(32)
	if err != nil {
		return "", err
	}
	rec := codeRecord{ClientHash: p.clientHash, ClientName: p.ClientName, RedirectHash: hashKey(p.RedirectURI), Challenge: p.Challenge,
		Scope: p.Scope, Resource: p.Resource, User: user, Created: s.now().UTC()}
	if _, err := createJSON(ctx, s.o.Codes, hashKey(code), rec); err != nil {
		return "", err
	}
	s.log.Info("oauth authorization granted", "user_id", user, "client", p.clientLog())
	return s.redirectWith(p.RedirectURI, url.Values{"code": {code}}, p.State), nil
}

// redirectWith adds params, state and iss (RFC 9207) to the query of a
// redirect URI, keeping the query it already has (RFC 6749 3.1.2).
func (s *Server) redirectWith(redirectURI string, params url.Values, state string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return ""
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", s.o.Issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

func isBase64URL(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	})
}

// clientLog names the request's client in logs.
func (p Pending) clientLog() string {
	if p.ClientID != "" {
		return truncate(p.ClientID, 200)
	}
	return "registered:" + p.clientHash[:min(16, len(p.clientHash))]
}
