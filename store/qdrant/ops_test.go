package qdrant_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

func TestQdrantSearchRequests(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(1, "/Documents/a.md", "alice")
	mustWriteQ(t, s, m, qpoint(m, 0, []float32{1, 0, 0, 0}))
	after, before := time.Unix(1700000000, 500_000_000), time.Unix(1800000000, 1)
	f := hs.Filter{
		Types: []hs.DocType{hs.DocNote}, MIMEs: []string{"text/markdown", "text/plain"},
		PathPrefix: "/Documents/", ModifiedAfter: after, ModifiedBefore: before,
	}
	sq := hs.SparseVector{Indices: []uint32{9, 1}, Values: []float32{0.5, 1}}
	calls := []struct {
		name  string
		call  func(ctx context.Context) error
		using string
		limit uint64
	}{
		{"dense", func(ctx context.Context) error {
			_, err := s.SearchDense(ctx, "alice", []float32{1, 0, 0, 0}, 5000, f)
			return err
		}, "dense", store.MaxK},
		{"bm25", func(ctx context.Context) error {
			_, err := s.SearchSparse(ctx, "alice", "bm25", sq, 7, f)
			return err
		}, "bm25", 7},
		{"trigram", func(ctx context.Context) error {
			_, err := s.SearchSparse(ctx, "alice", "trigram", sq, 30, f)
			return err
		}, "trigram", 30},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			n := len(srv.Requests())
			if err := tt.call(t.Context()); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()[n:]
			if len(reqs) != 1 || reqs[0].Method != qc.Points_Query_FullMethodName {
				t.Fatalf("search sent %v, want one query", reqs)
			}
			q := reqs[0].Message.(*qc.QueryPoints)
			if q.GetUsing() != tt.using || q.GetLimit() != tt.limit {
				t.Errorf("query using %q limit %d, want %q %d", q.GetUsing(), q.GetLimit(), tt.using, tt.limit)
			}
			if sp := q.GetQuery().GetNearest().GetSparse(); sp != nil && !slices.Equal(sp.GetIndices(), []uint32{1, 9}) {
				t.Errorf("sparse query indices %v, want sorted [1 9]", sp.GetIndices())
			}
			got := describeFilter(q.GetFilter())
			want := []string{
				"readers=alice", "type in [note]", "mime in [text/markdown text/plain]",
				"reader_prefixes=alice:/Documents", "mtime > 1700000000.0 < 1800000001.0",
			}
			if !slices.Equal(got, want) {
				t.Errorf("filter = %q, want %q", got, want)
			}
		})
	}

	// Without text, a search asks for the chunk number and the file's
	// metadata only; ReadChunks scrolls the named points the user reads.
	lean := f
	lean.OmitText = true
	n := len(srv.Requests())
	if _, err := s.SearchDense(t.Context(), "alice", []float32{1, 0, 0, 0}, 10, lean); err != nil {
		t.Fatal(err)
	}
	q := srv.Requests()[n].Message.(*qc.QueryPoints)
	if fields := q.GetWithPayload().GetInclude().GetFields(); slices.Contains(fields, "text") || slices.Contains(fields, "headings") || !slices.Contains(fields, "chunk_no") || !slices.Contains(fields, "readers") {
		t.Errorf("a search without text asks for payload %v", fields)
	}
	n = len(srv.Requests())
	hit := hs.Hit{Point: hs.Point{Chunk: hs.Chunk{FileID: 1, No: 0}, File: m}}
	if got, err := s.ReadChunks(t.Context(), "alice", []hs.Hit{hit}); err != nil || len(got) != 1 {
		t.Fatalf("ReadChunks = %v, %v", got, err)
	}
	for _, r := range srv.Requests()[n:] {
		sc, ok := r.Message.(*qc.ScrollPoints)
		if !ok || !slices.Equal(describeFilter(sc.GetFilter())[:1], []string{"readers=alice"}) || sc.GetWithVectors().GetEnable() {
			t.Errorf("ReadChunks sent %s %v, want a scroll without vectors filtered by readers=alice", r.Method, r.Message)
		}
	}

	n = len(srv.Requests())
	if _, err := s.Files(t.Context(), "bob"); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests()[n:] {
		sc, ok := r.Message.(*qc.ScrollPoints)
		if !ok || !slices.Equal(describeFilter(sc.GetFilter()), []string{"readers=bob"}) {
			t.Errorf("Files(bob) sent %s %v, want a scroll filtered by readers=bob", r.Method, r.Message)
		}
	}
}

// describeFilter renders the must conditions the adapter sends.
func describeFilter(f *qc.Filter) []string {
	var out []string
	for _, c := range f.GetMust() {
		fc := c.GetField()
		switch {
		case fc.GetMatch().GetKeyword() != "":
			out = append(out, fc.GetKey()+"="+fc.GetMatch().GetKeyword())
		case fc.GetMatch().GetKeywords() != nil:
			out = append(out, fmt.Sprintf("%s in %v", fc.GetKey(), fc.GetMatch().GetKeywords().GetStrings()))
		case fc.GetRange() != nil:
			out = append(out, fmt.Sprintf("%s > %.1f < %.1f", fc.GetKey(), fc.GetRange().GetGt(), fc.GetRange().GetLt()))
		default:
			out = append(out, fmt.Sprint(c))
		}
	}
	if len(f.GetShould())+len(f.GetMustNot()) > 0 {
		out = append(out, "unexpected should/must_not")
	}
	return out
}

func TestQdrantModifiedBetweenSeconds(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(1, "/a.md", "alice")
	m.Modified = time.Unix(1700000001, 0)
	mustWriteQ(t, s, m, qpoint(m, 0, []float32{1, 0, 0, 0}))
	at := func(sec, nsec int64) time.Time { return time.Unix(sec, nsec) }
	tests := []struct {
		name   string
		filter hs.Filter
		found  bool
	}{
		{"after half a second before", hs.Filter{ModifiedAfter: at(1700000000, 500_000_000)}, true},
		{"after the same second", hs.Filter{ModifiedAfter: at(1700000001, 0)}, false},
		{"after a fraction into it", hs.Filter{ModifiedAfter: at(1700000001, 1)}, false},
		{"before a fraction after", hs.Filter{ModifiedBefore: at(1700000001, 1)}, true},
		{"before the same second", hs.Filter{ModifiedBefore: at(1700000001, 0)}, false},
		{"before a fraction before", hs.Filter{ModifiedBefore: at(1700000000, 999_999_999)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.SearchDense(t.Context(), "alice", []float32{1, 0, 0, 0}, 10, tt.filter)
			if err != nil || (len(hits) == 1) != tt.found {
				t.Errorf("found %d hits (%v), want found = %v", len(hits), err, tt.found)
			}
		})
	}
}

func TestQdrantArgumentErrorsSendNothing(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	ctx := t.Context()
	v := []float32{1, 0, 0, 0}
	sq := hs.SparseVector{Indices: []uint32{1}, Values: []float32{1}}
	calls := []struct {
		name string
		call func() error
	}{
		{"dense, empty user", func() error { _, err := s.SearchDense(ctx, "", v, 10, hs.Filter{}); return err }},
		{"bm25, empty user", func() error { _, err := s.SearchSparse(ctx, "", "bm25", sq, 10, hs.Filter{}); return err }},
		{"trigram, empty user", func() error { _, err := s.SearchSparse(ctx, "", "trigram", sq, 10, hs.Filter{}); return err }},
		{"files, empty user", func() error { _, err := s.Files(ctx, ""); return err }},
		{"dense, k 0", func() error { _, err := s.SearchDense(ctx, "alice", v, 0, hs.Filter{}); return err }},
		{"dense, wrong dimension", func() error { _, err := s.SearchDense(ctx, "alice", v[:3], 10, hs.Filter{}); return err }},
		{"dense, NaN", func() error {
			_, err := s.SearchDense(ctx, "alice", []float32{float32(math.NaN()), 0, 0, 0}, 10, hs.Filter{})
			return err
		}},
		{"sparse, unknown vector", func() error {
			_, err := s.SearchSparse(ctx, "alice", "dense", sq, 10, hs.Filter{})
			return err
		}},
		{"write, wrong dimension", func() error {
			m := qmeta(1, "/a.md", "alice")
			return s.WriteFile(ctx, m, []hs.Point{qpoint(m, 0, []float32{1, 2})})
		}},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			n := len(srv.Requests())
			if err := tt.call(); hs.ErrorKind(err) != hs.EINVALID {
				t.Errorf("error = %v, want EINVALID", err)
			}
			if got := srv.Requests()[n:]; len(got) != 0 {
				t.Errorf("sent %d requests, want none", len(got))
			}
		})
	}
}

func TestQdrantErrorKinds(t *testing.T) {
	tests := []struct {
		code codes.Code
		want string
	}{
		{codes.Unavailable, hs.EUNAVAILABLE},
		{codes.DeadlineExceeded, hs.EUNAVAILABLE},
		{codes.ResourceExhausted, hs.EUNAVAILABLE},
		{codes.InvalidArgument, hs.EINVALID},
		{codes.NotFound, hs.ENOTFOUND},
		{codes.PermissionDenied, hs.EUNAUTHORIZED},
		{codes.Unauthenticated, hs.EUNAUTHORIZED},
		{codes.Internal, hs.EINTERNAL},
		{codes.Unimplemented, hs.EINTERNAL},
	}
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(1, "/a.md", "alice")
	ops := []struct {
		method string
		call   func(ctx context.Context) error
	}{
		{qc.Points_Query_FullMethodName, func(ctx context.Context) error {
			_, err := s.SearchDense(ctx, "alice", []float32{1, 0, 0, 0}, 10, hs.Filter{})
			return err
		}},
		{qc.Points_Upsert_FullMethodName, func(ctx context.Context) error {
			return s.WriteFile(ctx, m, []hs.Point{qpoint(m, 0, []float32{1, 0, 0, 0})})
		}},
		{qc.Points_Delete_FullMethodName, func(ctx context.Context) error { return s.DeleteFile(ctx, 1) }},
		{qc.Points_Scroll_FullMethodName, func(ctx context.Context) error { _, err := s.Files(ctx, "alice"); return err }},
		{qc.Points_Count_FullMethodName, func(ctx context.Context) error { _, err := s.Stats(ctx); return err }},
		{qc.Qdrant_HealthCheck_FullMethodName, s.Health},
	}
	for _, op := range ops {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s %s", op.method, tt.code), func(t *testing.T) {
				srv.FailNext(op.method, tt.code)
				err := op.call(t.Context())
				if got := hs.ErrorKind(err); got != tt.want {
					t.Errorf("error = %v (kind %q), want kind %q", err, got, tt.want)
				}
				if err != nil && !strings.HasPrefix(err.Error(), "store: qdrant ") {
					t.Errorf("error %q lacks the store: qdrant prefix", err)
				}
			})
		}
	}
}

func TestQdrantWriteFailsBetweenSteps(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(1, "/a.md", "alice")
	mustWriteQ(t, s, m, qpoint(m, 0, []float32{1, 0, 0, 0}), qpoint(m, 1, []float32{0, 1, 0, 0}))

	srv.FailNext(qc.Points_Delete_FullMethodName, codes.Unavailable)
	one := []hs.Point{qpoint(m, 0, []float32{0, 0, 1, 0})}
	if err := s.WriteFile(t.Context(), m, one); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Fatalf("WriteFile with a failing delete = %v, want EUNAVAILABLE", err)
	}
	if got := chunkNos(t, s, 1); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("after the failed write chunks = %v, want the old extra kept [0 1]", got)
	}
	mustWriteQ(t, s, m, one...) // the retry converges
	if got := chunkNos(t, s, 1); !slices.Equal(got, []int{0}) {
		t.Errorf("after the retry chunks = %v, want [0]", got)
	}
}

func TestQdrantWriteSparseChunkNumbers(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(7, "/a.md", "alice")
	write := func(nos ...int) {
		var pts []hs.Point
		for _, no := range nos {
			pts = append(pts, qpoint(m, no, []float32{1, float32(no), 0, 0}))
		}
		mustWriteQ(t, s, m, pts...)
	}
	write(0, 2, 5)
	write(5, 2) // keeps 2 and 5 although len(points) is 2
	if got := chunkNos(t, s, 7); !slices.Equal(got, []int{2, 5}) {
		t.Errorf("chunks = %v, want [2 5]", got)
	}
	deletes := srv.RequestsFor(qc.Points_Delete_FullMethodName)
	last := deletes[len(deletes)-1].(*qc.DeletePoints).GetPoints().GetFilter()
	if !mustHasFileID(last) || len(last.GetMustNot()) != 1 || len(last.GetMustNot()[0].GetHasId().GetHasId()) != 2 {
		t.Errorf("delete filter = %v, want file_id and not the 2 written ids", last)
	}
}

func TestQdrantLargeFile(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(3, "/big.md", "alice")
	const n = 600 // several upsert batches and scroll pages
	pts := make([]hs.Point, n)
	hashes := make([]string, n)
	for i := range pts {
		pts[i] = qpoint(m, n-1-i, []float32{1, float32(i), 0, 0})
		hashes[i] = pts[i].Chunk.Hash
	}
	mustWriteQ(t, s, m, pts...)
	if got := len(srv.RequestsFor(qc.Points_Upsert_FullMethodName)); got < 2 {
		t.Errorf("%d points went in %d upserts, want batches", n, got)
	}
	scrolls := len(srv.RequestsFor(qc.Points_Scroll_FullMethodName))
	got := chunkNos(t, s, 3)
	if len(got) != n || !slices.IsSorted(got) || got[0] != 0 {
		t.Errorf("FilePoints returned %d chunks (sorted %v), want %d in order", len(got), slices.IsSorted(got), n)
	}
	if pages := len(srv.RequestsFor(qc.Points_Scroll_FullMethodName)) - scrolls; pages < 2 {
		t.Errorf("FilePoints read %d pages, want several", pages)
	}
	vecs, err := s.VectorsByHash(t.Context(), append(hashes, "absent"))
	if err != nil || len(vecs) != n {
		t.Errorf("VectorsByHash found %d of %d vectors, %v", len(vecs), n, err)
	}
	files, err := s.Files(t.Context(), "alice")
	if err != nil || len(files) != 1 || files[0].ID != 3 {
		t.Errorf("Files(alice) = %v, %v, want file 3 once", files, err)
	}
	st, err := s.Stats(t.Context())
	if err != nil || st != (store.Stats{Points: n, Files: 1, Dim: 4}) {
		t.Errorf("Stats() = %+v, %v", st, err)
	}
}

func TestQdrantMetadataRoundTrip(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	m := qmeta(5, "/x/y.md", "bob", "", "alice", "bob")
	m.Modified = time.Date(2026, 3, 1, 12, 0, 0, 987_000_000, time.FixedZone("CET", 3600))
	mustWriteQ(t, s, m, qpoint(m, 0, nil))
	got, err := s.FilePoints(t.Context(), 5, false)
	if err != nil || len(got) != 1 {
		t.Fatalf("FilePoints = %v, %v", got, err)
	}
	f := got[0].File
	if !slices.Equal(f.Readers, []hs.UserID{"alice", "bob"}) {
		t.Errorf("readers = %q, want sorted, unique, non-empty", f.Readers)
	}
	if want := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC); f.Modified != want {
		t.Errorf("modified = %v, want %v (whole seconds, UTC)", f.Modified, want)
	}

	zero := qmeta(6, "/z.md", "alice")
	zero.Modified = time.Time{}
	mustWriteQ(t, s, zero, qpoint(zero, 0, nil))
	got, err = s.FilePoints(t.Context(), 6, false)
	if err != nil || len(got) != 1 || !got[0].File.Modified.IsZero() {
		t.Errorf("a zero modification time reads back as %v, %v", got, err)
	}
}

func TestQdrantCancelledContext(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n := len(srv.Requests())
	_, err := s.SearchDense(ctx, "alice", []float32{1, 0, 0, 0}, 10, hs.Filter{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("SearchDense(cancelled) = %v, want context.Canceled", err)
	}
	if got := len(srv.Requests()) - n; got != 0 {
		t.Errorf("a cancelled call sent %d requests", got)
	}
}

func TestQdrantClosed(t *testing.T) {
	srv := qdranttest.NewServer(t)
	o := fakeOptions(srv)
	o.Logger = qdrantLogger(t)
	s, err := qdrant.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	if err := s.Health(t.Context()); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Health() after Close = %v, want EUNAVAILABLE", err)
	}
	if _, err := s.Files(t.Context(), "alice"); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Files() after Close = %v, want EUNAVAILABLE", err)
	}
}

func TestQdrantUpdateFileMetaNotFound(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	err := s.UpdateFileMeta(t.Context(), qmeta(9, "/none.md", "alice"))
	if hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("UpdateFileMeta(absent) = %v, want ENOTFOUND", err)
	}
	if got := srv.RequestsFor(qc.Points_SetPayload_FullMethodName); len(got) != 0 {
		t.Errorf("UpdateFileMeta(absent) set payload: %v", got)
	}
}

// qmeta returns the metadata of a test file.
func qmeta(id hs.FileID, path string, readers ...hs.UserID) hs.FileMeta {
	return hs.FileMeta{
		ID: id, Path: path, Title: path, MIME: "text/markdown", Type: hs.DocFile,
		Modified: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), ETag: "e", Size: 10, Readers: readers,
	}
}

// qpoint returns chunk no of a file with a dense vector (nil for none) and
// one bm25 and trigram index.
func qpoint(m hs.FileMeta, no int, dense []float32) hs.Point {
	text := fmt.Sprintf("chunk %d of %d", no, m.ID)
	return hs.Point{
		ID:      hs.PointID(m.ID, no),
		Chunk:   hs.Chunk{FileID: m.ID, No: no, Text: text, Hash: fmt.Sprintf("%x", text)},
		File:    m,
		Dense:   dense,
		BM25:    hs.SparseVector{Indices: []uint32{1}, Values: []float32{1}},
		Trigram: hs.SparseVector{Indices: []uint32{2}, Values: []float32{1}},
	}
}

func mustWriteQ(t *testing.T, s *qdrant.Store, m hs.FileMeta, pts ...hs.Point) {
	t.Helper()
	if err := s.WriteFile(t.Context(), m, pts); err != nil {
		t.Fatalf("WriteFile(%d) = %v", m.ID, err)
	}
}

// chunkNos returns the chunk numbers of a file, in the order FilePoints
// returns them.
func chunkNos(t *testing.T, s *qdrant.Store, id hs.FileID) []int {
	t.Helper()
	pts, err := s.FilePoints(t.Context(), id, true)
	if err != nil {
		t.Fatalf("FilePoints(%d) = %v", id, err)
	}
	var nos []int
	for _, p := range pts {
		nos = append(nos, p.Chunk.No)
	}
	return nos
}
