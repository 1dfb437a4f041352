package search_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/search"
)

// recordingStore wraps a store and records the users, k and filters it is
// asked with; an error in fail makes the named leg ("dense", "bm25",
// "trigram") fail with it.
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
						if c.user != "alice" || c.k != 100 || !filterEqual(c.filter, tt.filter) {
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
		code   string
		reason string
	}{
		{"embedder unavailable", failingEmbedder{down}, hs.SkipEmbedderUnavailable, "unavailable: embedding: ollama at [internal address] is unreachable"},
		{"embedder refuses", failingEmbedder{hs.Errorf(hs.EINVALID, "embedding: model \"llama3\" is not an embedding model")}, hs.SkipEmbedderError, "embedding: model \"llama3\" is not an embedding model"},
		{"embedder timed out", failingEmbedder{hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama embed on gpu1: timed out: %w", context.DeadlineExceeded)}, hs.SkipTimeout, "unavailable: embedding: ollama embed on gpu1: timed out: context deadline exceeded"},
		{"no embedder", nil, hs.SkipSemanticOff, "semantic search is off: no embedding model is configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := mustService(t, st, func(o *search.Options) { o.Embedder = tt.embed })
			res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kuberntes upgrade", Explain: true})
			want := []hs.SkippedLeg{{Leg: hs.AlgorithmSemantic, Code: tt.code, Reason: tt.reason}}
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
			// Semantic alone: worth a retry when the embedder is down, not
			// when there is none.
			wantKind := hs.EUNAVAILABLE
			if tt.code == hs.SkipEmbedderError {
				return
			}
			if tt.embed == nil {
				wantKind = hs.EINVALID
			}
			_, err := svc.Search(t.Context(), "alice", hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmSemantic})
			if hs.ErrorKind(err) != wantKind || !strings.Contains(hs.RedactEndpoints(err.Error()), tt.reason) {
				t.Errorf("semantic-only search = %v, want %s with the reason", err, wantKind)
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
	if !slices.ContainsFunc(reqs, func(r embeddingtest.Request) bool {
		return len(r.Inputs) == 1 && r.Inputs[0] == "search_query: kubernetes upgrade"
	}) {
		t.Errorf("query sent without nomic's query prefix: %+v", reqs)
	}
	srv.Down()
	res = mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade"})
	if len(res.Skipped) != 1 || res.Skipped[0].Leg != hs.AlgorithmSemantic || res.Skipped[0].Code != hs.SkipEmbedderUnavailable || !strings.HasPrefix(res.Skipped[0].Reason, "unavailable: ") {
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
	if len(res.Skipped) != 1 || res.Skipped[0].Leg != hs.AlgorithmKeyword || res.Skipped[0].Code != hs.SkipTimeout || !strings.Contains(res.Skipped[0].Reason, "deadline exceeded") {
		t.Errorf("skipped %+v, want the keyword leg, timeout", res.Skipped)
	}
	for _, tt := range []struct {
		fail error
		code string
	}{
		{hs.Errorf(hs.EUNAVAILABLE, "store: qdrant search: qdrant is unavailable"), hs.SkipStoreUnavailable},
		{hs.Errorf(hs.EINTERNAL, "store: qdrant search: failed"), hs.SkipStoreError},
		{errors.New("boom"), hs.SkipStoreError},
	} {
		st.fail["bm25"] = tt.fail
		st.fail["dense"] = tt.fail
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes"})
		if len(res.Skipped) != 2 || res.Skipped[0].Code != tt.code || res.Skipped[1].Code != tt.code {
			t.Errorf("store failing with %v: skipped %+v, want semantic and keyword, %s", tt.fail, res.Skipped, tt.code)
		}
	}
	st.fail["bm25"] = hs.Errorf(hs.EUNAVAILABLE, "store: qdrant: deadline exceeded")
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

// TestQueryNoLegCanUse: without an embedding model, a query that the
// keyword and fuzzy legs cannot use (punctuation, an emoji, a word no
// document holds) is a valid search with no results and a reason, not a
// failure to retry (issue 23: 503 for 東京, !!! and emoji). When the
// semantic leg only failed for now, the answer is the same, with the leg
// listed as skipped: the other legs did look.
func TestQueryNoLegCanUse(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	down := failingEmbedder{hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama is unreachable")}
	for _, embed := range []search.QueryEmbedder{nil, down} {
		svc := mustService(t, st, func(o *search.Options) { o.Embedder = embed })
		for _, tt := range []struct{ q, code string }{
			{"東京", hs.ReasonUnknownWords},
			{"!!!", hs.ReasonNothingToSearch},
			{"😀", hs.ReasonNothingToSearch},
		} {
			for _, algo := range []string{hs.AlgorithmHybrid, hs.AlgorithmKeyword} {
				res, err := svc.Search(t.Context(), "alice", hs.SearchRequest{Query: tt.q, Algorithm: algo})
				if err != nil {
					t.Errorf("embedder %v: %s %q = %v, want no results and a reason", embed, algo, tt.q, err)
					continue
				}
				if len(res.Results) != 0 || res.ReasonCode != tt.code || res.Reason == "" {
					t.Errorf("embedder %v: %s %q = %v, reason %q (%q), want none with %q", embed, algo, tt.q, ids(res), res.ReasonCode, res.Reason, tt.code)
				}
			}
		}
		// A word the fuzzy leg looked for: an ordinary empty result, no
		// reason (keyword alone has none to look up: unknown words).
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "zzqxxvq"})
		if len(res.Results) != 0 || res.ReasonCode != "" {
			t.Errorf("embedder %v: hybrid %q = %v, reason %q, want none without a reason", embed, "zzqxxvq", ids(res), res.ReasonCode)
		}
	}
}
