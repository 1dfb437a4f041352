package search_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// countingReader wraps a local store (all its methods, statistics and
// samples included): it records whether the legs asked
// for hits without text and how many chunks ReadChunks was asked for, and
// loses the chunks of file gone, as if it changed after retrieval.
type countingReader struct {
	*local.Store
	gone hs.FileID

	mu       sync.Mutex
	withText int // leg calls that asked for text
	read     int // chunks ReadChunks was asked for
}

func (c *countingReader) leg(f hs.Filter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !f.OmitText {
		c.withText++
	}
}

func (c *countingReader) SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error) {
	c.leg(f)
	return c.Store.SearchDense(ctx, user, vec, k, f)
}

func (c *countingReader) SearchSparse(ctx context.Context, user hs.UserID, vector string, q hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error) {
	c.leg(f)
	return c.Store.SearchSparse(ctx, user, vector, q, k, f)
}

func (c *countingReader) ReadChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	c.mu.Lock()
	c.read += len(hits)
	c.mu.Unlock()
	var keep []hs.Hit
	for _, h := range hits {
		if h.Point.File.ID != c.gone {
			keep = append(keep, h)
		}
	}
	return c.Store.ReadChunks(ctx, user, keep)
}

func (c *countingReader) counts() (withText, read int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	withText, read = c.withText, c.read
	c.withText, c.read = 0, 0
	return withText, read
}

// TestChunksReadForThePageOnly checks that with a ChunkReader the legs
// retrieve hits without text and a search reads the chunks its page shows
// (plus those a typo or a verbatim check needs), with the same results as
// a search whose hits carry their text.
func TestChunksReadForThePageOnly(t *testing.T) {
	st := openLocal(t)
	var docs []doc
	for i := range 60 {
		docs = append(docs, doc{ID: hs.FileID(i + 1), Title: fmt.Sprintf("Report %02d", i+1),
			Text: fmt.Sprintf("Quarterly budget review number %d. The budget for travel is tight; review the kettle costs again. Ticket PII-2024-%04d.", i+1, i+1)})
	}
	mustIndex(t, st, docs...)
	cr := &countingReader{Store: st.(*local.Store)}
	lean := mustService(t, cr, func(o *search.Options) { o.Chunks = cr })
	full := mustService(t, textHits{st.(*local.Store)})
	tests := []struct {
		query    string
		maxRead  int // chunks read at most
		minRead  int // and at least
		highlite string
	}{
		{"budget review", 10 * 4, 1, "budget"},
		{"buget review", 100 + 10*4, 10, "budget"},      // the fuzzy leg's candidates are read to verify them
		{"PII-2024-0042", 3 * 100, 10, "PII-2024-0042"}, // an identifier is looked for in every candidate
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			req := hs.SearchRequest{Query: tt.query, TopK: 10}
			got := mustSearch(t, lean, "alice", req)
			withText, read := cr.counts()
			t.Logf("%q read %d chunks", tt.query, read)
			if withText != 0 {
				t.Errorf("%d leg calls asked for text, want none", withText)
			}
			if read > tt.maxRead || read < tt.minRead {
				t.Errorf("read %d chunks, want %d to %d", read, tt.minRead, tt.maxRead)
			}
			want := mustSearch(t, full, "alice", req)
			if g, w := ids(got), ids(want); !slices.Equal(g, w) {
				t.Fatalf("results %v, want those of a search with text %v", g, w)
			}
			for i, r := range got.Results {
				w := want.Results[i]
				if r.Excerpt.Text != w.Excerpt.Text || fmt.Sprint(r.Excerpt.Highlights) != fmt.Sprint(w.Excerpt.Highlights) || r.Relevance != w.Relevance || len(r.More) != len(w.More) {
					t.Errorf("result %d = %+v, want %+v", i, r, w)
				}
			}
			if len(got.Results) == 0 || !strings.Contains(got.Results[0].Excerpt.Text, tt.highlite) || len(got.Results[0].Excerpt.Highlights) == 0 {
				t.Errorf("first result %+v does not show %q highlighted", got.Results, tt.highlite)
			}
		})
	}

	t.Run("changed after retrieval", func(t *testing.T) {
		req := hs.SearchRequest{Query: "budget review", TopK: 10}
		first := ids(mustSearch(t, lean, "alice", req))
		cr.gone = first[0]
		defer func() { cr.gone = 0 }()
		got := ids(mustSearch(t, lean, "alice", req))
		for _, id := range got {
			if id == cr.gone {
				t.Errorf("file %d, whose chunks are gone, is in the results %v", id, got)
			}
		}
		if len(got) != len(first)-1 {
			t.Errorf("results %v, want %v without file %d", got, first, cr.gone)
		}
	})
}
