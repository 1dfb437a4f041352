package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hybrid-search/hybridsearch"
)

// invariants returns the first broken invariant of the index, or nil.
func (x *index) invariants() error {
	if err := x.quantInvariants(); err != nil {
		return err
	}
	live := 0
	for s, r := range x.slots {
		if r == nil {
			continue
		}
		live++
		if r.slot != int32(s) || x.file[s] == nil || x.dense[s] != r.dense {
			return fmt.Errorf("slot %d: inconsistent record", s)
		}
	}
	if live != x.points || live+len(x.free)+len(x.dead) != len(x.slots) {
		return fmt.Errorf("%d live, %d free, %d dead of %d slots; points %d", live, len(x.free), len(x.dead), len(x.slots), x.points)
	}
	entries, want := 0, 0
	for _, r := range x.slots {
		if r != nil {
			want += len(x.file[r.slot].meta.Readers)
		}
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
			if x.slots[s] == nil || !slices.Contains(x.file[s].meta.Readers, u) {
				return fmt.Errorf("user %s: slot %d is not theirs", u, s)
			}
		}
	}
	for h, slots := range x.hashes {
		if len(slots) == 0 {
			return fmt.Errorf("hash %q: empty list", h)
		}
		for _, s := range slots {
			if r := x.slots[s]; r == nil || !r.dense || r.chunk.Hash != h {
				return fmt.Errorf("hash %q: slot %d is not a live point with that hash and a dense vector", h, s)
			}
		}
	}
	withHash := 0
	for _, r := range x.slots {
		if r != nil && r.dense && r.chunk.Hash != "" {
			withHash++
		}
	}
	if n := func() (n int) {
		for _, slots := range x.hashes {
			n += len(slots)
		}
		return n
	}(); n != withHash {
		return fmt.Errorf("%d slots in hash lists, want %d", n, withHash)
	}
	if entries != want {
		return fmt.Errorf("%d entries in user lists, want %d", entries, want)
	}
	dead := map[int32]bool{}
	for _, s := range x.dead {
		dead[s] = true
	}
	for n, ix := range x.sparse {
		docs := 0
		for _, r := range x.slots {
			if r != nil && len([]hybridsearch.SparseVector{r.bm25, r.trigram}[n].Indices) > 0 {
				docs++
			}
		}
		if docs != ix.docs {
			return fmt.Errorf("sparse %d: docs %d, want %d", n, ix.docs, docs)
		}
		for term, pl := range ix.postings {
			count := 0
			for _, p := range pl.ps {
				if r := x.slots[p.slot]; r != nil {
					v := []hybridsearch.SparseVector{r.bm25, r.trigram}[n]
					if k := slices.Index(v.Indices, term); k < 0 || v.Values[k] != p.w {
						return fmt.Errorf("sparse %d term %d: posting of slot %d not in its vector", n, term, p.slot)
					}
					count++
				} else if !dead[p.slot] {
					return fmt.Errorf("sparse %d term %d: posting of free slot %d", n, term, p.slot)
				}
			}
			if count != pl.live || count == 0 {
				return fmt.Errorf("sparse %d term %d: live %d, counted %d", n, term, pl.live, count)
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
	users := []hybridsearch.UserID{"alice", "bob", "carol"}
	maxSlots, purges := 0, 0
	for i := range 300 {
		deadBefore := len(s.idx.dead)
		id := hybridsearch.FileID(1 + rng.IntN(30))
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
			var readers []hybridsearch.UserID
			for _, u := range users {
				if rng.IntN(2) == 0 {
					readers = append(readers, u)
				}
			}
			err := s.UpdateFileMeta(context.Background(), hybridsearch.FileMeta{ID: id, Readers: readers})
			if err != nil && hybridsearch.ErrorKind(err) != hybridsearch.ENOTFOUND {
				t.Fatal(err)
			}
		default:
			meta := hybridsearch.FileMeta{ID: id, Readers: users[:rng.IntN(4)]}
			var points []hybridsearch.Point
			for no := range rng.IntN(60) {
				p := hybridsearch.Point{ID: hybridsearch.PointID(id, no), Chunk: hybridsearch.Chunk{FileID: id, No: no, Hash: fmt.Sprint(rng.IntN(40))}}
				for _, v := range []*hybridsearch.SparseVector{&p.BM25, &p.Trigram} {
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
		maxSlots = max(maxSlots, len(s.idx.slots))
	}
	// 30 files of at most 59 chunks: purging must keep the slots bounded.
	if maxSlots > 2*30*60+purgeMin {
		t.Errorf("the slot arrays grew to %d", maxSlots)
	}
	if purges < 2 {
		t.Errorf("%d purges, want several", purges)
	}
}
