package search_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/search"
)

// sampleDocs is a small mixed corpus used by the service tests.
var sampleDocs = []doc{
	{ID: 1, Path: "/Engineering/Kubernetes upgrade runbook.md", Text: "# Kubernetes upgrade runbook\n\nDrain one node at a time, upgrade the kubelet, uncordon the node.\n\n## Rollback\n\nKeep the previous kubelet package cached."},
	{ID: 2, Path: "/Notes/Groceries.md", Type: hs.DocNote, Text: "# Groceries\n\nApples, butter, flour and a new kettle for the kitchen."},
	{ID: 3, Path: "/Finance/Budget 2025.csv", MIME: "text/csv", Modified: baseTime.AddDate(0, -6, 0), Text: "item,amount\ncloud hosting,12000\nkubernetes support,4000\nlaptops,9000"},
	{ID: 4, Path: "/Engineering/Upgrade policy.md", Modified: baseTime.AddDate(0, 1, 0), Text: "# Upgrade policy\n\nEvery cluster upgrade is announced a week ahead. Kubernetes minor versions are never skipped."},
}

func TestBadInput(t *testing.T) {
	svc := mustService(t, openLocal(t))
	tests := []struct {
		name string
		req  hs.SearchRequest
		want string // in the message
	}{
		{"empty query", hs.SearchRequest{}, "query is empty"},
		{"blank query", hs.SearchRequest{Query: " \t\n"}, "query is empty"},
		{"10,000-character query", hs.SearchRequest{Query: strings.Repeat("long ", 2000)}, "at most 1000"},
		{"unknown algorithm", hs.SearchRequest{Query: "x", Algorithm: "bm42"}, `unknown algorithm "bm42"`},
		{"unknown fusion", hs.SearchRequest{Query: "x", Fusion: "rsf"}, `unknown fusion "rsf"`},
		{"negative weight", hs.SearchRequest{Query: "x", Weights: &hs.Weights{Semantic: -0.1, Keyword: 0.5}}, "weights must be ≥ 0, the semantic weight is -0.1"},
		{"weights sum above 1", hs.SearchRequest{Query: "x", Weights: &hs.Weights{Semantic: 0.6, Keyword: 0.3, Fuzzy: 0.2}}, "sum to at most 1"},
		{"all weights 0", hs.SearchRequest{Query: "x", Weights: &hs.Weights{}}, "at least one weight must be above 0"},
		{"NaN weight", hs.SearchRequest{Query: "x", Weights: &hs.Weights{Fuzzy: math.NaN()}}, "fuzzy weight must be a number"},
		{"weights with auto", hs.SearchRequest{Query: "x", Fusion: hs.FusionAuto, Weights: &hs.DefaultWeights}, "auto chooses the weights itself"},
		{"top_k too large", hs.SearchRequest{Query: "x", TopK: 51}, "top_k must be between 1 and 50, got 51"},
		{"top_k negative", hs.SearchRequest{Query: "x", TopK: -1}, "top_k must be between 1 and 50, got -1"},
		{"threshold above 1", hs.SearchRequest{Query: "x", ScoreThreshold: 1.5}, "score_threshold must be between -1 and 1"},
		{"threshold NaN", hs.SearchRequest{Query: "x", ScoreThreshold: math.NaN()}, "score_threshold"},
		{"unknown type", hs.SearchRequest{Query: "x", Filter: hs.Filter{Types: []hs.DocType{"image"}}}, `unknown document type "image"`},
		{"empty date range", hs.SearchRequest{Query: "x", Filter: hs.Filter{ModifiedAfter: baseTime, ModifiedBefore: baseTime}}, "modified_after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Search(t.Context(), "alice", tt.req)
			if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(hs.ErrorMessage(err), tt.want) {
				t.Errorf("Search = %v (kind %s), want EINVALID containing %q", err, hs.ErrorKind(err), tt.want)
			}
			if verr := search.Validate(tt.req); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Validate = %v, want the same error as Search", verr)
			}
		})
	}
	t.Run("no user", func(t *testing.T) {
		if _, err := svc.Search(t.Context(), "", hs.SearchRequest{Query: "x"}); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("Search without user = %v, want EINVALID", err)
		}
	})
	t.Run("limits are inclusive", func(t *testing.T) {
		for _, req := range []hs.SearchRequest{
			{Query: strings.Repeat("é", search.MaxQueryRunes)},
			{Query: "x", TopK: search.MaxTopK, ScoreThreshold: -1},
			{Query: "x", Weights: &hs.Weights{Semantic: 0.7, Keyword: 0.2, Fuzzy: 0.1}},
			{Query: "x", Weights: &hs.Weights{Keyword: 1}},
		} {
			if err := search.Validate(req); err != nil {
				t.Errorf("Validate(%.20q…) = %v, want nil", req.Query, err)
			}
		}
	})
}

func TestNewNeedsAStore(t *testing.T) {
	if _, err := search.New(search.Options{}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("New without a store = %v, want EINVALID", err)
	}
}

func TestResultShape(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "  kubernetes upgrade  ", Explain: true})
	if res.Query != "kubernetes upgrade" || res.Algorithm != hs.AlgorithmHybrid || res.Fusion != hs.FusionRRF || res.Weights != hs.DefaultWeights {
		t.Errorf("result header = %q %s %s %+v", res.Query, res.Algorithm, res.Fusion, res.Weights)
	}
	if len(res.Skipped) != 0 || res.TookMS <= 0 {
		t.Errorf("skipped %v, took %v ms", res.Skipped, res.TookMS)
	}
	first := res.Results[0]
	if first.FileID != 1 || first.Title != "Kubernetes upgrade runbook" || first.MIME != "text/markdown" || first.Type != hs.DocFile || !first.Modified.Equal(baseTime) {
		t.Errorf("first result = %+v", first)
	}
	if first.Link != "https://cloud.example.com/index.php/f/1" {
		t.Errorf("link = %q", first.Link)
	}
	if first.Relevance != 1 {
		t.Errorf("relevance of a document every leg ranks first = %v, want 1", first.Relevance)
	}
	ex := first.Explain
	if ex == nil || len(ex.Legs) != 3 || ex.Legs[hs.AlgorithmKeyword].Rank != 1 || math.Abs(ex.Fused-1.0/61) > 1e-12 {
		t.Errorf("explain = %+v", ex)
	}
	// The excerpt is the best chunk with the query terms marked.
	runes := []rune(first.Excerpt.Text)
	var marked []string
	for _, h := range first.Excerpt.Highlights {
		marked = append(marked, strings.ToLower(string(runes[h[0]:h[1]])))
	}
	if !slices.Contains(marked, "kubernetes") || !slices.Contains(marked, "upgrade") {
		t.Errorf("highlights %v of %q", marked, first.Excerpt.Text)
	}
	for _, r := range res.Results {
		if r.FileID == 2 && r.Link != "https://cloud.example.com/index.php/apps/notes/note/2" {
			t.Errorf("note link = %q", r.Link)
		}
	}
	if res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubelet"}); res.Results[0].Explain != nil {
		t.Errorf("explain without asking: %+v", res.Results[0].Explain)
	}
}

func TestMoreChunks(t *testing.T) {
	st := openLocal(t)
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "## Part %d\n\nThe turbine blade inspection, step %d: look for cracks near the root and measure the blade tip clearance with the feeler gauge.\n\n", i, i)
	}
	mustIndex(t, st, doc{ID: 9, Path: "/Manuals/Turbine.md", Text: b.String()}, sampleDocs[1])
	svc := mustService(t, st)
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "turbine blade inspection"})
	if res.Results[0].FileID != 9 || len(res.Results[0].More) != 3 {
		t.Fatalf("first result %d with %d more chunks, want 9 with 3", res.Results[0].FileID, len(res.Results[0].More))
	}
	seen := map[int]bool{res.Results[0].Excerpt.ChunkNo: true}
	for _, m := range res.Results[0].More {
		if seen[m.ChunkNo] || len(m.Highlights) == 0 {
			t.Errorf("more chunk %d repeated or without highlights", m.ChunkNo)
		}
		seen[m.ChunkNo] = true
	}
	for _, r := range res.Results[1:] {
		if r.FileID == 9 {
			t.Errorf("document 9 listed twice")
		}
	}
}

func TestAlgorithms(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	tests := []struct {
		req         hs.SearchRequest
		wantLegs    []string
		wantWeights hs.Weights
		wantFusion  string
	}{
		{hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmSemantic}, []string{hs.AlgorithmSemantic}, hs.Weights{Semantic: 1}, ""},
		{hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmKeyword}, []string{hs.AlgorithmKeyword}, hs.Weights{Keyword: 1}, ""},
		{hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmFuzzy, Weights: &hs.Weights{Semantic: 1}}, []string{hs.AlgorithmFuzzy}, hs.Weights{Fuzzy: 1}, ""},
		{hs.SearchRequest{Query: "kubernetes", Weights: &hs.Weights{Keyword: 0.4, Fuzzy: 0.1}}, []string{hs.AlgorithmKeyword, hs.AlgorithmFuzzy}, hs.Weights{Keyword: 0.4, Fuzzy: 0.1}, hs.FusionRRF},
		{hs.SearchRequest{Query: "kubernetes", Fusion: hs.FusionLinear}, []string{hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy}, hs.DefaultWeights, hs.FusionLinear},
		{hs.SearchRequest{Query: "how are kubernetes upgrades announced?", Fusion: hs.FusionAuto}, []string{hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy}, search.AutoWeights(analysis.ShapeQuestion), hs.FusionAuto},
	}
	for _, tt := range tests {
		name := tt.req.Algorithm + "/" + tt.req.Fusion
		t.Run(name, func(t *testing.T) {
			tt.req.Explain = true
			res := mustSearch(t, svc, "alice", tt.req)
			if res.Weights != tt.wantWeights || res.Fusion != tt.wantFusion {
				t.Errorf("weights %+v fusion %q, want %+v %q", res.Weights, res.Fusion, tt.wantWeights, tt.wantFusion)
			}
			if len(res.Results) == 0 {
				t.Fatal("no results")
			}
			for _, r := range res.Results {
				for leg := range r.Explain.Legs {
					if !slices.Contains(tt.wantLegs, leg) {
						t.Errorf("result %d explained by leg %s, want only %v", r.FileID, leg, tt.wantLegs)
					}
				}
				if r.Relevance < 0 || r.Relevance > 1 {
					t.Errorf("relevance %v", r.Relevance)
				}
			}
		})
	}
	t.Run("auto reports the shape", func(t *testing.T) {
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "how are kubernetes upgrades announced?", Fusion: hs.FusionAuto})
		if res.Shape != "question" || res.Weights.Semantic != 0.7 {
			t.Errorf("auto: shape %q weights %+v", res.Shape, res.Weights)
		}
	})
	t.Run("semantic relevance is the cosine", func(t *testing.T) {
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmSemantic, Explain: true})
		r := res.Results[0]
		if math.Abs(r.Relevance-r.Explain.Legs[hs.AlgorithmSemantic].Score) > 1e-9 {
			t.Errorf("relevance %v, cosine %v", r.Relevance, r.Explain.Legs[hs.AlgorithmSemantic].Score)
		}
	})
	t.Run("keyword relevance is relative to the best", func(t *testing.T) {
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmKeyword, Explain: true})
		best := res.Results[0].Explain.Fused
		for _, r := range res.Results {
			if math.Abs(r.Relevance-r.Explain.Fused/best) > 1e-9 {
				t.Errorf("relevance %v, score %v of best %v", r.Relevance, r.Explain.Fused, best)
			}
		}
	})
}

func TestScoreThreshold(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	all := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", Algorithm: hs.AlgorithmSemantic, Explain: true})
	if len(all.Results) != len(sampleDocs) {
		t.Fatalf("threshold 0 returned %d of %d documents", len(all.Results), len(sampleDocs))
	}
	cut := (all.Results[0].Explain.Fused + all.Results[1].Explain.Fused) / 2
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", Algorithm: hs.AlgorithmSemantic, ScoreThreshold: cut})
	if got := ids(res); !slices.Equal(got, ids(all)[:1]) {
		t.Errorf("threshold %v kept %v, want %v", cut, got, ids(all)[:1])
	}
	// In hybrid, the threshold only thins the semantic leg.
	res = mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", ScoreThreshold: 1, Explain: true})
	for _, r := range res.Results {
		if _, ok := r.Explain.Legs[hs.AlgorithmSemantic]; ok {
			t.Errorf("semantic hit %d above threshold 1", r.FileID)
		}
	}
	if len(res.Results) == 0 {
		t.Error("threshold 1 removed keyword and fuzzy results too")
	}
}

func TestTopK(t *testing.T) {
	st := openLocal(t)
	var docs []doc
	for i := range 60 {
		docs = append(docs, doc{ID: hs.FileID(100 + i), Path: fmt.Sprintf("/Logs/day %02d.md", i), Text: fmt.Sprintf("Shift log %d: the pump ran for %d hours without alarms.", i, i%24)})
	}
	mustIndex(t, st, docs...)
	svc := mustService(t, st)
	if got := len(mustSearch(t, svc, "alice", hs.SearchRequest{Query: "pump shift log"}).Results); got != search.DefaultTopK {
		t.Errorf("default page has %d results, want %d", got, search.DefaultTopK)
	}
	if got := len(mustSearch(t, svc, "alice", hs.SearchRequest{Query: "pump shift log", TopK: 3}).Results); got != 3 {
		t.Errorf("top_k 3 gave %d results", got)
	}
	if got := len(mustSearch(t, svc, "alice", hs.SearchRequest{Query: "pump shift log", TopK: 50}).Results); got != 50 {
		t.Errorf("top_k 50 gave %d results, want a full page", got)
	}
}

// recordingStore wraps a store and records the filters and users it is
// asked with; Fail, if set, fails the named leg ("dense", "bm25", "trigram").
type recordingStore struct {
	testStore
	mu    sync.Mutex
	calls []storeCall
	fail  map[string]error
}

type storeCall struct {
	leg    string
	user   hs.UserID
	k      int
	filter hs.Filter
}

func (r *recordingStore) record(leg string, user hs.UserID, k int, f hs.Filter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, storeCall{leg, user, k, f})
	return r.fail[leg]
}

func (r *recordingStore) SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error) {
	if err := r.record("dense", user, k, f); err != nil {
		return nil, err
	}
	return r.testStore.SearchDense(ctx, user, vec, k, f)
}

func (r *recordingStore) SearchSparse(ctx context.Context, user hs.UserID, vector string, q hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error) {
	if err := r.record(vector, user, k, f); err != nil {
		return nil, err
	}
	return r.testStore.SearchSparse(ctx, user, vector, q, k, f)
}

func (r *recordingStore) recorded() []storeCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func TestFilters(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := &recordingStore{testStore: kind.open(t)}
			mustIndex(t, st, sampleDocs...)
			svc := mustService(t, st)
			tests := []struct {
				name   string
				filter hs.Filter
				want   []hs.FileID // in any order
			}{
				{"notes", hs.Filter{Types: []hs.DocType{hs.DocNote}}, []hs.FileID{2}},
				{"files", hs.Filter{Types: []hs.DocType{hs.DocFile}}, []hs.FileID{1, 3, 4}},
				{"mime", hs.Filter{MIMEs: []string{"text/csv"}}, []hs.FileID{3}},
				{"path prefix", hs.Filter{PathPrefix: "/Engineering"}, []hs.FileID{1, 4}},
				{"path prefix is per folder", hs.Filter{PathPrefix: "/Engin"}, nil},
				{"modified after", hs.Filter{ModifiedAfter: baseTime}, []hs.FileID{4}},
				{"modified before", hs.Filter{ModifiedBefore: baseTime}, []hs.FileID{3}},
				{"range", hs.Filter{ModifiedAfter: baseTime.AddDate(0, -7, 0), ModifiedBefore: baseTime.Add(time.Second)}, []hs.FileID{1, 2, 3}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					before := len(st.recorded())
					res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade kettle budget", Filter: tt.filter})
					got := ids(res)
					slices.Sort(got)
					if !slices.Equal(got, tt.want) {
						t.Errorf("filter %+v found %v, want %v", tt.filter, got, tt.want)
					}
					calls := st.recorded()[before:]
					if len(calls) != 3 {
						t.Fatalf("%d store calls, want 3 (one per leg)", len(calls))
					}
					for _, c := range calls {
						if c.user != "alice" || c.k != 30 || !filterEqual(c.filter, tt.filter) {
							t.Errorf("leg %s asked with user %q k %d filter %+v", c.leg, c.user, c.k, c.filter)
						}
					}
				})
			}
		})
	}
}

func filterEqual(a, b hs.Filter) bool {
	return slices.Equal(a.Types, b.Types) && slices.Equal(a.MIMEs, b.MIMEs) && a.PathPrefix == b.PathPrefix &&
		a.ModifiedAfter.Equal(b.ModifiedAfter) && a.ModifiedBefore.Equal(b.ModifiedBefore)
}

// failingEmbedder fails every query with err.
type failingEmbedder struct{ err error }

func (f failingEmbedder) EmbedQuery(context.Context, string) ([]float32, error) { return nil, f.err }

func TestDegradedMode(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	down := hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama at http://gpu1:11434 is unreachable")
	tests := []struct {
		name   string
		embed  search.QueryEmbedder
		reason string
	}{
		{"embedder unavailable", failingEmbedder{down}, "unavailable: embedding: ollama at http://gpu1:11434 is unreachable"},
		{"no embedder", nil, "semantic search is off: no embedding model is configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := mustService(t, st, func(o *search.Options) { o.Embedder = tt.embed })
			res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kuberntes upgrade", Explain: true})
			want := []hs.SkippedLeg{{Leg: hs.AlgorithmSemantic, Reason: tt.reason}}
			if !slices.Equal(res.Skipped, want) {
				t.Errorf("skipped %+v, want %+v", res.Skipped, want)
			}
			if len(res.Results) == 0 || res.Results[0].FileID != 1 {
				t.Fatalf("keyword and fuzzy found %v, want 1 first", ids(res))
			}
			for _, r := range res.Results {
				if _, ok := r.Explain.Legs[hs.AlgorithmSemantic]; ok {
					t.Errorf("result %d has a semantic rank", r.FileID)
				}
			}
			// Relevance is measured against the legs that ran.
			if res.Results[0].Relevance != 1 {
				t.Errorf("relevance %v of the document both remaining legs rank first, want 1", res.Results[0].Relevance)
			}
			_, err := svc.Search(t.Context(), "alice", hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmSemantic})
			if hs.ErrorKind(err) != hs.EUNAVAILABLE || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("semantic-only search = %v, want EUNAVAILABLE with the reason", err)
			}
		})
	}
}

// TestDegradedOllama takes the real Ollama client through an outage of the
// fake Ollama server: hybrid keeps answering, and recovers the semantic
// leg when the server is back.
func TestDegradedOllama(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	ollama, err := embedding.NewOllama(embedding.OllamaOptions{Hosts: []string{srv.URL}, Model: "nomic-embed-text", Timeout: 5 * time.Second, HostCooldown: time.Millisecond, QueryCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = ollama })

	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade"})
	if len(res.Skipped) != 0 {
		t.Fatalf("skipped %+v with Ollama up", res.Skipped)
	}
	reqs := srv.EmbedRequests()
	if len(reqs) == 0 || !strings.HasPrefix(reqs[len(reqs)-1].Inputs[0], "search_query: ") {
		t.Errorf("query sent without nomic's query prefix: %+v", reqs)
	}
	srv.Down()
	res = mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade"})
	if len(res.Skipped) != 1 || res.Skipped[0].Leg != hs.AlgorithmSemantic || !strings.HasPrefix(res.Skipped[0].Reason, "unavailable: ") {
		t.Errorf("skipped %+v, want the semantic leg, unavailable", res.Skipped)
	}
	if len(res.Results) == 0 || res.Results[0].FileID != 1 {
		t.Errorf("results during the outage: %v", ids(res))
	}
	srv.Up()
	res = mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade"})
	if len(res.Skipped) != 0 {
		t.Errorf("skipped %+v after Ollama came back", res.Skipped)
	}
}

func TestStoreFailures(t *testing.T) {
	st := &recordingStore{testStore: openLocal(t), fail: map[string]error{}}
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	st.fail["bm25"] = hs.Errorf(hs.EUNAVAILABLE, "store: qdrant: deadline exceeded")
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes"})
	if len(res.Skipped) != 1 || res.Skipped[0].Leg != hs.AlgorithmKeyword || !strings.Contains(res.Skipped[0].Reason, "deadline exceeded") {
		t.Errorf("skipped %+v, want the keyword leg", res.Skipped)
	}
	if len(res.Results) == 0 {
		t.Error("no results from the other legs")
	}
	st.fail["dense"] = errors.New("boom")
	st.fail["trigram"] = hs.Errorf(hs.EINTERNAL, "store: bad trigram")
	_, err := svc.Search(t.Context(), "alice", hs.SearchRequest{Query: "kubernetes"})
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || !strings.Contains(err.Error(), "keyword: unavailable") || !strings.Contains(err.Error(), "semantic: internal error") {
		t.Errorf("all legs failing = %v, want EUNAVAILABLE naming each", err)
	}
}

func TestCancelled(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := svc.Search(ctx, "alice", hs.SearchRequest{Query: "kubernetes"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestNoTermsQuery(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	// Punctuation only: keyword and fuzzy have nothing to look up, the
	// semantic leg still answers.
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "?!", Explain: true})
	if len(res.Skipped) != 0 {
		t.Errorf("skipped %+v", res.Skipped)
	}
	for _, r := range res.Results {
		if r.Relevance > 0.5+1e-9 {
			t.Errorf("relevance %v above what the semantic leg alone can give", r.Relevance)
		}
	}
}

func TestDeterministic(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	req := hs.SearchRequest{Query: "upgrade", Explain: true}
	first := mustSearch(t, svc, "alice", req)
	for range 20 {
		again := mustSearch(t, svc, "alice", req)
		if !slices.Equal(ids(again), ids(first)) {
			t.Fatalf("order changed: %v then %v", ids(first), ids(again))
		}
	}
}
