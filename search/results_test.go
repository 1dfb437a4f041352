package search_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// identifierDocs: one document holds the identifier, others only parts of
// it, which the keyword leg still finds.
var identifierDocs = []doc{
	{ID: 1, Path: "/Engineering/Kubernetes upgrade runbook.md", Text: "# Kubernetes upgrade runbook\n\n## Known issues\n\nThe storage driver leaks file handles on node restart (incident PII-2024-0042)."},
	{ID: 2, Path: "/Notes/Year plan.md", Type: hs.DocNote, Text: "# Year plan\n\nThe 2024 plan: budget, hiring and the office move."},
	{ID: 3, Path: "/Finance/Incidents 2024.md", Text: "# Incidents 2024\n\nIncident PII-2024-0041 was closed in March."},
}

// TestWeakMatches: a document that only shares part of an identifier has
// a relevance near 0 (issue 23: relevance 0.00 listed for PII-2024-0042);
// it is a weak match, counted and left out of the results unless asked
// for, with the reason in its explanation.
func TestWeakMatches(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, identifierDocs...)
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil })
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "PII-2024-0042", Explain: true})
	if got := ids(res); !slices.Equal(got, []hs.FileID{1}) {
		t.Errorf("results %v (relevances %v), want only the document with the identifier", got, relevances(res))
	}
	if res.Total != 1 || res.WeakCount == 0 {
		t.Errorf("total %d weak %d, want 1 and some", res.Total, res.WeakCount)
	}
	all := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "PII-2024-0042", Explain: true, IncludeWeak: true})
	if len(all.Results) != 1+res.WeakCount || all.Results[0].FileID != 1 || all.Results[0].Weak {
		t.Fatalf("with weak matches: %v, want 1 first and %d weak after it", ids(all), res.WeakCount)
	}
	threshold := hs.DefaultSearchRules().WeakRelevance
	for _, r := range all.Results[1:] {
		if !r.Weak || r.Relevance >= threshold || r.Explain.WeakReason != hs.WeakLowRelevance || r.Explain.WeakThreshold != threshold {
			t.Errorf("weak result %d: weak %v relevance %v reason %q threshold %v", r.FileID, r.Weak, r.Relevance, r.Explain.WeakReason, r.Explain.WeakThreshold)
		}
	}
}

// queryOnly hides the test embedder's EmbedDocuments: an embedder the
// search cannot embed reference texts with.
type queryOnly struct{ embeddingtest.Deterministic }

func (q queryOnly) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return q.Deterministic.EmbedQuery(ctx, text)
}

// TestFewChunksRandomLetters: a user with fewer chunks than the baseline
// needs got results for random letters (issue 23: xqzvkwj → bob's note
// at 0.54). The reference texts calibrate the semantic leg instead; an
// embedder that cannot embed them leaves it uncalibrated, and what only it
// found is a weak match.
func TestFewChunksRandomLetters(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, doc{ID: 7, Path: "/Notes/Shopping.md", Readers: []hs.UserID{"bob"}, Text: "# Shopping\n\nMilk, bread and coffee for the weekend."})
	queries := append(qualitytest.RandomLetters(rand.New(rand.NewPCG(5, 6)), 10), "xqzvkwj")
	svc := mustService(t, st)
	for _, q := range queries {
		for _, algo := range []string{hs.AlgorithmHybrid, hs.AlgorithmSemantic} {
			if res := mustSearch(t, svc, "bob", hs.SearchRequest{Query: q, Algorithm: algo}); len(res.Results) > 0 {
				t.Errorf("%s %q found %v for a user with one note", algo, q, ids(res))
			}
		}
	}
	if res := mustSearch(t, svc, "bob", hs.SearchRequest{Query: "coffee and bread", Algorithm: hs.AlgorithmSemantic}); len(res.Results) != 1 {
		t.Errorf("semantic search for the note's words found %v", ids(res))
	}
	uncal := mustService(t, st, func(o *search.Options) { o.Embedder = queryOnly{} })
	res := mustSearch(t, uncal, "bob", hs.SearchRequest{Query: "xqzvkwj", Algorithm: hs.AlgorithmSemantic, Explain: true, IncludeWeak: true})
	if res.Total != 0 || len(res.Results) != res.WeakCount {
		t.Errorf("uncalibrated: total %d weak %d results %v, want weak matches only", res.Total, res.WeakCount, ids(res))
	}
	for _, r := range res.Results {
		if !r.Weak || r.Explain.WeakReason != hs.WeakUncalibrated || r.Relevance != 0 {
			t.Errorf("uncalibrated semantic match %d: weak %v reason %q relevance %v", r.FileID, r.Weak, r.Explain.WeakReason, r.Relevance)
		}
	}
}

// tilted is the test embedder with its vectors tilted towards one axis,
// so that its cosines crowd into 0.7–1.0 as an e5 model's do.
type tilted struct{ embeddingtest.Deterministic }

func (e tilted) tilt(v []float32) []float32 {
	out := slices.Clone(v)
	out[0] += 1.5
	analysis.Normalize(out)
	return out
}

func (e tilted) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := e.Deterministic.EmbedQuery(ctx, text)
	if err != nil {
		return nil, err
	}
	return e.tilt(v), nil
}

func (e tilted) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := e.Deterministic.EmbedDocuments(ctx, texts)
	for i := range vs {
		vs[i] = e.tilt(vs[i])
	}
	return vs, err
}

// TestSemanticGapIsModelFree: the semantic calibration is not tuned to
// one model. With the embedder's cosines squeezed into 0.7–1.0 (as e5
// models have them), random letters still find nothing, a real query
// finds what it finds with the plain embedder, and its gaps over the
// baseline are the same.
func TestSemanticGapIsModelFree(t *testing.T) {
	plain := openLocal(t)
	mustIndex(t, plain, append(fixtureDocs(t), sampleDocs...)...)
	squeezed := openLocal(t)
	mustIndexWith(t, squeezed, tilted{}, append(fixtureDocs(t), sampleDocs...)...)
	a := mustService(t, plain)
	b := mustService(t, squeezed, func(o *search.Options) { o.Embedder = tilted{} })
	for _, q := range append(qualitytest.RandomLetters(rand.New(rand.NewPCG(7, 8)), 10), "xqzvkwj") {
		if res := mustSearch(t, b, "alice", hs.SearchRequest{Query: q, Algorithm: hs.AlgorithmSemantic}); len(res.Results) > 0 {
			t.Errorf("squeezed cosines: %q found %v", q, ids(res))
		}
	}
	req := hs.SearchRequest{Query: "kubernetes cluster upgrade", Algorithm: hs.AlgorithmSemantic, Explain: true}
	ra, rb := mustSearch(t, a, "alice", req), mustSearch(t, b, "alice", req)
	if len(rb.Results) == 0 || !slices.Equal(slices.Sorted(slices.Values(ids(ra))), slices.Sorted(slices.Values(ids(rb)))) {
		t.Fatalf("squeezed cosines found %v, plain %v", ids(rb), ids(ra))
	}
	gaps := map[hs.FileID]*hs.SemanticCalibration{}
	for _, r := range ra.Results {
		gaps[r.FileID] = r.Explain.Semantic
	}
	for _, r := range rb.Results {
		ca, cb := gaps[r.FileID], r.Explain.Semantic
		if cb.Baseline < 0.6 || math.Abs(ca.Gap-cb.Gap) > 0.03 {
			t.Errorf("file %d: plain %+v, squeezed %+v: want a high squeezed baseline and the same gap", r.FileID, ca, cb)
		}
	}
}

// TestCorrectionsAreShown: "kuberntes upgrade" is searched as "kubernetes
// upgrade", and the result says so (issue 23: the correction was
// invisible), highlights the corrected word wherever it is and credits
// the fuzzy leg; NoCorrection looks the typo up as typed.
func TestCorrectionsAreShown(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil })
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "Kuberntes upgrade", Explain: true})
	want := []hs.Correction{{From: "kuberntes", To: "kubernetes", Leg: hs.AlgorithmFuzzy}}
	if !slices.Equal(res.Corrections, want) || res.CorrectedQuery != "kubernetes upgrade" {
		t.Errorf("corrections %+v, query %q, want %+v and %q", res.Corrections, res.CorrectedQuery, want, "kubernetes upgrade")
	}
	first := res.Results[0]
	if !slices.Equal(first.Explain.Corrected, want) {
		t.Errorf("result %d credits corrections %+v", first.FileID, first.Explain.Corrected)
	}
	if marked(first.Title, first.TitleHighlights) != "Kubernetes upgrade" {
		t.Errorf("title %q marked %v", first.Title, first.TitleHighlights)
	}
	if !strings.Contains(marked(first.Excerpt.Text, first.Excerpt.Highlights)+strings.Join(headingMarks(first.Excerpt), " "), "Kubernetes") {
		t.Errorf("the corrected word is not marked in the excerpt %+v", first.Excerpt)
	}
	exact := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "Kuberntes upgrade", NoCorrection: true})
	if len(exact.Corrections) != 0 || exact.CorrectedQuery != "" {
		t.Errorf("with no_correction: corrections %+v", exact.Corrections)
	}
}

// marked joins the marked parts of text.
func marked(text string, hl [][2]int) string {
	r := []rune(text)
	var parts []string
	for _, h := range hl {
		parts = append(parts, string(r[h[0]:h[1]]))
	}
	return strings.Join(parts, " ")
}

func headingMarks(e hs.Excerpt) []string {
	var out []string
	for i, h := range e.HeadingHighlights {
		out = append(out, marked(e.Headings[i], h))
	}
	return out
}

// ownedAccess answers access checks with owners and modification times.
type ownedAccess struct {
	owner    map[hs.FileID]hs.UserID
	modified map[hs.FileID]time.Time
}

func (a ownedAccess) FindByIDs(_ context.Context, user hs.UserID, ids []hs.FileID) (map[hs.FileID]hs.FileInfo, error) {
	out := map[hs.FileID]hs.FileInfo{}
	for _, id := range ids {
		out[id] = hs.FileInfo{ID: id, Path: "/Team/" + itoa(id) + ".md", Owner: a.owner[id], Modified: a.modified[id]}
	}
	return out, nil
}

// TestPagingSortFacetsOwner: what a search page in Nextcloud offers
// (issue 23): pages further down, newest first, counts by facet, and
// documents the user owns or that others share.
func TestPagingSortFacetsOwner(t *testing.T) {
	var docs []doc
	now := time.Now().UTC()
	access := ownedAccess{owner: map[hs.FileID]hs.UserID{}, modified: map[hs.FileID]time.Time{}}
	for i := range 12 {
		id := hs.FileID(100 + i)
		d := doc{ID: id, Path: "/Team/" + itoa(id) + ".md", Text: "# Release notes\n\nThe release of version " + itoa(id) + " upgrades the cluster."}
		if i%3 == 0 {
			d.Type, d.Path = hs.DocNote, "/Notes/"+itoa(id)+".md"
		}
		docs = append(docs, d)
		access.owner[id] = "alice"
		if i%2 == 1 {
			access.owner[id] = "bob"
		}
		access.modified[id] = now.Add(-time.Duration(i*i) * 24 * time.Hour)
	}
	st := openLocal(t)
	mustIndex(t, st, docs...)
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil; o.Access = access })
	base := hs.SearchRequest{Query: "release cluster upgrade", Algorithm: hs.AlgorithmKeyword}
	all := base
	all.TopK = 12
	full := mustSearch(t, svc, "alice", all)
	if len(full.Results) != 12 || full.Total != 12 {
		t.Fatalf("all: %d results, total %d", len(full.Results), full.Total)
	}
	var paged []hs.FileID
	for off := 0; off < 12; off += 5 {
		req := base
		req.TopK, req.Offset = 5, off
		res := mustSearch(t, svc, "alice", req)
		if res.Total != 12 || res.Offset != off {
			t.Errorf("offset %d: total %d offset %d", off, res.Total, res.Offset)
		}
		paged = append(paged, ids(res)...)
	}
	if !slices.Equal(paged, ids(full)) {
		t.Errorf("pages %v, all at once %v", paged, ids(full))
	}
	byDate := all
	byDate.Sort = hs.SortModified
	got := mustSearch(t, svc, "alice", byDate).Results
	for i := 1; i < len(got); i++ {
		if got[i].Modified.After(got[i-1].Modified) {
			t.Errorf("sorted by modification: %v before %v", got[i-1].Modified, got[i].Modified)
		}
	}
	facets := all
	facets.Facets = true
	f := mustSearch(t, svc, "alice", facets).Facets
	if f == nil {
		t.Fatal("no facets")
	}
	wantTypes := []hs.FacetCount{{Value: "file", Count: 8}, {Value: "note", Count: 4}}
	wantOwner := []hs.FacetCount{{Value: hs.OwnerMe, Count: 6}, {Value: hs.OwnerOthers, Count: 6}}
	wantModified := []hs.FacetCount{{Value: hs.ModifiedYear, Count: 12}, {Value: hs.ModifiedMonth, Count: 6}, {Value: hs.ModifiedWeek, Count: 3}, {Value: hs.ModifiedDay, Count: 1}}
	if !slices.Equal(f.Types, wantTypes) || !slices.Equal(f.Owner, wantOwner) || !slices.Equal(f.Modified, wantModified) {
		t.Errorf("facets types %v owner %v modified %v, want %v %v %v", f.Types, f.Owner, f.Modified, wantTypes, wantOwner, wantModified)
	}
	if !slices.Equal(f.Folders, []hs.FacetCount{{Value: "/Team", Count: 12}}) || !slices.Equal(f.MIMEs, []hs.FacetCount{{Value: "text/markdown", Count: 12}}) {
		t.Errorf("facets folders %v mimes %v", f.Folders, f.MIMEs)
	}
	for _, who := range []string{hs.OwnerMe, hs.OwnerOthers} {
		req := all
		req.Owner = who
		res := mustSearch(t, svc, "alice", req)
		if len(res.Results) != 6 || res.Total != 6 {
			t.Errorf("owner %s: %d results, total %d", who, len(res.Results), res.Total)
		}
		for _, r := range res.Results {
			if (r.Owner == "alice") != (who == hs.OwnerMe) {
				t.Errorf("owner %s: result %d owned by %s", who, r.FileID, r.Owner)
			}
		}
	}
}
