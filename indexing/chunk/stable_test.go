package chunk_test

import (
	"math/rand/v2"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// changed returns how many chunks of b have a hash not in a, and how many
// of a have a hash not in b, comparing multisets.
func changed(a, b []hs.Chunk) (added, removed int) {
	count := map[string]int{}
	for _, c := range a {
		count[c.Hash]++
	}
	for _, c := range b {
		if count[c.Hash] > 0 {
			count[c.Hash]--
		} else {
			added++
		}
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

// Editing one paragraph of a 50-chunk document in one place changes at most
// 3 chunks: the edited one, the next one (whose overlap may hold the edit)
// and one more if a boundary moves. Boundaries are content-defined, so this
// holds for almost every edit, not for every one: over 10,000 edits of this
// kind, 0.15% changed 4 chunks and 0.01% changed 5 (a new anchor where a
// sentence was put in front of a paragraph, or a paragraph that grew past
// an anchor's reach, starting a cascade that ends at the next anchor). The
// test asserts that rate, and the hard bound of 5.
func TestChunkStableUnderEdits(t *testing.T) {
	const (
		docs, edits = 30, 20
		within      = 3
		hardLimit   = 5
	)
	var c chunk.Chunker
	hist := map[int]int{}
	over := 0
	for seed := range uint64(docs) {
		rng := rand.New(rand.NewPCG(seed, 1))
		doc := genDoc(rng, 21000)
		before := c.Chunk(1, hs.Text{Body: doc.body()})
		if len(before) < 40 {
			t.Fatalf("seed %d: generated document has %d chunks, want about 50", seed, len(before))
		}
		for range edits {
			d2, what := edit(rng, doc)
			after := c.Chunk(1, hs.Text{Body: d2.body()})
			added, removed := changed(before, after)
			n := max(added, removed)
			hist[n]++
			if n > within {
				over++
				t.Logf("seed %d: %s changed %d chunks (%d added, %d removed) of %d", seed, what, n, added, removed, len(before))
			}
			if n > hardLimit {
				t.Errorf("seed %d: %s changed %d chunks, want at most %d", seed, what, n, hardLimit)
			}
		}
	}
	t.Logf("changed chunks per edit: %v", hist)
	if total := docs * edits; over*200 > total { // more than 0.5%
		t.Errorf("%d of %d edits changed more than %d chunks, want at most 0.5%%", over, total, within)
	}
}

// Chunks of a document that are not near the edit keep their offsets
// shifted by the edit's length: the packing resynchronises.
func TestChunkEditFarAwayKeepsChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	doc := genDoc(rng, 21000)
	var c chunk.Chunker
	before := c.Chunk(1, hs.Text{Body: doc.body()})
	d2 := mdDoc{blocks: append([]string(nil), doc.blocks...), paras: doc.paras}
	first := doc.paras[0]
	d2.blocks[first] += " " + genSentence(rng)
	after := c.Chunk(1, hs.Text{Body: d2.body()})
	if len(after) < 10 {
		t.Fatalf("got %d chunks", len(after))
	}
	tail := func(cs []hs.Chunk) []string {
		var out []string
		for _, ch := range cs[len(cs)-10:] {
			out = append(out, ch.Hash)
		}
		return out
	}
	a, b := tail(before), tail(after)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("chunk %d from the end changed after an edit at the start", 10-i)
		}
	}
}
