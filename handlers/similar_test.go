package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

type fakeSimilar struct {
	user hs.UserID
	ids  []hs.FileID
	topK int
	err  error
}

func (f *fakeSimilar) Similar(ctx context.Context, user hs.UserID, ids []hs.FileID, topK int) (hs.SimilarResult, error) {
	f.user, f.ids, f.topK = user, ids, topK
	if f.err != nil {
		return hs.SimilarResult{}, f.err
	}
	return hs.SimilarResult{Space: hs.SpaceSemantic, Sources: []hs.SimilarSource{{FileID: ids[0]}}, Results: []hs.DocumentResult{{FileID: 9, Relevance: 0.8}}}, nil
}

func similarServer(t *testing.T, sim handlers.Similarity, page string) http.Handler {
	t.Helper()
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{},
		Publish: &fakeQueue{}, Operator: &fakeOperator{}, Search: &fakeSearcher{}, Similar: sim, SimilarPage: page, Assets: fstest.MapFS{}})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

func TestSimilarGET(t *testing.T) {
	for _, q := range []string{"file_ids=12,34&top_k=5", "fileIds=12,34&top_k=5", "file_id=12,%2034&top_k=5"} {
		f := &fakeSimilar{}
		rec := do(similarServer(t, f, ""), signed(httptest.NewRequest(http.MethodGet, "/api/similar?"+q, nil), "alice"))
		if rec.Code != 200 {
			t.Fatalf("GET /api/similar?%s = %d %s", q, rec.Code, rec.Body.String())
		}
		if f.user != "alice" || !slices.Equal(f.ids, []hs.FileID{12, 34}) || f.topK != 5 {
			t.Errorf("%s: called as %q with %v, top_k %d", q, f.user, f.ids, f.topK)
		}
		var res hs.SimilarResult
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Results) != 1 || res.Space != hs.SpaceSemantic {
			t.Errorf("body = %s (%v)", rec.Body.String(), err)
		}
	}
}

func TestSimilarErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		sim  handlers.Similarity
		url  string
		user string
		want int
	}{
		{"no ids", &fakeSimilar{}, "/api/similar", "alice", http.StatusBadRequest},
		{"bad id", &fakeSimilar{}, "/api/similar?file_ids=12,abc", "alice", http.StatusBadRequest},
		{"negative id", &fakeSimilar{}, "/api/similar?file_ids=-3", "alice", http.StatusBadRequest},
		{"bad top_k", &fakeSimilar{}, "/api/similar?file_ids=1&top_k=ten", "alice", http.StatusBadRequest},
		{"not indexed", &fakeSimilar{err: hs.Errorf(hs.ENOTFOUND, "search: this file is not in the index for you")}, "/api/similar?file_ids=1", "alice", http.StatusNotFound},
		{"unsigned", &fakeSimilar{}, "/api/similar?file_ids=1", "", http.StatusUnauthorized},
		{"not wired", nil, "/api/similar?file_ids=1", "alice", http.StatusServiceUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.url, nil)
			if tt.user != "" {
				req = signed(req, tt.user)
			}
			if rec := do(similarServer(t, tt.sim, ""), req); rec.Code != tt.want {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.want, rec.Body.String())
			}
		})
	}
}

// TestFileActionSimilar posts what AppAPI's files plugin sends (v34.0.3
// buildNodeInfo): v2 {"files": [node]}, or a bare node for v1.
func TestFileActionSimilar(t *testing.T) {
	node := `{"fileId":123,"name":"plan.md","directory":"/Docs","etag":"abc","mime":"text/markdown","favorite":"false","permissions":27,` +
		`"fileType":"file","size":42,"mtime":1767225600,"shareTypes":null,"shareAttributes":null,"sharePermissions":null,` +
		`"shareOwner":"Alice","shareOwnerId":"alice","userId":"mallory","instanceId":"ocsim0000001"}`
	for _, tt := range []struct {
		name, body, page, want string
		code                   int
	}{
		{"v2", `{"files":[` + node + `]}`, "", `{"redirect_handler":"search"}`, 200},
		{"v2 batch", `{"files":[` + node + `,` + strings.Replace(node, "123", "124", 1) + `]}`, "panel", `{"redirect_handler":"panel"}`, 200},
		{"v1 bare node", node, "", `{"redirect_handler":"search"}`, 200},
		{"no files", `{"files":[]}`, "", "", 400},
		{"garbage", `{"files":"x"`, "", "", 400},
		{"no file id", `{"files":[{"name":"x"}]}`, "", "", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := signed(httptest.NewRequest(http.MethodPost, "/api/files/similar", strings.NewReader(tt.body)), "alice")
			req.Header.Set("Content-Type", "application/json")
			rec := do(similarServer(t, &fakeSimilar{}, tt.page), req)
			if rec.Code != tt.code || (tt.want != "" && strings.TrimSpace(rec.Body.String()) != tt.want) {
				t.Errorf("POST %s = %d %s, want %d %s", tt.body, rec.Code, rec.Body.String(), tt.code, tt.want)
			}
		})
	}
	if rec := do(similarServer(t, &fakeSimilar{}, ""), httptest.NewRequest(http.MethodPost, "/api/files/similar", strings.NewReader(`{"files":[`+node+`]}`))); rec.Code != 401 {
		t.Errorf("unsigned file action = %d, want 401", rec.Code)
	}
}
