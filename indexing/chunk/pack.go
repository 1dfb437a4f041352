package chunk

import "math/bits"

// span is one chunk before it becomes an hs.Chunk: the text [start, end),
// of which [start, core) is overlap repeated from the chunk before.
type span struct {
	start, core, end int
}

// packer holds the packing parameters of one Chunk call.
type packer struct {
	t       *text
	size    int // most runes in a chunk, overlap included
	overlap int // runes of overlap to aim for
	budget  int // most runes of a chunk's own text: size - overlap
	minGap  int // fewest runes between two anchors that both cut
	minFill int // fewest runes of own text before a chunk may end early
}

func newPacker(t *text, size, overlap int) packer {
	return packer{
		t:       t,
		size:    size,
		overlap: overlap,
		budget:  size - overlap,
		minGap:  size * 3 / 20,
		minFill: size * 3 / 10,
	}
}

// anchorStrength is the strength from which a piece is an anchor.
const anchorStrength = 3

// strength scores a piece as a place to start a chunk: two for starting a
// block, plus the number of trailing zero bits of the hash of its first
// runes. Half of all block starts are anchors (strength 3 or more), one in
// eight sentences of a long block. Being a hash of the first runes, the
// strength stays put when the rest of the text changes.
func strength(p piece) int {
	s := bits.TrailingZeros32(p.anchor | 1<<16)
	if p.blockStart {
		s += 2
	}
	return s
}

// pack packs the pieces of one segment into chunks, in two steps.
//
// First, every anchor starts a new chunk, unless it lies within minGap runes
// of the anchor before it (or of the segment's ends), which only keeps
// chunks from being tiny. Whether a piece cuts here depends on the piece
// and the distance to the anchor before it, not on where any chunk started:
// an edit moves these cuts only next to the edited piece.
//
// Second, the text between two such cuts, when longer than budget, is
// packed from its start: a chunk takes the pieces that fit, and ends before
// the first piece of the highest strength that leaves it at least minFill
// runes of its own text (before the first piece that does not fit if none
// does). A cascade of changed chunks after an edit ends at the next anchor
// at the latest, and usually at the first piece of the same strength.
//
// Overlap depends only on the text just before a chunk, so the chunk after
// the last changed one keeps its text too, unless the edit lies in its
// overlap.
func (pk packer) pack(pieces []piece) []span {
	n := len(pieces)
	if n == 0 {
		return nil
	}
	bounds := []int{0} // indexes of the pieces that start chunks
	segEnd := pieces[n-1].end
	prev := pieces[0].start
	for j := 1; j < n; j++ {
		p := pieces[j]
		if strength(p) < anchorStrength {
			continue
		}
		if p.start-prev >= pk.minGap && segEnd-p.start >= pk.minGap {
			bounds = pk.fill(bounds, pieces, bounds[len(bounds)-1], j)
			bounds = append(bounds, j)
		}
		prev = p.start
	}
	bounds = pk.fill(bounds, pieces, bounds[len(bounds)-1], n)
	bounds = append(bounds, n)

	out := make([]span, 0, len(bounds)-1)
	for k := 0; k+1 < len(bounds); k++ {
		c := pieces[bounds[k]].start
		start := c
		if k > 0 {
			start = pk.overlapStart(out[k-1].core, c)
		}
		out = append(out, span{start: start, core: c, end: pieces[bounds[k+1]-1].end})
	}
	return out
}

// fill appends to bounds the chunk starts that pack pieces[x:y], which
// starts a chunk, into chunks of at most pk.budget runes of own text.
func (pk packer) fill(bounds []int, pieces []piece, x, y int) []int {
	for i := x; i < y; {
		c := pieces[i].start
		k := i // the last piece that fits
		for k+1 < y && pieces[k+1].end-c <= pk.budget {
			k++
		}
		if k == y-1 {
			break
		}
		cut := k + 1
	levels:
		for level := anchorStrength; level >= 0; level-- {
			for j := i + 1; j <= k+1; j++ {
				if pieces[j].start-c >= pk.minFill && strength(pieces[j]) >= level {
					cut = j
					break levels
				}
			}
		}
		bounds = append(bounds, cut)
		i = cut
	}
	return bounds
}
