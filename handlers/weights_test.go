package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// recordingSearch is userDocs whose Search keeps the request it was given.
type recordingSearch struct {
	userDocs
	mu   sync.Mutex
	last *hs.SearchRequest
}

func (r *recordingSearch) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	r.mu.Lock()
	r.last = &req
	r.mu.Unlock()
	return hs.SearchResult{Query: req.Query, Algorithm: hs.AlgorithmHybrid}, nil
}

// take returns the request searched since the last take, nil if none.
func (r *recordingSearch) take() *hs.SearchRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	req := r.last
	r.last = nil
	return req
}

// TestWeightsMeanTheSameOverHTTPAndMCP runs the same weights through GET
// and POST /api/search, GET /api/viz and MCP's search tool: each accepts or refuses
// alike and searches with the same weights, the legs not given keeping
// the defaults in force (an admin's here, not the built-in ones).
func TestWeightsMeanTheSameOverHTTPAndMCP(t *testing.T) {
	admin := hs.SearchDefaults{Algorithm: hs.AlgorithmHybrid, Fusion: hs.FusionRRF, Weights: hs.Weights{Semantic: 0.2, Keyword: 0.5, Fuzzy: 0.1}, TopK: 10}
	defaults := func() hs.SearchDefaults { return admin }
	rec := &recordingSearch{}
	viz := &fakeViz{}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	endpoint, err := mcp.NewHandler(mcp.Options{Search: rec, Chunks: userDocs{}, Access: userDocs{}, Status: userDocs{},
		NextcloudURL: ncURL, AllowedOrigins: []string{ncURL}, Defaults: defaults, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{},
		Assets: fstest.MapFS{}, Logger: quiet, Search: rec, Viz: viz, Defaults: defaults,
		MCP: &handlers.MCPDeps{Handler: endpoint, Tokens: newMCPEnv(t).tokens, Users: knownUsers{"alice"}, NextcloudURL: ncURL},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	w := func(s, k, f float64) *hs.Weights { return &hs.Weights{Semantic: s, Keyword: k, Fuzzy: f} }
	tests := []struct {
		name string
		args map[string]any // MCP arguments besides the query; HTTP parameters alike
		want *hs.Weights    // nil: none sent (the search's defaults)
		bad  bool           // refused
	}{
		{"semantic 0.9 alone sums over 1 with the defaults", map[string]any{"semantic_weight": 0.9}, nil, true},
		{"one weight, the others default", map[string]any{"semantic_weight": 0.4}, w(0.4, 0.5, 0.1), false},
		{"two weights", map[string]any{"keyword_weight": 0.3, "fuzzy_weight": 0.3}, w(0.2, 0.3, 0.3), false},
		{"all three", map[string]any{"semantic_weight": 0.6, "keyword_weight": 0.4, "fuzzy_weight": 0}, w(0.6, 0.4, 0), false},
		{"none", map[string]any{}, nil, false},
		{"negative", map[string]any{"semantic_weight": -0.1}, nil, true},
		{"all zero", map[string]any{"semantic_weight": 0, "keyword_weight": 0, "fuzzy_weight": 0}, nil, true},
		{"with fusion auto", map[string]any{"fusion": "auto", "semantic_weight": 0.3}, nil, true},
		{"off hybrid", map[string]any{"algorithm": "keyword", "keyword_weight": 0.9}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{"q": {"zebracorn"}}
			args := map[string]any{"query": "zebracorn"}
			post := map[string]any{"query": "zebracorn"} // a JSON SearchRequest
			weights := map[string]any{}
			for k, v := range tt.args {
				q.Set(k, fmt.Sprint(v))
				args[k] = v
				if leg, ok := strings.CutSuffix(k, "_weight"); ok {
					weights[leg] = v
				} else {
					post[k] = v
				}
			}
			if len(weights) > 0 {
				post["weights"] = weights
			}
			check := func(path string, refused bool, got *hs.SearchRequest) {
				t.Helper()
				if refused != tt.bad {
					t.Fatalf("%s: refused = %v, want %v", path, refused, tt.bad)
				}
				if tt.bad {
					return
				}
				if got == nil {
					t.Fatalf("%s: nothing searched", path)
				}
				if (got.Weights == nil) != (tt.want == nil) || (got.Weights != nil && *got.Weights != *tt.want) {
					t.Errorf("%s: weights %+v, want %+v", path, got.Weights, tt.want)
				}
			}
			r := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/search?"+q.Encode(), nil), "alice"))
			check("GET /api/search", r.Code == http.StatusBadRequest, rec.take())
			body, _ := json.Marshal(post)
			r = do(h, signed(httptest.NewRequest(http.MethodPost, "/api/search", bytes.NewReader(body)), "alice"))
			check("POST /api/search", r.Code == http.StatusBadRequest, rec.take())
			viz.got = hs.SearchRequest{}
			r = do(h, signed(httptest.NewRequest(http.MethodGet, "/api/viz?"+q.Encode(), nil), "alice"))
			var vizGot *hs.SearchRequest
			if viz.got.Query != "" {
				vizGot = &viz.got
			}
			check("GET /api/viz", r.Code == http.StatusBadRequest, vizGot)
			body, _ = json.Marshal(args)
			r = do(h, mcpRequest(mcp.ToolSearch, string(body), asAppAPI("alice")))
			isErr, txt := toolResult(t, r.Body.String())
			if r.Code != http.StatusOK {
				t.Fatalf("MCP: %d %s", r.Code, r.Body.String())
			}
			check("MCP", isErr, rec.take())
			if isErr && tt.bad && txt == "" {
				t.Errorf("MCP refusal says nothing")
			}
		})
	}
}
