package kv

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestStates(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	s := q.States()
	ctx := t.Context()
	kindOf := hs.ErrorKind

	if _, _, err := s.Get(ctx, 1); kindOf(err) != hs.ENOTFOUND {
		t.Fatalf("Get of a missing state: %v, want ENOTFOUND", err)
	}
	st := hs.FileState{ID: 1, ETag: "e1", MIME: "text/markdown", Paths: map[hs.UserID]string{"alice": "/a.md"},
		Readers: []hs.UserID{"alice"}, Chunks: 1, Status: hs.StatusIndexed, Updated: time.Now().UTC()}
	if err := s.Update(ctx, st, 0); err != nil {
		t.Fatalf("Update rev 0 (create): %v", err)
	}
	if err := s.Update(ctx, st, 0); kindOf(err) != hs.ECONFLICT {
		t.Fatalf("Update rev 0 of an existing state: %v, want ECONFLICT", err)
	}
	got, rev, err := s.Get(ctx, 1)
	if err != nil || got.ETag != "e1" || got.Paths["alice"] != "/a.md" || rev == 0 {
		t.Fatalf("Get = %+v, %d, %v; want the stored state", got, rev, err)
	}
	got.ETag = "e2"
	if err := s.Update(ctx, got, rev); err != nil {
		t.Fatalf("Update with the current revision: %v", err)
	}
	got.ETag = "e3"
	if err := s.Update(ctx, got, rev); kindOf(err) != hs.ECONFLICT {
		t.Fatalf("Update with a stale revision: %v, want ECONFLICT", err)
	}
	if st, _, _ := s.Get(ctx, 1); st.ETag != "e2" {
		t.Errorf("ETag after a refused update = %q, want e2", st.ETag)
	}
	for id := hs.FileID(2); id <= 3; id++ {
		if err := s.Put(ctx, hs.FileState{ID: id, Status: hs.StatusPending}); err != nil {
			t.Fatalf("Put %d: %v", id, err)
		}
	}
	if err := s.Put(ctx, hs.FileState{ID: 3, Status: hs.StatusSkipped}); err != nil {
		t.Fatalf("Put over: %v", err)
	}
	if st, _, _ := s.Get(ctx, 3); st.Status != hs.StatusSkipped {
		t.Errorf("status after Put over = %q, want skipped", st.Status)
	}

	if err := s.Delete(ctx, 2); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := s.Delete(ctx, 2); err != nil {
		t.Fatalf("Delete again: %v", err)
	}
	if _, _, err := s.Get(ctx, 2); kindOf(err) != hs.ENOTFOUND {
		t.Errorf("Get after Delete: %v, want ENOTFOUND", err)
	}
	var ids []hs.FileID
	if err := s.List(ctx, func(st hs.FileState) error { ids = append(ids, st.ID); return nil }); err != nil {
		t.Fatalf("List: %v", err)
	}
	slices.Sort(ids)
	if want := []hs.FileID{1, 3}; !slices.Equal(ids, want) {
		t.Errorf("List ids = %v, want %v", ids, want)
	}
	if err := s.Update(ctx, hs.FileState{ID: 2}, 0); err != nil {
		t.Errorf("Update rev 0 after Delete: %v, want a fresh create", err)
	}

	stop := errors.New("enough")
	n := 0
	err = s.List(ctx, func(hs.FileState) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("List with fn failing: %v after %d calls, want the fn's error after 1", err, n)
	}
	for _, bad := range []hs.FileID{0, -4} {
		if err := s.Put(ctx, hs.FileState{ID: bad}); kindOf(err) != hs.EINVALID {
			t.Errorf("Put id %d: %v, want EINVALID", bad, err)
		}
		if _, _, err := s.Get(ctx, bad); kindOf(err) != hs.EINVALID {
			t.Errorf("Get id %d: %v, want EINVALID", bad, err)
		}
	}
}

func TestStatesListEmptyAndMany(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	s := q.States()
	n := 0
	if err := s.List(t.Context(), func(hs.FileState) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("List of an empty bucket: %d states, %v", n, err)
	}
	const many = 1500
	for i := range many {
		if err := s.Put(t.Context(), hs.FileState{ID: hs.FileID(i + 1), Status: hs.StatusIndexed}); err != nil {
			t.Fatal(err)
		}
	}
	seen := make(map[hs.FileID]bool)
	if err := s.List(t.Context(), func(st hs.FileState) error { seen[st.ID] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != many {
		t.Errorf("List saw %d states, want %d", len(seen), many)
	}
}

func TestStatesUnavailable(t *testing.T) {
	t.Parallel()
	q, s, _ := mustOpen(t, Options{})
	s.Shutdown()
	ctx, cancel := contextWithTimeout(t, time.Second)
	defer cancel()
	if _, _, err := q.States().Get(ctx, 1); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Get with NATS down: %v, want EUNAVAILABLE", err)
	}
}

// TestStatesReadOldChunkHashes: a state written by an older version, with
// every chunk's hash, reads back with its chunk count; and a state of a
// file with tens of thousands of chunks and many readers stays small.
func TestStatesReadOldChunkHashes(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	old := `{"id":7,"etag":"e","paths":{"alice":"/a.md"},"readers":["alice"],"chunk_hashes":["h1","h2","h3"],"status":"indexed","updated":"2026-01-01T00:00:00Z"}`
	if _, err := q.files.Put(t.Context(), "7", []byte(old)); err != nil {
		t.Fatal(err)
	}
	st, _, err := q.States().Get(t.Context(), 7)
	if err != nil || st.Chunks != 3 || st.Status != hs.StatusIndexed {
		t.Errorf("old state = %+v, %v; want 3 chunks", st, err)
	}
	big := hs.FileState{ID: 8, Chunks: 40000, Status: hs.StatusIndexed, Paths: map[hs.UserID]string{}}
	for i := range 1000 {
		u := hs.UserID("user" + strconv.Itoa(i))
		big.Readers = append(big.Readers, u)
		big.Paths[u] = "/Shared/Reports/annual report 2026.pdf"
	}
	_, data, err := encodeState(big)
	if err != nil || len(data) > 128<<10 {
		t.Errorf("state of a 40,000-chunk file with 1,000 readers is %d bytes (%v), want well under NATS's 1 MiB", len(data), err)
	}
}
