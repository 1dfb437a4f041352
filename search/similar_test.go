package search_test

import (
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

func mustSimilar(tb testing.TB, st testStore, change ...func(*search.Options)) *search.Similar {
	tb.Helper()
	vr, ok := st.(search.VectorReader)
	if !ok {
		tb.Fatalf("%T does not read vectors", st)
	}
	m, err := search.NewSimilar(mustService(tb, st, change...), vr)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// similarDocs are two documents on each of three topics.
var similarDocs = []doc{
	{ID: 1, Path: "/Ops/Kubernetes upgrade.md", Text: "# Kubernetes upgrade\n\nDrain each node, upgrade the kubelet, uncordon the node, watch the pods of the cluster."},
	{ID: 2, Path: "/Ops/Cluster runbook.md", Text: "# Cluster runbook\n\nWhen a kubernetes node fails, drain it, check the kubelet and the pods, then uncordon the node."},
	{ID: 3, Path: "/Kitchen/Apple pie.md", Text: "# Apple pie\n\nMix flour, butter and sugar, slice the apples, bake the pie for forty minutes."},
	{ID: 4, Path: "/Kitchen/Crumble.md", Text: "# Apple crumble\n\nSlice apples, rub flour, butter and sugar to a crumble, bake for thirty minutes."},
	{ID: 5, Path: "/Money/Budget.md", Text: "# Budget 2025\n\nQuarterly budget: invoices, salaries, taxes and the travel budget."},
	{ID: 6, Path: "/Money/Invoices.md", Text: "# Invoices\n\nPay invoices monthly; taxes and salaries follow the budget plan."},
}

func simIDs(res hs.SimilarResult) []hs.FileID {
	var out []hs.FileID
	for _, r := range res.Results {
		out = append(out, r.FileID)
	}
	return out
}

func TestSimilarFindsTheSameTopic(t *testing.T) {
	for _, k := range storeKinds {
		for _, space := range []string{hs.SpaceSemantic, hs.SpaceKeyword} {
			t.Run(k.name+"/"+space, func(t *testing.T) {
				st := k.open(t)
				mustIndex(t, st, similarDocs...)
				m := mustSimilar(t, st, func(o *search.Options) {
					if space == hs.SpaceKeyword {
						o.Embedder = nil
					}
				})
				for _, pair := range [][2]hs.FileID{{1, 2}, {2, 1}, {3, 4}, {4, 3}, {5, 6}, {6, 5}} {
					res, err := m.Similar(t.Context(), "alice", []hs.FileID{pair[0]}, 3)
					if err != nil {
						t.Fatalf("Similar(%d) = %v", pair[0], err)
					}
					got := simIDs(res)
					if len(got) == 0 || got[0] != pair[1] {
						t.Errorf("Similar(%d) = %v, want %d first", pair[0], got, pair[1])
					}
					if slices.Contains(got, pair[0]) {
						t.Errorf("Similar(%d) lists the file itself: %v", pair[0], got)
					}
					// Another topic is no neighbour: an apple pie is not
					// like a runbook (issue 23), whatever the space.
					if len(got) != 1 {
						t.Errorf("Similar(%d) = %v, want only %d; weak %d: %v", pair[0], got, pair[1], res.WeakCount, res.Weaker)
					}
					if res.Space != space || len(res.Sources) != 1 || res.Sources[0].FileID != pair[0] || res.Sources[0].Link == "" {
						t.Errorf("space %q sources %+v", res.Space, res.Sources)
					}
					if (space == hs.SpaceKeyword) != (res.Note != "") {
						t.Errorf("space %s with note %q", space, res.Note)
					}
					if want := map[string]string{hs.SpaceKeyword: hs.SimilarNoteSemanticOff}[space]; res.NoteCode != want {
						t.Errorf("space %s with note code %q, want %q", space, res.NoteCode, want)
					}
					for i, r := range res.Results {
						if r.Relevance <= 0 || r.Relevance > 1 || (i > 0 && r.Relevance > res.Results[i-1].Relevance) {
							t.Errorf("relevances %v", res.Results)
						}
						if len(r.Excerpt.Highlights) > 0 {
							t.Errorf("result %d has highlights: a similar search has no query terms", r.FileID)
						}
					}
				}
				// Two sources: both left out, the rest ranked by both.
				res, err := m.Similar(t.Context(), "alice", []hs.FileID{1, 3}, 4)
				if err != nil {
					t.Fatal(err)
				}
				if got := simIDs(res); slices.Contains(got, 1) || slices.Contains(got, 3) || !slices.Contains(got[:2], 2) || !slices.Contains(got[:2], 4) {
					t.Errorf("Similar(1, 3) = %v, want 2 and 4 first", got)
				}
			})
		}
	}
}

// TestSimilarIsolation: a similar search never starts from a file the
// user cannot read and never returns one, on both stores and spaces.
func TestSimilarIsolation(t *testing.T) {
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) {
			st := k.open(t)
			mustIndex(t, st, isolationDocs...)
			for _, space := range []string{hs.SpaceSemantic, hs.SpaceKeyword} {
				m := mustSimilar(t, st, func(o *search.Options) {
					if space == hs.SpaceKeyword {
						o.Embedder = nil
					}
				})
				for _, user := range []hs.UserID{"alice", "bob", "carol"} {
					allowed := readable(user)
					for _, d := range isolationDocs {
						res, err := m.Similar(t.Context(), user, []hs.FileID{d.ID}, hs.DefaultSearchRules().MaxTopK)
						if !allowed[d.ID] {
							if hs.ErrorKind(err) != hs.ENOTFOUND || len(res.Results) > 0 {
								t.Errorf("%s: Similar(%d) of a file they cannot read = %d results, %v; want ENOTFOUND", user, d.ID, len(res.Results), err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("%s: Similar(%d) = %v", user, d.ID, err)
						}
						for _, r := range res.Results {
							if !allowed[r.FileID] || r.FileID == d.ID {
								t.Errorf("%s: Similar(%d) returns file %d", user, d.ID, r.FileID)
							}
							if other := otherCode(user); other != "" && strings.Contains(r.Excerpt.Text, other) {
								t.Errorf("%s: an excerpt shows %s", user, other)
							}
						}
					}
					// A readable source with an unreadable one: only the readable counts.
					if user == "bob" {
						res, err := m.Similar(t.Context(), "bob", []hs.FileID{11, 21}, 5)
						if err != nil || len(res.Sources) != 1 || res.Sources[0].FileID != 21 {
							t.Errorf("bob: Similar(11, 21) sources %+v, %v; want only 21", res.Sources, err)
						}
					}
				}
			}
		})
	}
}

// TestSimilarNoteFilesWithoutEmbeddings: with a model but sources the
// model has not reached yet, the words are compared and the note (and its
// code) says why.
func TestSimilarNoteFilesWithoutEmbeddings(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, similarDocs[1:]...)
	mustIndex(t, withoutEmbeddings{st}, similarDocs[0])
	res, err := mustSimilar(t, st).Similar(t.Context(), "alice", []hs.FileID{1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "These files have no embeddings yet, so their words were compared (keyword search)."
	if res.Space != hs.SpaceKeyword || res.Note != want || res.NoteCode != hs.SimilarNoteNoEmbeddings {
		t.Errorf("space %q, note %q (code %q); want keyword, %q (%q)", res.Space, res.Note, res.NoteCode, want, hs.SimilarNoteNoEmbeddings)
	}
	if got := simIDs(res); len(got) == 0 || got[0] != 2 {
		t.Errorf("Similar(1) = %v, want 2 first", got)
	}
}

func TestSimilarDropsLostFilesAndRejectsBadInput(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, similarDocs...)
	access := &fakeAccess{}
	m := mustSimilar(t, st, func(o *search.Options) { o.Access = access })
	access.set("alice", 2, hs.Errorf(hs.ENOTFOUND, "gone"))
	res, err := m.Similar(t.Context(), "alice", []hs.FileID{1}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(simIDs(res), 2) || res.Verification.Dropped != 1 {
		t.Errorf("lost file 2 returned, or not counted: %v %+v", simIDs(res), res.Verification)
	}
	access.set("alice", 1, hs.Errorf(hs.ENOTFOUND, "gone"))
	if _, err := m.Similar(t.Context(), "alice", []hs.FileID{1}, 5); hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("source the user lost: %v, want ENOTFOUND", err)
	}
	many := make([]hs.FileID, search.MaxSimilarSources+1)
	for _, c := range []struct {
		name string
		user hs.UserID
		ids  []hs.FileID
		topK int
		want string
	}{
		{"no user", "", []hs.FileID{3}, 0, hs.EINVALID},
		{"no ids", "alice", nil, 0, hs.EINVALID},
		{"too many ids", "alice", many, 0, hs.EINVALID},
		{"top_k too big", "alice", []hs.FileID{3}, hs.DefaultSearchRules().MaxTopK + 1, hs.EINVALID},
		{"not indexed", "alice", []hs.FileID{999}, 0, hs.ENOTFOUND},
	} {
		if _, err := m.Similar(t.Context(), c.user, c.ids, c.topK); hs.ErrorKind(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, similarDocs...)
	svc := mustService(t, st)
	if d := svc.Defaults(); d.Fusion != hs.FusionRRF || d.Weights != hs.DefaultWeights {
		t.Errorf("built-in defaults %+v", d)
	}
	for _, c := range []struct {
		name string
		d    search.Defaults
		ok   bool
	}{
		{"linear", search.Defaults{Fusion: hs.FusionLinear, Weights: hs.Weights{Semantic: 0.2, Keyword: 0.7, Fuzzy: 0.1}}, true},
		{"sum above 1", search.Defaults{Fusion: hs.FusionRRF, Weights: hs.Weights{Semantic: 0.9, Keyword: 0.9}}, false},
		{"auto with weights", search.Defaults{Fusion: hs.FusionAuto, Weights: hs.Weights{Keyword: 1}}, false},
		{"unknown fusion", search.Defaults{Fusion: "max"}, false},
	} {
		if err := svc.SetDefaults(c.d); (err == nil) != c.ok {
			t.Errorf("%s: SetDefaults = %v", c.name, err)
		}
	}
	// The rules in force carry the admin's defaults; their limits stay.
	if r := svc.Rules(); r.Defaults.Fusion != hs.FusionLinear || r.Defaults.Weights != (hs.Weights{Semantic: 0.2, Keyword: 0.7, Fuzzy: 0.1}) || r.MaxTopK != hs.DefaultSearchRules().MaxTopK {
		t.Errorf("rules after SetDefaults: %+v", r)
	}
	req := hs.SearchRequest{Query: "kubernetes node"}
	res := mustSearch(t, svc, "alice", req)
	if res.Fusion != hs.FusionLinear || res.Weights != (hs.Weights{Semantic: 0.2, Keyword: 0.7, Fuzzy: 0.1}) {
		t.Errorf("a request without fusion and weights got %s %+v, want the defaults", res.Fusion, res.Weights)
	}
	own := hs.Weights{Semantic: 1}
	if res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes node", Fusion: hs.FusionRRF, Weights: &own}); res.Fusion != hs.FusionRRF || res.Weights != own {
		t.Errorf("a request's own fusion and weights were overridden: %s %+v", res.Fusion, res.Weights)
	}
	if err := svc.SetDefaults(search.Defaults{Fusion: hs.FusionAuto}); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, svc, "alice", req); res.Fusion != hs.FusionAuto {
		t.Errorf("fusion %s, want auto", res.Fusion)
	}
	// Weights without a fusion under an auto default: rrf with those weights.
	if res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes node", Weights: &own}); res.Fusion != hs.FusionRRF || res.Weights != own {
		t.Errorf("weights under an auto default: %s %+v", res.Fusion, res.Weights)
	}
	// Unset defaults are the rules' own again.
	if err := svc.SetDefaults(search.Defaults{}); err != nil {
		t.Fatal(err)
	}
	if d := svc.Defaults(); d.Fusion != hs.FusionRRF || d.Weights != hs.DefaultWeights {
		t.Errorf("defaults after a reset %+v", d)
	}
}
