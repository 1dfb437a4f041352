package local

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// invariants returns the first broken invariant of the index, or nil. It
// reads every live point's record to check the postings, frequencies and
// hash chains.
func (x *index) invariants() error {
	if err := x.quantInvariants(); err != nil {
		return err
	}
	n := len(x.file)
	for _, l := range []int{len(x.ids), len(x.nos), len(x.locs), len(x.dense), len(x.qrow), len(x.owner), len(x.gnode), len(x.gpos), len(x.hnext)} {
		if l != n {
			return fmt.Errorf("slot arrays of unequal lengths for %d slots", n)
		}
	}
	state := make([]string, n) // what each slot is
	mark := func(s int32, what string) error {
		if state[s] != "" {
			return fmt.Errorf("slot %d is %s and %s", s, state[s], what)
		}
		state[s] = what
		return nil
	}
	live := 0
	recs := make(map[int32]pointIn)
	for s, f := range x.file {
		if f == nil {
			if x.dense[s] || x.owner[s] != ownNone {
				return fmt.Errorf("dead slot %d has a dense flag or postings", s)
			}
			continue
		}
		live++
		if err := mark(int32(s), "live"); err != nil {
			return err
		}
		if x.files[f.meta.ID] != f {
			return fmt.Errorf("slot %d: file %d is not stored", s, f.meta.ID)
		}
		if _, ok := slices.BinarySearch(f.slots, int32(s)); !ok {
			return fmt.Errorf("slot %d: not among its file's slots", s)
		}
		g := f.group
		if p := x.gpos[s]; int(p) >= len(g.slots) || g.slots[p] != int32(s) {
			return fmt.Errorf("slot %d: not at its place in group %d", s, g.id)
		}
		var buf []byte
		p, err := x.point(int32(s), true, &buf)
		if err != nil {
			return fmt.Errorf("slot %d: %v", s, err)
		}
		if p.ID != x.ids[s].String() || p.Chunk.No != int(x.nos[s]) || (p.Dense != nil) != x.dense[s] {
			return fmt.Errorf("slot %d: record %s chunk %d (dense %v) does not match %s chunk %d (dense %v)", s, p.ID, p.Chunk.No, p.Dense != nil, x.ids[s], x.nos[s], x.dense[s])
		}
		if (len(p.BM25.Indices) > 0 || len(p.Trigram.Indices) > 0) != (x.owner[s] != ownNone) {
			return fmt.Errorf("slot %d: owner %d for sparse vectors of %d and %d indices", s, x.owner[s], len(p.BM25.Indices), len(p.Trigram.Indices))
		}
		recs[int32(s)] = pointIn{id: p.ID, chunk: p.Chunk, dense: p.Dense, bm25: p.BM25, trigram: p.Trigram}
	}
	if live != x.points {
		return fmt.Errorf("%d live slots; points %d", live, x.points)
	}
	for _, s := range x.free {
		if err := mark(s, "free"); err != nil {
			return err
		}
	}
	for _, s := range x.freed {
		if err := mark(s, "freed"); err != nil {
			return err
		}
	}
	for _, s := range x.released {
		if err := mark(s, "released"); err != nil {
			return err
		}
	}
	for id, f := range x.files {
		if f.meta.ID != id || len(f.points) != len(f.slots) || len(f.points) == 0 {
			return fmt.Errorf("file %d: %d points, %d slots", id, len(f.points), len(f.slots))
		}
		if !slices.IsSorted(f.slots) || !slices.IsSortedFunc(f.points, func(a, b int32) int { return int(x.nos[a]) - int(x.nos[b]) }) {
			return fmt.Errorf("file %d: slots or points out of order", id)
		}
		for _, s := range f.points {
			if x.file[s] != f {
				return fmt.Errorf("file %d: slot %d is not its own", id, s)
			}
		}
		if f.group == nil || groupKey(f.meta.Readers) != f.group.key || f.group.files[f.gpos] != f {
			return fmt.Errorf("file %d: not in the group of its readers", id)
		}
	}
	slotsInGroups := 0
	for key, g := range x.groups {
		if g.key != key || groupKey(g.readers) != key || x.groupByID[g.id] != g || len(g.files) == 0 {
			return fmt.Errorf("group %d (%q): badly registered or empty", g.id, key)
		}
		dense := 0
		for _, s := range g.slots {
			if !x.live(s) || x.file[s].group != g {
				return fmt.Errorf("group %d: slot %d is not one of its points", g.id, s)
			}
			if x.dense[s] {
				dense++
			}
		}
		if dense != g.dense {
			return fmt.Errorf("group %d: %d dense slots, counted %d", g.id, dense, g.dense)
		}
		slotsInGroups += len(g.slots)
		for _, u := range g.readers {
			if !slices.Contains(x.userGroups[u], g) {
				return fmt.Errorf("group %d: not among reader %s's groups", g.id, u)
			}
		}
		if err := x.graphInvariants(g, mark); err != nil {
			return err
		}
	}
	if slotsInGroups != live {
		return fmt.Errorf("%d slots in groups, %d live", slotsInGroups, live)
	}
	for u, gs := range x.userGroups {
		if len(gs) == 0 || !slices.IsSortedFunc(gs, func(a, b *group) int { return int(a.id) - int(b.id) }) {
			return fmt.Errorf("user %s: groups empty or out of order", u)
		}
		for _, g := range gs {
			if x.groups[g.key] != g || !g.readable(u) {
				return fmt.Errorf("user %s: group %d is not theirs", u, g.id)
			}
		}
	}
	for s, st := range state {
		if st == "" {
			return fmt.Errorf("slot %d is neither live, free nor held by a graph", s)
		}
	}
	inHashes := 0
	for key, first := range x.hashes {
		for s := first; s >= 0; s = x.hnext[s] {
			if r, ok := recs[s]; !ok || !x.dense[s] || x.hashKey(r.chunk.Hash) != key {
				return fmt.Errorf("hash key %x: slot %d is not a live point with that hash and a dense vector", key, s)
			}
			inHashes++
		}
	}
	withHash := 0
	for s, r := range recs {
		if x.dense[s] && r.chunk.Hash != "" {
			withHash++
		}
	}
	if inHashes != withHash {
		return fmt.Errorf("%d slots in hash chains, want %d", inHashes, withHash)
	}
	for v := range x.df {
		vec := func(r pointIn) hs.SparseVector { return []hs.SparseVector{r.bm25, r.trigram}[v] }
		docs := 0
		want := map[uint32]int32{}
		for _, r := range recs {
			if len(vec(r).Indices) > 0 {
				docs++
			}
			for _, i := range vec(r).Indices {
				want[i]++
			}
		}
		if docs != x.df[v].docs || !maps.Equal(want, x.df[v].n) {
			return fmt.Errorf("sparse %d: document frequencies differ from the records'", v)
		}
		if err := x.postingInvariants(v, recs, vec); err != nil {
			return err
		}
	}
	return nil
}

// postingInvariants checks that each live point has exactly its vector's
// postings where its owner says, in its group.
func (x *index) postingInvariants(v int, recs map[int32]pointIn, vec func(pointIn) hs.SparseVector) error {
	got := map[int32]map[uint32]float32{}
	for _, g := range x.tailGroups {
		for _, pos := range g.tail {
			td := &x.tail[pos]
			if x.owner[td.slot] != tailOwner(int(pos)) {
				continue
			}
			s := td.slot
			if x.file[s].group != g {
				return fmt.Errorf("sparse %d: tail point of slot %d in group %d, not its group", v, s, g.id)
			}
			if len(got[s]) > 0 && v == 0 {
				return fmt.Errorf("sparse %d: slot %d in the tail twice", v, s)
			}
			got[s] = map[uint32]float32{}
			vec := td.vecs[v]
			for j, i := range vec.Indices {
				got[s][i] = vec.Values[j]
			}
		}
	}
	for _, g := range x.groups {
		if len(g.tail) > 0 && !slices.Contains(x.tailGroups, g) {
			return fmt.Errorf("group %d has tail points but is not among the tail's groups", g.id)
		}
	}
	for _, sg := range x.segs {
		dir := sg.vecs[v].groups
		for gi := 0; gi < len(dir)/segGroupW; gi++ {
			g := binary.LittleEndian.Uint32(dir[gi*segGroupW:])
			terms, base := sg.terms(v, g)
			for ti := 0; ti < len(terms)/segTermW; ti++ {
				term := binary.LittleEndian.Uint32(terms[ti*segTermW:])
				st, ok := sg.term(terms, base, term)
				if !ok {
					return fmt.Errorf("segment %d: term %d of group %d not found", sg.id, term, g)
				}
				var c cursor
				c.reset(st, sg.vecs[v].weights)
				n := 0
				prev := int32(-1)
				for ; c.doc != endDoc; c.next() {
					n++
					if c.doc <= prev {
						return fmt.Errorf("segment %d: term %d of group %d out of order", sg.id, term, g)
					}
					prev = c.doc
					s := c.doc
					if x.owner[s] != sg.id {
						continue
					}
					if x.file[s].group.id != g {
						return fmt.Errorf("segment %d: posting of slot %d in group %d, not its group", sg.id, s, g)
					}
					if got[s] == nil {
						got[s] = map[uint32]float32{}
					}
					if _, dup := got[s][term]; dup {
						return fmt.Errorf("sparse %d: slot %d has two postings of %d", v, s, term)
					}
					got[s][term] = c.weight()
				}
				if c.bad || n != st.count {
					return fmt.Errorf("segment %d: term %d of group %d: %d postings decoded of %d", sg.id, term, g, n, st.count)
				}
			}
		}
	}
	for s, r := range recs {
		if x.owner[s] == ownNone {
			continue
		}
		want := vec(r)
		if len(want.Indices) != len(got[s]) {
			return fmt.Errorf("sparse %d: slot %d has %d postings for %d indices", v, s, len(got[s]), len(want.Indices))
		}
		for j, i := range want.Indices {
			if w, ok := got[s][i]; !ok || w != want.Values[j] {
				return fmt.Errorf("sparse %d: slot %d: posting of %d is %v, want %v", v, s, i, w, want.Values[j])
			}
		}
	}
	return nil
}

// graphInvariants checks g's graph: every node holds the slot that names
// it and every live dense slot of g is a node or pending; it marks the
// dead slots the graph holds.
func (x *index) graphInvariants(g *group, mark func(int32, string) error) error {
	gr := g.graph
	for _, s := range g.slots {
		if gr == nil && x.gnode[s] != -1 {
			return fmt.Errorf("group %d has no graph but slot %d has node %d", g.id, s, x.gnode[s])
		}
	}
	if gr == nil {
		return nil
	}
	nodes, done := gr.counts()
	inGraph := map[int32]bool{}
	for n := range nodes {
		s := gr.slotOf(uint32(n))
		if s < 0 {
			continue
		}
		if inGraph[s] {
			return fmt.Errorf("group %d: slot %d is two nodes", g.id, s)
		}
		inGraph[s] = true
		if x.gnode[s] != int32(n) {
			return fmt.Errorf("group %d: node %d has slot %d whose node is %d", g.id, n, s, x.gnode[s])
		}
		if !x.live(s) {
			if err := mark(s, "a dead node"); err != nil {
				return err
			}
		}
	}
	pending := map[int32]bool{}
	for _, s := range gr.pending[done:] {
		pending[s] = true
		if !x.live(s) {
			if err := mark(s, "dead pending"); err != nil {
				return err
			}
		}
	}
	for _, s := range gr.skip {
		if err := mark(s, "skipped"); err != nil {
			return err
		}
	}
	for _, s := range g.slots {
		if x.dense[s] && inGraph[s] == pending[s] {
			return fmt.Errorf("group %d: dense slot %d is a node %v, pending %v", g.id, s, inGraph[s], pending[s])
		}
	}
	dead := 0
	for _, s := range gr.dead {
		if x.live(s) || !inGraph[s] {
			return fmt.Errorf("group %d: dead list holds slot %d, live %v, node %v", g.id, s, x.live(s), inGraph[s])
		}
		dead++
	}
	return nil
}

// TestIndexInvariants checks the index after random writes, deletes,
// trims and reader changes, without graphs and with a graph for every
// group of 8 points or more.
func TestIndexInvariants(t *testing.T) {
	for _, graphMin := range []int{-1, 8} {
		t.Run(fmt.Sprintf("GraphMin=%d", graphMin), func(t *testing.T) { testIndexInvariants(t, graphMin) })
	}
}

// checkInvariants checks the index with the indexer paused.
func (l *Store) checkInvariants() error {
	l.imu.Lock()
	defer l.imu.Unlock()
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.idx.invariants()
}

func testIndexInvariants(t *testing.T, graphMin int) {
	rng := rand.New(rand.NewPCG(1, 1))
	s, err := Open(t.TempDir(), Options{GraphMin: graphMin})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	users := []hs.UserID{"alice", "bob", "carol"}
	maxSlots := 0
	for i := range 300 {
		id := hs.FileID(1 + rng.IntN(30))
		switch rng.IntN(8) {
		case 0:
			if err := s.DeleteFile(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		case 6:
			if err := s.TrimFile(context.Background(), id, rng.IntN(40)); err != nil {
				t.Fatal(err)
			}
		case 1:
			var readers []hs.UserID
			for _, u := range users {
				if rng.IntN(2) == 0 {
					readers = append(readers, u)
				}
			}
			err := s.UpdateFileMeta(context.Background(), hs.FileMeta{ID: id, Readers: readers})
			if err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
				t.Fatal(err)
			}
		default:
			meta := hs.FileMeta{ID: id, Readers: users[:rng.IntN(4)]}
			var points []hs.Point
			for no := range rng.IntN(60) {
				p := hs.Point{ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no, Hash: fmt.Sprint(rng.IntN(40))}}
				for _, v := range []*hs.SparseVector{&p.BM25, &p.Trigram} {
					for _, term := range rng.Perm(50)[:rng.IntN(8)] {
						v.Indices = append(v.Indices, uint32(term))
						v.Values = append(v.Values, rng.Float32())
					}
				}
				if rng.IntN(3) > 0 {
					p.Dense = []float32{rng.Float32(), rng.Float32()}
				}
				points = append(points, p)
			}
			write := s.WriteFile
			if rng.IntN(3) == 0 {
				write = s.UpsertPoints // over whatever the file held
			}
			if err := write(context.Background(), meta, points); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 == 9 {
			if err := s.checkInvariants(); err != nil {
				t.Fatalf("after op %d: %v", i, err)
			}
		}
		maxSlots = max(maxSlots, len(s.idx.file))
	}
	s.waitIndexed()
	if err := s.checkInvariants(); err != nil {
		t.Fatalf("indexed: %v", err)
	}
	// 30 files of at most 59 chunks: reusing slots must keep them bounded.
	if maxSlots > 4*30*60 {
		t.Errorf("the slot arrays grew to %d", maxSlots)
	}
}
