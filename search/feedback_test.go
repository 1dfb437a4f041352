package search_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

// jaguarDocs: five pages about the animal, with "jaguar" and "speed";
// one about the animal that never says "jaguar" (60); one about cars that
// says "speed" twice (70). The first round ranks the car page above the
// unnamed animal page; the words the five animal pages share (cat,
// rainforest, predator, prey) put the animal page first.
var jaguarDocs = func() []doc {
	var out []doc
	for i := range 5 {
		out = append(out, doc{ID: hs.FileID(50 + i), Path: fmt.Sprintf("/Wildlife/Jaguar %d.md", i),
			Text: fmt.Sprintf("Field note %d. The jaguar is a big cat of the rainforest, a predator that stalks its prey and attacks with great speed.", i)})
	}
	return append(out,
		doc{ID: 60, Path: "/Wildlife/Hunters.md", Text: "The big cat of the rainforest is a patient predator: it waits for its prey, then strikes at speed."},
		doc{ID: 70, Path: "/Garage/Road test.md", Text: "Road test: the engine reaches top speed quickly, and the speed limiter cuts in on the motorway."},
	)
}()

func yes() *bool { t := true; return &t }
func no() *bool  { f := false; return &f }

// TestFeedbackReranks: asked for, feedback adds the words the first
// round's best pages share and ranks the keyword leg's candidates by the
// expanded query; the relevance of a page still says how much of the
// query itself it holds.
func TestFeedbackReranks(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			mustIndex(t, st, jaguarDocs...)
			fb := fiveDocs()
			svc := mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, &fb })
			for _, alg := range []string{hs.AlgorithmKeyword, hs.AlgorithmHybrid} {
				req := hs.SearchRequest{Query: "jaguar speed", Algorithm: alg, Explain: true}
				req.Feedback = no()
				before := mustSearch(t, svc, "alice", req)
				req.Feedback = yes()
				after := mustSearch(t, svc, "alice", req)
				if len(before.Expanded) != 0 {
					t.Errorf("%s: feedback forbidden, yet expanded with %v", alg, before.Expanded)
				}
				for _, w := range []string{"cat", "rainforest", "predator", "prey"} {
					if !slices.Contains(after.Expanded, w) {
						t.Errorf("%s: expanded with %v, want %q among them", alg, after.Expanded, w)
					}
				}
				for _, w := range after.Expanded {
					if strings.ContainsAny(w, "0123456789") {
						t.Errorf("%s: expanded with the code %q", alg, w)
					}
				}
				if at := func(res hs.SearchResult, id hs.FileID) int { return slices.Index(ids(res), id) }; !(at(before, 70) < at(before, 60)) || !(at(after, 60) < at(after, 70)) {
					t.Errorf("%s: without feedback %v, with %v; want 70 above 60 without, 60 above 70 with", alg, ids(before), ids(after))
				}
				if rb, ra := relevanceOf(before, 60), relevanceOf(after, 60); rb != ra {
					t.Errorf("%s: relevance of 60 is %v without feedback, %v with; it says how much of the query the page holds", alg, rb, ra)
				}
			}
		})
	}
}

// fiveDocs returns the default feedback from five documents, as many as
// jaguarDocs has about the animal.
func fiveDocs() search.Feedback {
	fb := search.DefaultFeedback()
	fb.Docs = 5
	return fb
}

// relevanceOf returns the relevance of file id in res, or -1.
func relevanceOf(res hs.SearchResult, id hs.FileID) float64 {
	for _, r := range res.Results {
		if r.FileID == id {
			return r.Relevance
		}
	}
	return -1
}

// TestFeedbackSkipped: feedback does not run for a query with an
// identifier or a quoted phrase (looked for verbatim, never expanded),
// when the first round is weak (its best page matches less of the query
// than MinMatch), when it has fewer candidate files than feedback
// documents, by default, or when Options turn it off.
func TestFeedbackSkipped(t *testing.T) {
	docs := append(slices.Clone(jaguarDocs),
		doc{ID: 80, Path: "/Wildlife/Form D40.md", Text: "Form D40: jaguar sightings with speed and place, filed by the rangers."})
	st := openLocal(t)
	mustIndex(t, st, docs...)
	five := fiveDocs()
	strict := fiveDocs()
	strict.MinMatch = 0.9
	many := fiveDocs()
	many.Docs = 20
	for _, tc := range []struct {
		name  string
		fb    *search.Feedback
		query string
		ask   *bool
	}{
		{"identifier", &five, "jaguar speed D40", yes()},
		{"phrase", &five, `"big cat" speed`, yes()},
		{"weak first round", &strict, "jaguar speed zebra giraffe", yes()},
		{"too few files", &many, "jaguar speed", yes()},
		{"default", &five, "jaguar speed", nil},
		{"off", &search.Feedback{}, "jaguar speed", yes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, tc.fb })
			res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: tc.query, Feedback: tc.ask, Explain: true, IncludeWeak: true})
			if len(res.Expanded) != 0 {
				t.Errorf("%q expanded with %v", tc.query, res.Expanded)
			}
			if len(res.Results) == 0 {
				t.Errorf("%q found nothing", tc.query)
			}
		})
	}
	// The same query runs feedback when nothing stops it.
	svc := mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, &five })
	if res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "jaguar speed", Feedback: yes(), Explain: true}); len(res.Expanded) == 0 {
		t.Error("feedback did not run for an ordinary query")
	}
}

// TestFeedbackIsolation: feedback reads only the searching user's own
// results. Bob's pages match alice's query better than hers and share a
// word of their own; on both stores, alice's expanded query never holds
// it, she never sees his pages, and the same holds the other way round.
func TestFeedbackIsolation(t *testing.T) {
	var docs []doc
	for i := range 4 {
		docs = append(docs, doc{ID: hs.FileID(100 + i), Path: fmt.Sprintf("/Alice/Jaguar %d.md", i), Readers: []hs.UserID{"alice"},
			Text: fmt.Sprintf("Alice's note %d: the jaguar, a rainforest cat, hunts at speed.", i)})
		docs = append(docs, doc{ID: hs.FileID(200 + i), Path: fmt.Sprintf("/Bob/Jaguar %d.md", i), Readers: []hs.UserID{"bob"},
			Text: fmt.Sprintf("Bob's note %d: jaguar jaguar speed speed, zorblax zorblax zorblax quintessa.", i)})
	}
	docs = append(docs, doc{ID: 300, Path: "/Shared/Jaguar.md", Readers: []hs.UserID{"alice", "bob"}, Text: "Shared: the jaguar and its speed."})
	own := map[hs.UserID][]string{"alice": {"rainforest", "cat", "hunts"}, "bob": {"zorblax", "quintessa"}}
	fb := search.DefaultFeedback()
	fb.Docs = 3
	for _, kind := range []string{"local", "qdrant"} {
		t.Run(kind, func(t *testing.T) {
			st := openLocal(t)
			if kind == "qdrant" {
				st = openQdrant(t)
			}
			mustIndex(t, st, docs...)
			svc := mustService(t, st, func(o *search.Options) { o.Feedback = &fb })
			for user, other := range map[hs.UserID]hs.UserID{"alice": "bob", "bob": "alice"} {
				for _, req := range []hs.SearchRequest{{}, {Algorithm: hs.AlgorithmKeyword}, {Fusion: hs.FusionLinear}} {
					req.Query, req.Feedback, req.Explain = "jaguar speed", yes(), true
					res := mustSearch(t, svc, user, req)
					if len(res.Expanded) == 0 {
						t.Fatalf("%s %+v: feedback did not run", user, req)
					}
					for _, w := range own[other] {
						if slices.Contains(res.Expanded, w) {
							t.Errorf("%s's query was expanded with %s's word %q: %v", user, other, w, res.Expanded)
						}
					}
					for _, r := range res.Results {
						if r.FileID != 300 && (r.FileID >= 200) != (user == "bob") {
							t.Errorf("%s got file %d", user, r.FileID)
						}
					}
				}
			}
		})
	}
}

// failingTerms is a TermReader that cannot read.
type failingTerms struct{}

func (failingTerms) ReadTerms(context.Context, hs.UserID, []hs.Hit) ([]hs.Hit, error) {
	return nil, errors.New("store unreachable")
}

// TestFeedbackTerms: feedback reads its chunks' stored term weights
// (Options.Terms) and, without them, analyses the chunks' text again to
// the same vectors: the same ranking and expansion either way. When the
// terms cannot be read, the search answers with the first round.
func TestFeedbackTerms(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			mustIndex(t, st, jaguarDocs...)
			fb := fiveDocs()
			req := hs.SearchRequest{Query: "jaguar speed", Algorithm: hs.AlgorithmKeyword, Explain: true, Feedback: yes()}
			stored := mustSearch(t, mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, &fb }), "alice", req)
			analysed := mustSearch(t, mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback, o.Terms = nil, &fb, nil }), "alice", req)
			if !slices.Equal(ids(stored), ids(analysed)) || !slices.Equal(stored.Expanded, analysed.Expanded) || len(stored.Expanded) == 0 {
				t.Errorf("stored terms: %v expanded %v; analysed: %v expanded %v; want the same, expanded", ids(stored), stored.Expanded, ids(analysed), analysed.Expanded)
			}
			failing := mustSearch(t, mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback, o.Terms = nil, &fb, failingTerms{} }), "alice", req)
			req.Feedback = no()
			first := mustSearch(t, mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, &fb }), "alice", req)
			if !slices.Equal(ids(failing), ids(first)) || len(failing.Expanded) != 0 {
				t.Errorf("terms unreadable: %v expanded %v; want the first round %v, not expanded", ids(failing), failing.Expanded, ids(first))
			}
		})
	}
}
