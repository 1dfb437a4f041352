package kv

import (
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestRecords(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	ctx := t.Context()
	r, err := q.Records(ctx, "HS_TEST_RECORDS", "test", time.Hour, 1<<20)
	if err != nil {
		t.Fatalf("Records: %v", err)
	}
	if _, err := q.Records(ctx, "HS_TEST_RECORDS", "test", time.Hour, 1<<20); err != nil {
		t.Fatalf("Records again: %v", err)
	}
	kind := hs.ErrorKind
	rev, err := r.Create(ctx, "k1", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, "k1", []byte("again")); kind(err) != hs.ECONFLICT {
		t.Errorf("Create of an existing key = %v, want ECONFLICT", err)
	}
	if _, err := r.Create(ctx, "bad key*", []byte("x")); kind(err) != hs.EINVALID {
		t.Errorf("Create of a bad key = %v, want EINVALID", err)
	}
	v, got, err := r.Get(ctx, "k1")
	if err != nil || string(v) != "one" || got != rev {
		t.Errorf("Get = %q %d %v", v, got, err)
	}
	for _, k := range []string{"missing", "bad key*"} {
		if _, _, err := r.Get(ctx, k); kind(err) != hs.ENOTFOUND {
			t.Errorf("Get(%q) = %v, want ENOTFOUND", k, err)
		}
	}
	rev2, err := r.Update(ctx, "k1", []byte("two"), rev)
	if err != nil || rev2 == rev {
		t.Fatalf("Update = %d %v", rev2, err)
	}
	// A second writer holding the old revision loses: spend-once.
	if _, err := r.Update(ctx, "k1", []byte("three"), rev); kind(err) != hs.ECONFLICT {
		t.Errorf("Update with a stale revision = %v, want ECONFLICT", err)
	}
	if _, err := r.Update(ctx, "nope", []byte("x"), 1); kind(err) != hs.ECONFLICT {
		t.Errorf("Update of a missing key = %v, want ECONFLICT", err)
	}
	if err := r.Delete(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Get(ctx, "k1"); kind(err) != hs.ENOTFOUND {
		t.Errorf("Get after Delete = %v", err)
	}
	if err := r.Delete(ctx, "k1"); err != nil {
		t.Errorf("Delete of a missing key = %v", err)
	}
	if _, err := r.Create(ctx, "k1", []byte("new")); err != nil {
		t.Errorf("Create after Delete = %v", err)
	}
}
