package handlers

import (
	"crypto/subtle"
	"errors"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

// appAPIAuth verifies the AppAPI headers of docs/nextcloud-protocol.md §3.1 and
// puts the acting user (possibly empty) into the request context.
func (s *Server) appAPIAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		user, err := s.verifyAppAPI(c.Request().Header.Get)
		if err != nil {
			return err
		}
		req := c.Request()
		c.SetRequest(req.WithContext(hs.NewContextWithUser(req.Context(), user)))
		return next(c)
	}
}

// verifyAppAPI checks the three AppAPI headers against the app id and
// secret and returns the acting user.
func (s *Server) verifyAppAPI(header func(string) string) (hs.UserID, error) {
	fail := func(why string) (hs.UserID, error) {
		return "", hs.Errorf(hs.EUNAUTHORIZED, "AppAPI authentication failed: %s", why)
	}
	appID, version, auth := header("EX-APP-ID"), header("EX-APP-VERSION"), header(appapi.AuthHeader)
	switch {
	case appID == "":
		return fail("missing EX-APP-ID header")
	case version == "":
		return fail("missing EX-APP-VERSION header")
	case auth == "":
		return fail("missing AUTHORIZATION-APP-API header")
	case subtle.ConstantTimeCompare([]byte(appID), []byte(s.appID)) != 1:
		return fail("EX-APP-ID does not name this app")
	}
	user, secret, err := appapi.DecodeAuth(auth)
	if errors.Is(err, appapi.ErrNotBase64) {
		return fail("AUTHORIZATION-APP-API is not base64")
	}
	if err != nil || subtle.ConstantTimeCompare([]byte(secret), []byte(s.secret)) != 1 {
		return fail("invalid signature")
	}
	return hs.UserID(user), nil
}

// actingUser returns the user the AppAPI middleware verified.
func actingUser(c echo.Context) hs.UserID {
	u, _ := hs.UserFromContext(c.Request().Context())
	return u
}
