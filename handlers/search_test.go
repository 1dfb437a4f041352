package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

type fakeSearcher struct {
	got  hs.SearchRequest
	user hs.UserID
	err  error
}

func (f *fakeSearcher) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	f.got, f.user = req, user
	if f.err != nil {
		return hs.SearchResult{}, f.err
	}
	return hs.SearchResult{Query: req.Query, Algorithm: "hybrid", Results: []hs.DocumentResult{{FileID: 7, Title: "x"}}}, nil
}

func searchServer(t *testing.T, f *fakeSearcher) http.Handler {
	t.Helper()
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{},
		Publish: &fakeQueue{}, Operator: &fakeOperator{}, Search: f, Assets: fstest.MapFS{}})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

func TestSearchGET(t *testing.T) {
	f := &fakeSearcher{}
	h := searchServer(t, f)
	rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/search?q=kuberntes+upgrade&algorithm=hybrid&fusion=linear&semantic_weight=0.2&keyword_weight=0.5&fuzzy_weight=0.3&top_k=5&score_threshold=0.1&types=note,file&mime=text/markdown&path_prefix=/Docs&modified_after=2024-01-02&modified_before=2025-01-01T00:00:00Z&explain=1", nil), "alice"))
	if rec.Code != 200 {
		t.Fatalf("GET /api/search = %d %s", rec.Code, rec.Body.String())
	}
	want := hs.SearchRequest{Query: "kuberntes upgrade", Algorithm: "hybrid", Fusion: "linear", Weights: &hs.Weights{Semantic: 0.2, Keyword: 0.5, Fuzzy: 0.3},
		TopK: 5, ScoreThreshold: 0.1, Explain: true, Filter: hs.Filter{Types: []hs.DocType{hs.DocNote, hs.DocFile}, MIMEs: []string{"text/markdown"}, PathPrefix: "/Docs",
			ModifiedAfter: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), ModifiedBefore: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}}
	gotJSON, _ := json.Marshal(f.got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) || f.user != "alice" {
		t.Errorf("request = %s as %s\nwant     %s", gotJSON, f.user, wantJSON)
	}
	var res hs.SearchResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Results) != 1 {
		t.Errorf("body = %s", rec.Body.String())
	}
}

// TestSearchGETPaging: the parameters of a search page in Nextcloud:
// paging, order, owner, counts, weak matches and the words as typed.
func TestSearchGETPaging(t *testing.T) {
	f := &fakeSearcher{}
	h := searchServer(t, f)
	rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/search?q=release&top_k=10&offset=20&sort=modified&owner=others&facets=1&include_weak=1&no_correction=1&feedback=1", nil), "alice"))
	if rec.Code != 200 {
		t.Fatalf("GET /api/search = %d %s", rec.Code, rec.Body.String())
	}
	on := true
	want := hs.SearchRequest{Query: "release", TopK: 10, Offset: 20, Sort: hs.SortModified, Owner: hs.OwnerOthers, Facets: true, IncludeWeak: true, NoCorrection: true, Feedback: &on}
	gotJSON, _ := json.Marshal(f.got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("request = %s\nwant     %s", gotJSON, wantJSON)
	}
	if rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/search?q=release&feedback=0", nil), "alice")); rec.Code != 200 || f.got.Feedback == nil || *f.got.Feedback {
		t.Errorf("feedback=0: %d, request feedback %v; want 200 and false", rec.Code, f.got.Feedback)
	}
	for _, bad := range []string{"offset=x", "offset=95", "sort=size", "owner=bob", "feedback=yes"} {
		if rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/search?q=release&"+bad, nil), "alice")); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, rec.Code, rec.Body.String())
		}
	}
}

func TestSearchPOSTAndErrors(t *testing.T) {
	tests := []struct {
		name, method, target, body string
		serr                       error
		want                       int
		msg                        string
	}{
		{"post body", http.MethodPost, "/api/search", `{"query":"D40","top_k":3,"filter":{"types":["note"]}}`, nil, 200, ""},
		{"post unknown field", http.MethodPost, "/api/search", `{"query":"x","topk":3}`, nil, 400, "unknown field"},
		{"post not json", http.MethodPost, "/api/search", `query=x`, nil, 400, "not a valid search request"},
		{"bad weight", http.MethodGet, "/api/search?q=x&keyword_weight=lots", "", nil, 400, "keyword_weight"},
		{"bad top_k", http.MethodGet, "/api/search?q=x&top_k=ten", "", nil, 400, "top_k"},
		{"bad type", http.MethodGet, "/api/search?q=x&types=pdf", "", nil, 400, `unknown document type \"pdf\" in the filter (use file or note)`},
		{"bad date", http.MethodGet, "/api/search?q=x&modified_after=yesterday", "", nil, 400, "modified_after"},
		{"date in the panel's form", http.MethodGet, "/api/search?q=x&modified_after=2026-01-31T09:00:00", "", nil, 200, ""},
		{"weights over 1", http.MethodGet, "/api/search?q=x&semantic_weight=0.7&keyword_weight=0.2&fuzzy_weight=0.2", "", nil, 400, "weights must sum to at most 1, they sum to 1.1"},
		{"weights over 1 in a body", http.MethodPost, "/api/search", `{"query":"x","weights":{"semantic":0.9,"keyword":0.9,"fuzzy":0}}`, nil, 400, "they sum to 1.8"},
		{"top_k over the rules", http.MethodGet, "/api/search?q=x&top_k=1000000", "", nil, 400, "top_k must be between 1 and 50, got 1000000"},
		{"a long bad value is quoted short", http.MethodGet, "/api/search?q=x&top_k=" + strings.Repeat("9x", 2000), "", nil, 400, `top_k=\"` + strings.Repeat("9x", 50) + `\"… (4000 characters) is not a whole number`},
		{"a 900 KB query", http.MethodPost, "/api/search", `{"query":"` + strings.Repeat("x", 900<<10) + `"}`, nil, 400, "the query has 921600 characters, at most 1000 are allowed"},
		{"service says invalid", http.MethodGet, "/api/search?q=x", "", hs.Errorf(hs.EINVALID, "weights must sum to at most 1"), 400, "sum to at most 1"},
		{"service unavailable", http.MethodGet, "/api/search?q=x", "", hs.Errorf(hs.EUNAVAILABLE, "store down"), 503, "store down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSearcher{err: tt.serr}
			h := searchServer(t, f)
			rec := do(h, signed(httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body)), "alice"))
			if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.msg) {
				t.Errorf("%s %.100s = %d %.500s, want %d with %.300q", tt.method, tt.target, rec.Code, rec.Body.String(), tt.want, tt.msg)
			}
			if rec.Code >= 400 && rec.Body.Len() > 1000 {
				t.Errorf("an error of %d bytes: %.300s…", rec.Body.Len(), rec.Body.String())
			}
		})
	}
	rec := do(searchServer(t, &fakeSearcher{}), httptest.NewRequest(http.MethodGet, "/api/search?q=x", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("unsigned search = %d", rec.Code)
	}
}
