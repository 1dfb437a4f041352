package search_test

import (
	"context"
	"math"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

func mustViz(tb testing.TB, st testStore, change ...func(*search.Options)) *search.Viz {
	tb.Helper()
	vr, ok := st.(search.VectorReader)
	if !ok {
		tb.Fatalf("%T does not read vectors", st)
	}
	v, err := search.NewViz(mustService(tb, st, change...), vr)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// TestVizIsolation checks that the map shows a user only chunks of files
// they may read, on both stores, for every algorithm and space.
func TestVizIsolation(t *testing.T) {
	queries := []string{"kubernetes upgrade budget", "salary review bonus", "ALICE-7731", "BOB-4410", "diary"}
	requests := []hs.SearchRequest{
		{},
		{Algorithm: hs.AlgorithmKeyword},
		{Algorithm: hs.AlgorithmFuzzy},
		{Filter: hs.Filter{PathPrefix: "/Private"}},
	}
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) {
			st := k.open(t)
			mustIndex(t, st, isolationDocs...)
			for _, space := range []string{hs.SpaceSemantic, hs.SpaceKeyword} {
				v := mustViz(t, st, func(o *search.Options) {
					if space == hs.SpaceKeyword {
						o.Embedder = nil
					}
				})
				for _, user := range []hs.UserID{"alice", "bob", "carol"} {
					allowed := readable(user)
					seen := map[hs.FileID]bool{}
					for _, q := range queries {
						for _, req := range requests {
							req.Query = q
							res, err := v.Viz(t.Context(), user, req, 0)
							if user == "carol" {
								// carol reads nothing: searches find nothing, which is no error.
								if err != nil {
									t.Fatalf("carol: Viz(%q) = %v", q, err)
								}
							} else if err != nil {
								t.Fatalf("%s: Viz(%q, %+v) = %v", user, q, req, err)
							}
							if res.Space != space {
								t.Errorf("%s: space %q, want %q", user, res.Space, space)
							}
							for _, p := range res.Points {
								seen[p.FileID] = true
								if !allowed[p.FileID] {
									t.Errorf("%s: Viz(%q, %+v) plots file %d", user, q, req, p.FileID)
								}
								if other := otherCode(user); other != "" && strings.Contains(p.Text, other) {
									t.Errorf("%s: a plotted chunk shows %s", user, other)
								}
							}
						}
					}
					for id := range allowed {
						if !seen[id] {
							t.Errorf("%s never sees file %d on the map", user, id)
						}
					}
				}
			}
		})
	}
}

// TestVizMap checks what the map holds: results marked with rank, best
// chunk and legs, the query point, the sample, explained variance, and
// the note when the keyword space stands in for embeddings.
func TestVizMap(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, isolationDocs...)
	for _, tt := range []struct {
		name     string
		embedder search.QueryEmbedder
		space    string
		note     string
		code     string // NoteCode
		reason   string // NoteReasonCode
	}{
		{"semantic", nil, hs.SpaceSemantic, "", "", ""},
		{"no model", nil, hs.SpaceKeyword, "No embedding model is configured", hs.VizNoteSemanticOff, ""},
		{"model down", failingEmbedder{hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama is unreachable")}, hs.SpaceKeyword, "The embedding model did not answer", hs.VizNoteEmbedderFailed, hs.SkipEmbedderUnavailable},
		{"model refuses", failingEmbedder{hs.Errorf(hs.EINVALID, "embedding: model \"llama3\" is not an embedding model")}, hs.SpaceKeyword, "The embedding model did not answer", hs.VizNoteEmbedderFailed, hs.SkipEmbedderError},
		{"model slow", failingEmbedder{hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama embed: timed out: %w", context.DeadlineExceeded)}, hs.SpaceKeyword, "The embedding model did not answer", hs.VizNoteEmbedderFailed, hs.SkipTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := mustViz(t, st, func(o *search.Options) {
				switch tt.name {
				case "semantic":
				case "no model":
					o.Embedder = nil
				default:
					o.Embedder = tt.embedder
				}
			})
			res, err := v.Viz(t.Context(), "alice", hs.SearchRequest{Query: "kubernetes upgrade", TopK: 2}, 50)
			if err != nil {
				t.Fatal(err)
			}
			if res.Space != tt.space || !strings.HasPrefix(res.Note, tt.note) {
				t.Errorf("space %q note %q, want %q and a note starting %q", res.Space, res.Note, tt.space, tt.note)
			}
			if res.NoteCode != tt.code || res.NoteReasonCode != tt.reason || res.NoteCount != 0 {
				t.Errorf("note code %q, reason code %q, count %d; want %q, %q, 0", res.NoteCode, res.NoteReasonCode, res.NoteCount, tt.code, tt.reason)
			}
			if res.QueryPoint == nil {
				t.Error("no query point")
			}
			e := res.ExplainedVariance
			if e[0] <= 0 || e[1] < 0 || e[0] < e[1] || e[0]+e[1] > 1+1e-9 {
				t.Errorf("explained variance %v", e)
			}
			ranks := map[int]bool{}
			best := 0
			for _, p := range res.Points {
				if math.IsNaN(p.X) || math.IsNaN(p.Y) {
					t.Errorf("point %d/%d at NaN", p.FileID, p.ChunkNo)
				}
				if p.Rank == 0 {
					if p.Best || len(p.Legs) > 0 {
						t.Errorf("sampled point %+v is marked as a result", p)
					}
					continue
				}
				ranks[p.Rank] = true
				if p.Best {
					best++
				}
				if len(p.Legs) == 0 {
					t.Errorf("result point %d/%d names no leg", p.FileID, p.ChunkNo)
				}
				for _, l := range p.Legs {
					if tt.space == hs.SpaceKeyword && l == hs.AlgorithmSemantic {
						t.Errorf("result point %d/%d found by the semantic leg, which did not run", p.FileID, p.ChunkNo)
					}
				}
				if p.Link == "" || p.Title == "" || p.Text == "" {
					t.Errorf("result point without link, title or text: %+v", p)
				}
			}
			if len(ranks) != 2 || best != 2 {
				t.Errorf("result ranks %v with %d best chunks, want 2 documents", ranks, best)
			}
			// alice reads 3 files, one chunk each: every chunk is plotted once.
			if n := len(res.Points); n != 3 || res.Sampled != 1 {
				t.Errorf("%d points, %d sampled; want 3 and 1", n, res.Sampled)
			}
			if tt.space == hs.SpaceKeyword && tt.name == "no model" && len(res.Skipped) != 1 {
				t.Errorf("skipped legs %+v, want semantic", res.Skipped)
			}
		})
	}
}

// withoutEmbeddings indexes documents as if the embedding model had not
// reached them yet: their chunks have no dense vector.
type withoutEmbeddings struct{ writer }

func (w withoutEmbeddings) WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	for i := range points {
		points[i].Dense = nil
	}
	return w.writer.WriteFile(ctx, meta, points)
}

// TestVizNoteChunksWithoutEmbeddings checks the notes (text, code and
// count) when some or all plotted chunks have no embedding yet.
func TestVizNoteChunksWithoutEmbeddings(t *testing.T) {
	late := []doc{
		{ID: 40, Path: "/Ops/Kubernetes notes.md", Text: "# Kubernetes notes\n\nUpgrade the cluster node by node."},
		{ID: 41, Path: "/Ops/Kubernetes budget.md", Text: "# Kubernetes budget\n\nThe upgrade budget covers two nodes."},
	}
	for _, tt := range []struct {
		name  string
		dense []doc // indexed with embeddings
		late  []doc // indexed without
		space string
		note  string
		code  string
		count int
	}{
		{"none", nil, late, hs.SpaceKeyword, "No chunk has an embedding yet, so the map shows the keyword (BM25) vectors instead of embeddings.", hs.VizNoteNoEmbeddings, 0},
		{"some", isolationDocs, late, hs.SpaceSemantic, "2 chunks have no embedding yet and are not shown.", hs.VizNoteChunksWithoutEmbedding, 2},
		{"one", isolationDocs, late[:1], hs.SpaceSemantic, "1 chunk has no embedding yet and is not shown.", hs.VizNoteChunksWithoutEmbedding, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := openLocal(t)
			mustIndex(t, st, tt.dense...)
			mustIndex(t, withoutEmbeddings{st}, tt.late...)
			res, err := mustViz(t, st).Viz(t.Context(), "alice", hs.SearchRequest{Query: "kubernetes upgrade", Algorithm: hs.AlgorithmKeyword}, 50)
			if err != nil {
				t.Fatal(err)
			}
			if res.Space != tt.space || res.Note != tt.note || res.NoteCode != tt.code || res.NoteCount != tt.count || res.NoteReasonCode != "" {
				t.Errorf("space %q, note %q (code %q, count %d, reason %q); want %q, %q (%q, %d)", res.Space, res.Note, res.NoteCode, res.NoteCount, res.NoteReasonCode, tt.space, tt.note, tt.code, tt.count)
			}
			for _, p := range res.Points {
				if tt.space == hs.SpaceSemantic && p.FileID >= 40 {
					t.Errorf("chunk %d/%d without an embedding is plotted in the semantic space", p.FileID, p.ChunkNo)
				}
			}
		})
	}
}

// TestVizDropsLostFiles checks that a sampled chunk of a file Nextcloud
// says the user lost is not plotted, and that bad samples are refused.
func TestVizDropsLostFiles(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, isolationDocs...)
	acc := &fakeAccess{}
	acc.set("alice", 12, hs.Errorf(hs.ENOTFOUND, "gone"))
	v := mustViz(t, st, func(o *search.Options) { o.Access = acc })
	res, err := v.Viz(t.Context(), "alice", hs.SearchRequest{Query: "salary", Algorithm: hs.AlgorithmKeyword}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if p.FileID == 12 {
			t.Errorf("file 12, which alice lost, is plotted: %+v", p)
		}
	}
	for _, n := range []int{-1, hs.DefaultSearchRules().MaxVizSample + 1} {
		if _, err := v.Viz(t.Context(), "alice", hs.SearchRequest{Query: "salary"}, n); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("sample %d: %v, want EINVALID", n, err)
		}
	}
	if _, err := v.Viz(t.Context(), "alice", hs.SearchRequest{Query: " "}, 0); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("empty query: %v, want EINVALID", err)
	}
	if _, err := v.Viz(t.Context(), "", hs.SearchRequest{Query: "x"}, 0); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("no user: %v, want EINVALID", err)
	}
}

// TestVizShowsTheUsersOwnPath: every plotted chunk, result or sample,
// carries the path the searching user sees (from Nextcloud, or the
// user's indexed path while Nextcloud does not answer), never the
// owner's folders.
func TestVizShowsTheUsersOwnPath(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st,
		doc{ID: 1, Path: "/Plant/Pump 01.md", Text: "Pump maintenance log 1."},
		doc{ID: 2, Path: "/Secret/HR-X/Pump review.md", Readers: []hs.UserID{"alice", "bob"},
			Paths: map[hs.UserID]string{"alice": "/Secret/HR-X/Pump review.md", "bob": "/Pump review.md"}, Text: "Pump maintenance review."},
		doc{ID: 3, Path: "/Secret/HR-X/Salary.md", Readers: []hs.UserID{"alice", "bob"},
			Paths: map[hs.UserID]string{"alice": "/Secret/HR-X/Salary.md", "bob": "/Salary.md"}, Text: "Salary bands for the plant."},
	)
	access := &fakeAccess{}
	v := mustViz(t, st, func(o *search.Options) { o.Access = access; o.Embedder = nil })
	for _, down := range []bool{false, true} {
		if down {
			access.set("bob", 2, hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503"))
			access.set("bob", 3, hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503"))
		}
		res, err := v.Viz(t.Context(), "bob", hs.SearchRequest{Query: "pump review"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := map[hs.FileID]string{2: "/as-bob/2", 3: "/as-bob/3"}
		if down {
			want = map[hs.FileID]string{2: "/Pump review.md", 3: "/Salary.md"}
		}
		if len(res.Points) == 0 {
			t.Fatalf("down=%v: nothing plotted", down)
		}
		for _, p := range res.Points {
			if p.Path != want[p.FileID] || strings.Contains(p.Path+p.Title, "Secret") {
				t.Errorf("down=%v: file %d plotted at %q (%q), want %q", down, p.FileID, p.Path, p.Title, want[p.FileID])
			}
		}
	}
}
