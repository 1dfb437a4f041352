package handlers

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
	"github.com/hybrid-search/hybridsearch/oauth"
)

// The browser half of the authorization server: GET /oauth/authorize and
// the consent form it posts. Every page is a 200 (or an error status)
// with the next URL in a meta refresh and a link, never a 3xx: the AppAPI
// proxy's HTTP client (Guzzle, as Nextcloud configures it in
// lib/private/Http/Client/ClientService.php and Client.php) follows
// redirects itself, so a Location header would be fetched by Nextcloud
// instead of reaching the browser, and would carry the AppAPI headers to
// wherever it points.

// handleAuthorize answers GET /oauth/authorize: a new authorization
// request (the client's parameters), or ?request=ID when the browser comes
// back from Nextcloud's login. An anonymous caller is sent to Nextcloud's
// login, a signed-in one (the proxy forwards the Nextcloud session's
// user) sees the consent page.
func (s *Server) handleAuthorize(c echo.Context) error {
	r := c.Request()
	ctx := r.Context()
	user, _ := s.viaProxy(r)
	q := r.URL.Query()
	var p oauth.Pending
	var err error
	if id := q.Get("request"); id != "" {
		p, err = s.mcp.OAuth.Resume(ctx, id, user)
	} else {
		if name, ok := repeatedParam(q); ok {
			return s.oauthPage(c, &oauth.Error{Code: oauth.ErrInvalidRequest, Description: "parameter " + name + " is sent more than once", Status: http.StatusBadRequest})
		}
		p, err = s.mcp.OAuth.Start(ctx, oauth.AuthRequest{
			ResponseType: q.Get("response_type"), ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
			State: q.Get("state"), CodeChallenge: q.Get("code_challenge"), CodeChallengeMethod: q.Get("code_challenge_method"),
			Scope: q.Get("scope"), Resources: q["resource"],
		})
		if err == nil && user != "" {
			p, err = s.mcp.OAuth.Resume(ctx, p.ID, user)
		}
	}
	if err != nil {
		return s.oauthPage(c, err)
	}
	if user == "" {
		login := s.mcp.NextcloudURL + "/index.php/login?redirect_url=" +
			url.QueryEscape(appapi.ProxyPath(s.appID)+oauth.AuthorizePath+"?request="+p.ID)
		return renderPage(c, http.StatusOK, page{
			Title: "Sign in", Heading: "Sign in to Nextcloud",
			Text:     p.ClientName + " asks to search your files and notes. Sign in to Nextcloud to decide.",
			Next:     template.URL(login),
			NextText: "Continue to the Nextcloud login",
		})
	}
	return renderPage(c, http.StatusOK, page{
		Title: "Connect " + p.ClientName, Heading: "Connect " + p.ClientName, Consent: &p, User: string(user),
		Scope: scopeText(p.Scope),
	})
}

// handleConsent answers POST /oauth/authorize (request, csrf, decision):
// the signed-in user's answer on the consent page. The form must come
// from that page: its CSRF token, its user, and (when the browser says)
// its origin.
func (s *Server) handleConsent(c echo.Context) error {
	r := c.Request()
	user, _ := s.viaProxy(r)
	if mediaType(r) != echo.MIMEApplicationForm {
		return s.oauthPage(c, &oauth.Error{Code: oauth.ErrInvalidRequest, Description: "the consent form is not a form", Status: http.StatusBadRequest})
	}
	if !s.sameOrigin(r) {
		return s.oauthPage(c, &oauth.Error{Code: oauth.ErrInvalidRequest, Description: "the consent form was sent from another site", Status: http.StatusForbidden})
	}
	if err := r.ParseForm(); err != nil {
		return s.oauthPage(c, &oauth.Error{Code: oauth.ErrInvalidRequest, Description: "the consent form cannot be read", Status: http.StatusBadRequest})
	}
	f := r.PostForm
	allow := f.Get("decision") == "allow"
	next, err := s.mcp.OAuth.Decide(r.Context(), f.Get("request"), user, f.Get("csrf"), allow)
	if err != nil {
		var oe *oauth.Error
		if errors.As(err, &oe) && oe.Status == http.StatusBadRequest {
			oe.Status = http.StatusForbidden
		}
		return s.oauthPage(c, err)
	}
	heading, text := "Access allowed", "Returning to your app."
	if !allow {
		heading, text = "Access declined", "Returning to your app, which was not given access."
	}
	return renderPage(c, http.StatusOK, page{Title: heading, Heading: heading, Text: text, Next: template.URL(next), NextText: "Continue"})
}

// sameOrigin reports whether a browser form post comes from this site:
// the Origin header, when sent, must be Nextcloud's (through the proxy) or
// this app's own; Sec-Fetch-Site, when sent, must be same-origin.
func (s *Server) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, base := range []string{s.mcp.NextcloudURL, s.base(r)} {
		if u, err := url.Parse(base); err == nil && strings.EqualFold(origin, u.Scheme+"://"+u.Host) {
			return true
		}
	}
	return false
}

// oauthPage shows an authorization error: a redirectable one sends the
// browser back to the client with it, any other is shown to the user.
func (s *Server) oauthPage(c echo.Context, err error) error {
	var oe *oauth.Error
	if !errors.As(err, &oe) {
		if hs.ErrorKind(err) != hs.EUNAVAILABLE {
			s.logger.Error("oauth authorization failed", "error", err)
		}
		oe = &oauth.Error{Code: oauth.ErrTemporarilyUnavailable, Description: "Something went wrong on our side; try again in a moment.", Status: http.StatusServiceUnavailable}
	}
	if oe.Redirect != "" {
		return renderPage(c, http.StatusOK, page{Title: "Cannot connect", Heading: "Cannot connect",
			Text: oe.Description, Code: oe.Code, Next: template.URL(oe.Redirect), NextText: "Return to your app"})
	}
	status := oe.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	return renderPage(c, status, page{Title: "Cannot connect", Heading: "Cannot connect", Text: oe.Description, Code: oe.Code})
}

// repeatedParam names a parameter sent twice (RFC 6749 3.1), resource
// excepted (RFC 8707 allows several).
func repeatedParam(q url.Values) (string, bool) {
	for k, vs := range q {
		if len(vs) > 1 && k != "resource" {
			return k, true
		}
	}
	return "", false
}

func scopeText(scope string) string {
	if scope == hs.TokenScope {
		return "Search your files and notes and read what it finds. Read-only: it cannot change or share anything."
	}
	return scope
}

// page is what the page template shows.
type page struct {
	Title, Heading, Text string
	Code                 string       // an OAuth error code
	Next                 template.URL // where the page goes on by itself
	NextText             string
	Consent              *oauth.Pending // the consent form
	User, Scope          string
	Nonce                string
}

// renderPage writes p in Nextcloud's guest-page look, with a strict CSP
// (its one style block by nonce, no scripts, no framing).
func renderPage(c echo.Context, status int, p page) error {
	nonce, err := randomNonce()
	if err != nil {
		return err
	}
	p.Nonce = nonce
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+nonce+"'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" makes browsers send Origin: null on the consent form
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	return c.HTMLBlob(status, b.Bytes())
}
