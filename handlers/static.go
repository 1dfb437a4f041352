package handlers

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// handleAsset serves GET /js/*, /css/* and /img/* from the embedded
// frontend build. Names are fixed (AppAPI registers scripts by path), so
// every asset is revalidated rather than cached for an hour by the proxy.
func (s *Server) handleAsset(c echo.Context) error {
	p := strings.TrimPrefix(c.Request().URL.Path, "/")
	if strings.Contains(p, "..") {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	f, err := fs.Stat(s.assets, p)
	if err != nil || f.IsDir() {
		return echo.NewHTTPError(http.StatusNotFound, "no such asset")
	}
	c.Response().Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(c.Response(), c.Request(), s.assets, p)
	return nil
}
