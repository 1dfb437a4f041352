package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

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
// (one or more, read as MCP reads them, by hs.SearchRules.RequestWeights:
// those not given keep the defaults in force; ignored off hybrid), top_k
// (or limit), score_threshold, types (note,file), mime (comma list),
// path_prefix, modified_after and modified_before (RFC 3339 or
// YYYY-MM-DD), explain=1, offset (paging), sort (relevance|modified),
// owner (me|others), facets=1 (counts by facet), include_weak=1 (the weak
// matches too, marked), no_correction=1 (the words as typed, no typo
// correction) and feedback=1 or feedback=0 (pseudo-relevance feedback on
// or off; absent: the server's default). The search service checks the
// request against the search rules (hs.SearchRules).
func (s *Server) handleSearch(c echo.Context) error {
	var req hs.SearchRequest
	var err error
	if c.Request().Method == http.MethodPost {
		req, err = s.decodeSearchBody(c)
	} else {
		req, err = s.searchFromQuery(c)
	}
	if err != nil {
		return err
	}
	// The rules' check, before any work; the service fills in the
	// defaults itself (an admin may change them while it runs).
	if _, err := s.rules.Check(req); err != nil {
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

// decodeSearchBody reads a SearchRequest from a JSON body. Its weights
// are read as GET's and MCP's are (RequestWeights): the keys of "weights"
// not given keep the defaults in force.
func (s *Server) decodeSearchBody(c echo.Context) (hs.SearchRequest, error) {
	var req hs.SearchRequest
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return req, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, hs.Errorf(hs.EINVALID, "search body is not a valid search request: %v", err)
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		return req, hs.Errorf(hs.EINVALID, "search body has data after the JSON object; send exactly one search request")
	}
	if req.Weights != nil {
		var given struct {
			Weights struct{ Semantic, Keyword, Fuzzy *float64 }
		}
		if err := json.Unmarshal(body, &given); err != nil {
			return req, hs.Errorf(hs.EINVALID, "search body is not a valid search request: %v", err)
		}
		g := given.Weights
		if req.Weights, err = s.searchRules().RequestWeights(req.Algorithm, g.Semantic, g.Keyword, g.Fuzzy); err != nil {
			return req, err
		}
	}
	return req, nil
}

// searchRules are the rules with the defaults in force.
func (s *Server) searchRules() hs.SearchRules {
	r := s.rules
	if s.defaults != nil {
		r.Defaults = s.defaults()
	}
	return r
}

// searchFromQuery reads a SearchRequest from GET parameters. It checks
// that numbers and dates parse and the weights (RequestWeights); the
// search service checks the rest.
func (s *Server) searchFromQuery(c echo.Context) (hs.SearchRequest, error) {
	q := c.QueryParams()
	flag := func(name string) bool { return q.Get(name) == "1" || q.Get(name) == "true" }
	req := hs.SearchRequest{
		Query:        q.Get("q"),
		Algorithm:    q.Get("algorithm"),
		Fusion:       q.Get("fusion"),
		Explain:      flag("explain"),
		Sort:         q.Get("sort"),
		Owner:        q.Get("owner"),
		Facets:       flag("facets"),
		IncludeWeak:  flag("include_weak"),
		NoCorrection: flag("no_correction"),
	}
	if req.Query == "" {
		req.Query = q.Get("query")
	}
	switch v := q.Get("feedback"); v {
	case "":
	case "1", "true", "0", "false":
		on := v == "1" || v == "true"
		req.Feedback = &on
	default:
		return req, hs.Errorf(hs.EINVALID, "feedback=%s: want 1 or 0", hs.Quote(v))
	}
	num := func(name string) (float64, bool, error) {
		v := q.Get(name)
		if v == "" {
			return 0, false, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, false, hs.Errorf(hs.EINVALID, "%s=%s is not a number", name, hs.Quote(v))
		}
		return f, true, nil
	}
	var given [3]*float64 // semantic, keyword, fuzzy
	for i, name := range []string{"semantic_weight", "keyword_weight", "fuzzy_weight"} {
		f, ok, err := num(name)
		if err != nil {
			return req, err
		}
		if ok {
			given[i] = &f
		}
	}
	w, err := s.searchRules().RequestWeights(req.Algorithm, given[0], given[1], given[2])
	if err != nil {
		return req, err
	}
	req.Weights = w
	for _, p := range []struct {
		name string
		dst  *int
	}{{"top_k", &req.TopK}, {"limit", &req.TopK}, {"offset", &req.Offset}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return req, hs.Errorf(hs.EINVALID, "%s=%s is not a whole number", p.name, hs.Quote(v))
			}
			*p.dst = n
		}
	}
	if f, ok, err := num("score_threshold"); err != nil {
		return req, err
	} else if ok {
		req.ScoreThreshold = f
	}
	for _, t := range splitComma(q.Get("types")) {
		req.Filter.Types = append(req.Filter.Types, hs.DocType(t))
	}
	req.Filter.MIMEs = splitComma(q.Get("mime"))
	req.Filter.PathPrefix = q.Get("path_prefix")
	if req.Filter.ModifiedAfter, err = s.rules.ParseTime("modified_after", q.Get("modified_after")); err != nil {
		return req, err
	}
	if req.Filter.ModifiedBefore, err = s.rules.ParseTime("modified_before", q.Get("modified_before")); err != nil {
		return req, err
	}
	return req, nil
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
