package search

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// coneEmb is the test embedder with every vector tilted towards one
// direction by a: its cosines crowd towards 1 as e5 models' do (a = 1.5
// puts unrelated texts near 0.7).
type coneEmb struct {
	d embeddingtest.Deterministic
	a float64
}

func (c coneEmb) tilt(v []float32) []float32 {
	out := append([]float32(nil), v...)
	out[0] += float32(c.a)
	analysis.Normalize(out)
	return out
}
func (c coneEmb) EmbedQuery(ctx context.Context, t string) ([]float32, error) {
	v, err := c.d.EmbedQuery(ctx, t)
	return c.tilt(v), err
}
func (c coneEmb) EmbedDocuments(ctx context.Context, t []string) ([][]float32, error) {
	vs, err := c.d.EmbedDocuments(ctx, t)
	for i := range vs {
		vs[i] = c.tilt(vs[i])
	}
	return vs, err
}

// TestSemanticGapCISI prints, for the CISI collection indexed as one
// user's files, the gap over the baseline (semanticBaseline.gap) of the
// nearest chunk of the real queries and of random letters, with the test
// embedder as it is and with its cosines squeezed into 0.67–1 (coneEmb):
// the figures behind SearchRules.SemanticMinGap. CISI_FEW=n indexes only
// the first n documents. Run with CISI=1.
func TestSemanticGapCISI(t *testing.T) {
	if os.Getenv("CISI") == "" {
		t.Skip("set CISI=1 to measure the semantic gaps on CISI")
	}
	c, err := qualitytest.ReadCISI(qualitytest.CISIDir(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []float64{0, 1.5} {
		emb := coneEmb{a: a}
		st, err := local.Open(t.TempDir(), local.Options{Dim: 768})
		if err != nil {
			t.Fatal(err)
		}
		n := len(c.Docs)
		if v := os.Getenv("CISI_FEW"); v != "" {
			n, _ = strconv.Atoi(v)
		}
		for _, d := range c.Docs[:n] {
			id, _ := strconv.Atoi(d.ID)
			meta := hs.FileMeta{ID: hs.FileID(id), Path: "/c/" + d.ID, Title: d.Title, MIME: "text/markdown", Type: hs.DocFile, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/c/" + d.ID}}
			chunks := chunk.Chunker{}.Chunk(meta.ID, hs.Text{Body: d.Text, Title: d.Title})
			var pts []hs.Point
			var in []string
			for _, ch := range chunks {
				in = append(in, indexing.EmbedInput(meta.Title, ch))
				bm, tri := analysis.PointVectors(meta, ch)
				pts = append(pts, hs.Point{ID: hs.PointID(meta.ID, ch.No), Chunk: ch, File: meta, BM25: bm, Trigram: tri})
			}
			vs, err := emb.EmbedDocuments(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			for i := range pts {
				pts[i].Dense = vs[i]
			}
			if err := st.WriteFile(t.Context(), meta, pts); err != nil {
				t.Fatal(err)
			}
		}
		svc, err := New(Options{Embedder: emb, Dense: st, Sparse: st})
		if err != nil {
			t.Fatal(err)
		}
		run := func(name string, qs []string) {
			var gaps []float64
			var median float64
			for _, q := range qs {
				vec, _ := emb.EmbedQuery(t.Context(), q)
				b, _ := svc.baseline(t.Context(), "alice", vec)
				hits, _ := st.SearchDense(t.Context(), "alice", vec, 5, hs.Filter{})
				if len(hits) == 0 || !b.ok {
					continue
				}
				gaps = append(gaps, b.gap(float64(hits[0].Score)))
				median = b.median
			}
			slices.Sort(gaps)
			q := func(p float64) float64 { return gaps[int(math.Min(float64(len(gaps)-1), p*float64(len(gaps))))] }
			t.Logf("tilt %.1f, %-7s %d queries: gap of the nearest chunk min %.3f p10 %.3f p50 %.3f p90 %.3f max %.3f (a baseline: %.3f)", a, name, len(gaps), gaps[0], q(0.1), q(0.5), q(0.9), gaps[len(gaps)-1], median)
		}
		var real []string
		for _, q := range c.Queries {
			real = append(real, q.Text)
		}
		run("CISI", real)
		run("random", qualitytest.RandomLetters(rand.New(rand.NewPCG(1, 2)), 60))
		st.Close()
	}
}
