package search_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// fixtureDocs returns the documents of every relevance fixture.
func fixtureDocs(t *testing.T) []doc {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join("testdata", "relevance", "*"))
	var all []doc
	for _, dir := range dirs {
		var docs []doc
		mustReadJSON(t, filepath.Join(dir, "docs.json"), &docs)
		all = append(all, docs...)
	}
	return all
}

// lexicalRequests are the requests of the nonsense and stability tests:
// each lexical algorithm and every fusion over keyword and fuzzy.
var lexicalRequests = []hs.SearchRequest{
	{Algorithm: hs.AlgorithmKeyword},
	{Algorithm: hs.AlgorithmFuzzy},
	{Fusion: hs.FusionRRF},
	{Fusion: hs.FusionLinear},
	{Fusion: hs.FusionAuto},
}

func reqName(r hs.SearchRequest) string {
	if r.Algorithm != "" {
		return r.Algorithm
	}
	return "hybrid " + r.Fusion
}

// TestNonsenseFindsNothing: words of random letters are in no document,
// as they are or within an edit or two, so no leg may return anything.
func TestNonsenseFindsNothing(t *testing.T) {
	// "budgat" is one edit from "budget", chance among random words.
	queries := append(qualitytest.RandomLetters(rand.New(rand.NewPCG(1, 2)), 20), "zzqxxv nothingmatches", "wdrhe mqstrxummy budgat")
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			mustIndex(t, st, append(fixtureDocs(t), sampleDocs...)...)
			svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil })
			for _, r := range lexicalRequests {
				for _, q := range queries {
					req := r
					req.Query = q
					if res := mustSearch(t, svc, "alice", req); len(res.Results) > 0 {
						t.Errorf("%s %q found %v", reqName(r), q, ids(res))
					}
				}
			}
		})
	}
}

// TestNonsenseWithSemantic: with the semantic leg on (the Deterministic
// embedder), random letters still find nothing: their nearest chunks do
// not stand out from the query's baseline over the user's chunks by
// semanticMinGap, while real queries keep their semantic hits.
func TestNonsenseWithSemantic(t *testing.T) {
	queries := append(qualitytest.RandomLetters(rand.New(rand.NewPCG(1, 2)), 20), "zzqxxv nothingmatches", "wdrhe mqstrxummy budgat")
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			mustIndex(t, st, append(fixtureDocs(t), sampleDocs...)...)
			svc := mustService(t, st)
			for _, r := range []hs.SearchRequest{{}, {Fusion: hs.FusionLinear}, {Fusion: hs.FusionAuto}, {Algorithm: hs.AlgorithmSemantic}} {
				for _, q := range queries {
					req := r
					req.Query = q
					if res := mustSearch(t, svc, "alice", req); len(res.Results) > 0 {
						t.Errorf("%s %q found %v", reqName(r), q, ids(res))
					}
				}
				req := r
				req.Query = "kubernetes cluster upgrade"
				if res := mustSearch(t, svc, "alice", req); len(res.Results) == 0 {
					t.Errorf("%s %q found nothing", reqName(r), req.Query)
				}
			}
		})
	}
}

// TestPagesAreStable: the first N results are the same whatever top_k ≥ N.
func TestPagesAreStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("budget report kubernetes upgrade cluster node policy release notes incident register form safety conveyor belt inspection travel expense meeting agenda recipe customer data retention server backup network storage invoice contract")
	var docs []doc
	for i := range 120 {
		var b strings.Builder
		for w := range 60 {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			if w%10 == 9 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		docs = append(docs, doc{ID: hs.FileID(1000 + i), Path: fmt.Sprintf("/Docs/%s %d.md", vocab[i%len(vocab)], i), Text: b.String()})
	}
	queries := []string{"budget report", "kubernetes cluster upgrade", "safety inspection form", "customer data retention", "kubernets upgrade", "travel", "\"release notes\" server"}
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			mustIndex(t, st, docs...)
			svc := mustService(t, st)
			for _, r := range append(lexicalRequests, hs.SearchRequest{}, hs.SearchRequest{Algorithm: hs.AlgorithmSemantic}) {
				for _, q := range queries {
					req := r
					req.Query = q
					var pages [][]hs.FileID
					for _, k := range []int{10, 20, 30, 50} {
						req.TopK = k
						pages = append(pages, ids(mustSearch(t, svc, "alice", req)))
					}
					for i := 1; i < len(pages); i++ {
						shorter := pages[i-1]
						if len(pages[i]) < len(shorter) || !slices.Equal(pages[i][:len(shorter)], shorter) {
							t.Errorf("%s %q: the top_k=%d page %v does not start with the smaller page %v", reqName(r), q, []int{10, 20, 30, 50}[i], pages[i], shorter)
						}
					}
				}
			}
		})
	}
}

// TestQuotedSingleWord: quotes around one word make no phrase, so the
// phrase boost does not apply and the results are those of the bare word.
func TestQuotedSingleWord(t *testing.T) {
	if got := analysis.ParseQuery(`"kubernetes" upgrade`).Phrases; len(got) != 0 {
		t.Errorf("phrases of a quoted single word: %v", got)
	}
	if got := analysis.ParseQuery(`"kubernetes upgrade"`).Phrases; len(got) != 1 {
		t.Errorf("phrases of a quoted pair: %v", got)
	}
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	quoted := mustSearch(t, svc, "alice", hs.SearchRequest{Query: `"upgrade"`, Explain: true})
	bare := mustSearch(t, svc, "alice", hs.SearchRequest{Query: `upgrade`, Explain: true})
	if !slices.Equal(ids(quoted), ids(bare)) {
		t.Errorf("quoted %v, bare %v", ids(quoted), ids(bare))
	}
	for _, r := range quoted.Results {
		if r.Explain.PhraseBoost {
			t.Errorf("file %d has the phrase boost for a quoted single word", r.FileID)
		}
	}
}

// TestTypoIsCorrected: an unknown word close to a word of the collection
// is looked up as that word by the keyword leg, so a typo finds what the
// right spelling finds, with a relevance that says it matches well.
func TestTypoIsCorrected(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil })
	typo := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kuberntes upgrade", Explain: true})
	right := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", Explain: true})
	if !slices.Equal(ids(typo), ids(right)) {
		t.Errorf("typo found %v, the right spelling %v", ids(typo), ids(right))
	}
	if len(typo.Results) == 0 || typo.Results[0].Relevance < 0.9 {
		t.Errorf("relevance of the best match of a corrected typo: %v", relevances(typo))
	}
}

// TestCorrectedWordIsNoFuzzyVote: once the keyword leg matches a typo by
// its correction, the fuzzy leg, which stands in for the words the keyword
// leg still does not know, no longer lists chunks it found only through
// that typo: the corrected word is not counted twice.
func TestCorrectedWordIsNoFuzzyVote(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil })
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kuberntes upgrade zzqxxv", Fusion: hs.FusionRRF, Explain: true})
	if len(res.Results) == 0 {
		t.Fatal("the corrected query found nothing")
	}
	for _, r := range res.Results {
		if r.Explain == nil {
			t.Fatalf("result %d has no explanation", r.FileID)
		}
		if _, ok := r.Explain.Legs[hs.AlgorithmFuzzy]; ok {
			t.Errorf("result %d (%q) counts a fuzzy vote for the corrected word: %+v", r.FileID, r.Title, r.Explain.Legs)
		}
	}
}
