package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Searcher runs one user's search.
type Searcher interface {
	Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error)
}

// handleSearch answers GET /api/search?q=... and POST /api/search with a
// JSON SearchRequest body, for the acting user.
//
// GET parameters: q (required), algorithm (hybrid|semantic|keyword|fuzzy),
// fusion (rrf|linear|auto), semantic_weight, keyword_weight, fuzzy_weight
// (all three or none), top_k (or limit; 1-50, default 10),
// score_threshold, types (note,file), mime (comma list), path_prefix,
// modified_after and modified_before (RFC 3339 or YYYY-MM-DD), explain=1.
func (s *Server) handleSearch(c echo.Context) error {
	var req hs.SearchRequest
	var err error
	if c.Request().Method == http.MethodPost {
		req, err = decodeSearchBody(c)
	} else {
		req, err = searchFromQuery(c)
	}
	if err != nil {
		return err
	}
	if s.search == nil {
		return hs.Errorf(hs.EUNAVAILABLE, "search is not available")
	}
	res, err := s.search.Search(c.Request().Context(), actingUser(c), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func decodeSearchBody(c echo.Context) (hs.SearchRequest, error) {
	var req hs.SearchRequest
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(c.Request().Body); err != nil {
		return req, err
	}
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, hs.Errorf(hs.EINVALID, "search body is not a valid search request: %v", err)
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		return req, hs.Errorf(hs.EINVALID, "search body has data after the JSON object; send exactly one search request")
	}
	return req, nil
}

// searchFromQuery reads a SearchRequest from GET parameters.
func searchFromQuery(c echo.Context) (hs.SearchRequest, error) {
	q := c.QueryParams()
	req := hs.SearchRequest{
		Query:     q.Get("q"),
		Algorithm: q.Get("algorithm"),
		Fusion:    q.Get("fusion"),
		Explain:   q.Get("explain") == "1" || q.Get("explain") == "true",
	}
	if req.Query == "" {
		req.Query = q.Get("query")
	}
	num := func(name string) (float64, bool, error) {
		v := q.Get(name)
		if v == "" {
			return 0, false, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, false, hs.Errorf(hs.EINVALID, "%s=%q is not a number", name, v)
		}
		return f, true, nil
	}
	var w hs.Weights
	var set int
	for _, p := range []struct {
		name string
		dst  *float64
	}{{"semantic_weight", &w.Semantic}, {"keyword_weight", &w.Keyword}, {"fuzzy_weight", &w.Fuzzy}} {
		f, ok, err := num(p.name)
		if err != nil {
			return req, err
		}
		if ok {
			*p.dst = f
			set++
		}
	}
	if set > 0 {
		req.Weights = &w
	}
	for _, name := range []string{"top_k", "limit"} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return req, hs.Errorf(hs.EINVALID, "%s=%q is not a whole number", name, v)
			}
			req.TopK = n
		}
	}
	if f, ok, err := num("score_threshold"); err != nil {
		return req, err
	} else if ok {
		req.ScoreThreshold = f
	}
	for _, t := range splitComma(q.Get("types")) {
		switch hs.DocType(t) {
		case hs.DocNote, hs.DocFile:
			req.Filter.Types = append(req.Filter.Types, hs.DocType(t))
		default:
			return req, hs.Errorf(hs.EINVALID, "types: %q is not note or file", t)
		}
	}
	req.Filter.MIMEs = splitComma(q.Get("mime"))
	req.Filter.PathPrefix = q.Get("path_prefix")
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"modified_after", &req.Filter.ModifiedAfter}, {"modified_before", &req.Filter.ModifiedBefore}} {
		if v := q.Get(p.name); v != "" {
			t, err := parseDate(v)
			if err != nil {
				return req, hs.Errorf(hs.EINVALID, "%s=%q is not an RFC 3339 time or a YYYY-MM-DD date", p.name, v)
			}
			*p.dst = t
		}
	}
	return req, nil
}

func parseDate(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, v)
}

func splitComma(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
