package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// invariants returns the first broken invariant of the index, or nil. It
// reads every live point's record to check the posting and hash lists.
func (x *index) invariants() error {
	if err := x.quantInvariants(); err != nil {
		return err
	}
	n := len(x.file)
	if len(x.ids) != n || len(x.nos) != n || len(x.locs) != n || len(x.dense) != n || len(x.qrow) != n {
		return fmt.Errorf("slot arrays of %d, %d, %d, %d, %d entries for %d slots", len(x.ids), len(x.nos), len(x.locs), len(x.dense), len(x.qrow), n)
	}
	live := 0
	recs := make(map[int32]pointIn)
	for s, f := range x.file {
		if f == nil {
			if x.dense[s] {
				return fmt.Errorf("free slot %d has a dense vector", s)
			}
			continue
		}
		live++
		if x.files[f.meta.ID] != f {
			return fmt.Errorf("slot %d: file %d is not stored", s, f.meta.ID)
		}
		if _, ok := slices.BinarySearch(f.slots, int32(s)); !ok {
			return fmt.Errorf("slot %d: not among its file's slots", s)
		}
		var buf []byte
		p, err := x.point(int32(s), true, &buf)
		if err != nil {
			return fmt.Errorf("slot %d: %v", s, err)
		}
		if p.ID != x.ids[s].String() || p.Chunk.No != int(x.nos[s]) || (p.Dense != nil) != x.dense[s] {
			return fmt.Errorf("slot %d: record %s chunk %d (dense %v) does not match %s chunk %d (dense %v)", s, p.ID, p.Chunk.No, p.Dense != nil, x.ids[s], x.nos[s], x.dense[s])
		}
		if p.Dense != nil && !slices.Equal(p.Dense, x.vector(int32(s))) {
			return fmt.Errorf("slot %d: dense row differs from its record", s)
		}
		recs[int32(s)] = pointIn{id: p.ID, chunk: p.Chunk, dense: p.Dense, bm25: p.BM25, trigram: p.Trigram}
	}
	if live != x.points || live+len(x.free)+len(x.dead) != n {
		return fmt.Errorf("%d live, %d free, %d dead of %d slots; points %d", live, len(x.free), len(x.dead), n, x.points)
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
	}
	entries, want := 0, 0
	for _, f := range x.files {
		want += len(f.meta.Readers) * len(f.slots)
	}
	for u, slots := range x.users {
		entries += len(slots)
		if len(slots) == 0 {
			return fmt.Errorf("user %s: no slots", u)
		}
		for i := 1; i < len(slots); i++ {
			if slots[i] <= slots[i-1] {
				return fmt.Errorf("user %s: slots not strictly increasing", u)
			}
		}
		for _, s := range slots {
			if !x.live(s) || !slices.Contains(x.file[s].meta.Readers, u) {
				return fmt.Errorf("user %s: slot %d is not theirs", u, s)
			}
		}
	}
	if entries != want {
		return fmt.Errorf("%d entries in user lists, want %d", entries, want)
	}
	inHashes := 0
	for key, slots := range x.hashes {
		if len(slots) == 0 {
			return fmt.Errorf("hash key %x: empty list", key)
		}
		for _, s := range slots {
			if r, ok := recs[s]; !ok || !x.dense[s] || x.hashKey(r.chunk.Hash) != key {
				return fmt.Errorf("hash key %x: slot %d is not a live point with that hash and a dense vector", key, s)
			}
		}
		inHashes += len(slots)
	}
	withHash := 0
	for s, r := range recs {
		if x.dense[s] && r.chunk.Hash != "" {
			withHash++
		}
	}
	if inHashes != withHash {
		return fmt.Errorf("%d slots in hash lists, want %d", inHashes, withHash)
	}
	dead := map[int32]bool{}
	for _, s := range x.dead {
		dead[s] = true
	}
	for n, ix := range x.sparse {
		vec := func(r pointIn) hs.SparseVector { return []hs.SparseVector{r.bm25, r.trigram}[n] }
		docs := 0
		for _, r := range recs {
			if len(vec(r).Indices) > 0 {
				docs++
			}
		}
		if docs != ix.docs {
			return fmt.Errorf("sparse %d: docs %d, want %d", n, ix.docs, docs)
		}
		for term, pl := range ix.postings {
			count := 0
			var err error
			seen := map[int32]bool{}
			ix.each(pl.buf, func(s int32, w float32) {
				switch r, ok := recs[s]; {
				case seen[s]:
					err = fmt.Errorf("sparse %d term %d: slot %d twice", n, term, s)
				case ok:
					v := vec(r)
					if k := slices.Index(v.Indices, term); k < 0 || v.Values[k] != w {
						err = fmt.Errorf("sparse %d term %d: posting of slot %d (%v) not in its vector", n, term, s, w)
					}
					count++
				case !dead[s]:
					err = fmt.Errorf("sparse %d term %d: posting of free slot %d", n, term, s)
				}
				seen[s] = true
			})
			if err != nil {
				return err
			}
			if int32(count) != pl.live || count == 0 {
				return fmt.Errorf("sparse %d term %d: live %d, counted %d", n, term, pl.live, count)
			}
		}
		for s, r := range recs {
			for _, term := range vec(r).Indices {
				if ix.postings[term] == nil {
					return fmt.Errorf("sparse %d: no postings of term %d of slot %d", n, term, s)
				}
			}
		}
	}
	return nil
}

func TestIndexInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	users := []hs.UserID{"alice", "bob", "carol"}
	maxSlots, purges := 0, 0
	for i := range 300 {
		deadBefore := len(s.idx.dead)
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
		if len(s.idx.dead) < deadBefore {
			purges++
		}
		if i%10 == 9 || purges == 1 {
			if err := s.idx.invariants(); err != nil {
				t.Fatalf("after op %d: %v", i, err)
			}
		}
		maxSlots = max(maxSlots, len(s.idx.file))
	}
	// 30 files of at most 59 chunks: purging must keep the slots bounded.
	if maxSlots > 2*30*60+purgeMin {
		t.Errorf("the slot arrays grew to %d", maxSlots)
	}
	if purges < 2 {
		t.Errorf("%d purges, want several", purges)
	}
}
