package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

type fakeViz struct {
	got    hs.SearchRequest
	sample int
	user   hs.UserID
}

func (f *fakeViz) Viz(ctx context.Context, user hs.UserID, req hs.SearchRequest, sample int) (hs.VizResult, error) {
	f.got, f.sample, f.user = req, sample, user
	return hs.VizResult{Query: req.Query, Space: hs.SpaceKeyword, Points: []hs.VizPoint{{FileID: 7, X: 1, Y: -1, Rank: 1, Best: true, Legs: []string{"keyword"}}}}, nil
}

func vizServer(t *testing.T, v handlers.Visualizer) http.Handler {
	t.Helper()
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{},
		Publish: &fakeQueue{}, Operator: &fakeOperator{}, Search: &fakeSearcher{}, Viz: v, Assets: fstest.MapFS{}})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

func TestVizGET(t *testing.T) {
	f := &fakeViz{}
	h := vizServer(t, f)
	rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/viz?q=kubernetes&algorithm=keyword&types=note&sample=120", nil), "alice"))
	if rec.Code != 200 {
		t.Fatalf("GET /api/viz = %d %s", rec.Code, rec.Body.String())
	}
	if f.user != "alice" || f.got.Query != "kubernetes" || f.got.Algorithm != "keyword" || len(f.got.Filter.Types) != 1 || f.sample != 120 {
		t.Errorf("viz called as %q with %+v, sample %d", f.user, f.got, f.sample)
	}
	var res hs.VizResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Points) != 1 || res.Points[0].Legs[0] != "keyword" {
		t.Errorf("body = %s (%v)", rec.Body.String(), err)
	}
}

func TestVizErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		viz  handlers.Visualizer
		req  *http.Request
		want int
	}{
		{"bad sample", &fakeViz{}, signed(httptest.NewRequest(http.MethodGet, "/api/viz?q=x&sample=many", nil), "alice"), http.StatusBadRequest},
		{"bad weight", &fakeViz{}, signed(httptest.NewRequest(http.MethodGet, "/api/viz?q=x&semantic_weight=lots", nil), "alice"), http.StatusBadRequest},
		{"unsigned", &fakeViz{}, httptest.NewRequest(http.MethodGet, "/api/viz?q=x", nil), http.StatusUnauthorized},
		{"no viz", nil, signed(httptest.NewRequest(http.MethodGet, "/api/viz?q=x", nil), "alice"), http.StatusServiceUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(vizServer(t, tt.viz), tt.req)
			if rec.Code != tt.want {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.want, rec.Body.String())
			}
		})
	}
}
