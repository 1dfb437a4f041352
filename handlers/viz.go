package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Visualizer draws the 2-D map of the vector space around one user's
// search (*search.Viz). sample is how many of the user's other chunks to
// plot, 0 for the default.
type Visualizer interface {
	Viz(ctx context.Context, user hs.UserID, req hs.SearchRequest, sample int) (hs.VizResult, error)
}

// handleViz answers GET /api/viz with the parameters of GET /api/search
// plus sample (how many of the user's other chunks to plot; the search
// rules' DefaultVizSample and MaxVizSample): the query, the result chunks and the sample projected
// onto their first two principal components.
func (s *Server) handleViz(c echo.Context) error {
	req, err := s.searchFromQuery(c)
	if err != nil {
		return err
	}
	sample := 0
	if v := c.QueryParam("sample"); v != "" {
		if sample, err = strconv.Atoi(v); err != nil {
			return hs.Errorf(hs.EINVALID, "sample=%s is not a whole number", hs.Quote(v))
		}
	}
	if _, err := s.rules.Check(req); err != nil {
		return err
	}
	if _, err := s.rules.CheckVizSample(sample); err != nil {
		return err
	}
	if s.viz == nil {
		return hs.Errorf(hs.EUNAVAILABLE, "the vector-space view is not available")
	}
	res, err := s.viz.Viz(c.Request().Context(), actingUser(c), req, sample)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
