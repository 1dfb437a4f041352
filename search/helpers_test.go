package search_test

import (
	"context"
	"encoding/json"
	"github.com/hybrid-search/hybridsearch/indexing"
	"log/slog"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store/local"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// testDim is the dense dimension of every test index: nomic-embed-text's.
const testDim = embeddingtest.DefaultDim

// baseTime is the default modification time of fixture documents.
var baseTime = time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC)

// doc is one document of a fixture (docs.json).
type doc struct {
	ID       hs.FileID   `json:"id"`
	Title    string      `json:"title,omitempty"`   // default: the file name without extension
	Path     string      `json:"path"`              // default: /Documents/<id>.md
	MIME     string      `json:"mime,omitempty"`    // default: text/markdown
	Type     hs.DocType  `json:"type,omitempty"`    // default: file
	Modified time.Time   `json:"modified,omitzero"` // default: baseTime
	Readers  []hs.UserID `json:"readers,omitempty"` // default: [alice]
	// Paths are the readers' own paths; default: every reader at Path.
	Paths map[hs.UserID]string `json:"paths,omitempty"`
	Text  string               `json:"text"`
}

// meta returns the document's metadata with the defaults filled in.
func (d doc) meta() hs.FileMeta {
	m := hs.FileMeta{ID: d.ID, Path: d.Path, Title: d.Title, MIME: d.MIME, Type: d.Type, Modified: d.Modified, Readers: d.Readers, ETag: "e1", Size: int64(len(d.Text))}
	if m.Path == "" {
		m.Path = "/Documents/" + strings.TrimSpace(d.Title) + ".md"
	}
	if m.Title == "" {
		m.Title = strings.TrimSuffix(path.Base(m.Path), path.Ext(m.Path))
	}
	if m.MIME == "" {
		m.MIME = "text/markdown"
	}
	if m.Type == "" {
		m.Type = hs.DocFile
	}
	if m.Modified.IsZero() {
		m.Modified = baseTime
	}
	if len(m.Readers) == 0 {
		m.Readers = []hs.UserID{"alice"}
	}
	m.Paths = d.Paths
	if m.Paths == nil {
		m.Paths = map[hs.UserID]string{}
		for _, u := range m.Readers {
			m.Paths[u] = m.Path
		}
	}
	return m
}

// writer is the part of a store the fixtures write to.
type writer interface {
	WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error
}

// testStore is what a Service needs of a store, plus writing.
type testStore interface {
	writer
	search.DenseRetriever
	search.SparseRetriever
}

// mustIndex indexes docs the way the indexing pipeline does: the real
// chunker, the text embedded and analysed as title, headings and chunk
// (indexing.EmbedInput), and Deterministic document vectors.
func mustIndex(tb testing.TB, st writer, docs ...doc) {
	tb.Helper()
	mustIndexWith(tb, st, embeddingtest.Deterministic{}, docs...)
}

// mustIndexWith is mustIndex with another embedder's document vectors.
func mustIndexWith(tb testing.TB, st writer, emb search.DocumentEmbedder, docs ...doc) {
	tb.Helper()
	for _, d := range docs {
		meta := d.meta()
		chunks := chunk.Chunker{}.Chunk(d.ID, hs.Text{Body: d.Text, Title: meta.Title})
		inputs := make([]string, len(chunks))
		points := make([]hs.Point, len(chunks))
		for i, c := range chunks {
			inputs[i] = indexing.EmbedInput(meta.Title, c)
			bm25, tri := analysis.PointVectors(meta, c)
			points[i] = hs.Point{ID: hs.PointID(d.ID, c.No), Chunk: c, File: meta, BM25: bm25, Trigram: tri}
		}
		vecs, err := emb.EmbedDocuments(tb.Context(), inputs)
		if err != nil {
			tb.Fatalf("embed %d: %v", d.ID, err)
		}
		for i := range points {
			points[i].Dense = vecs[i]
		}
		if err := st.WriteFile(tb.Context(), meta, points); err != nil {
			tb.Fatalf("WriteFile(%d) = %v", d.ID, err)
		}
	}
}

// mustReadJSON decodes a testdata file.
func mustReadJSON(tb testing.TB, file string, v any) {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
}

// storeKinds are the stores every store-backed test runs on.
var storeKinds = []struct {
	name string
	open func(tb testing.TB) testStore
}{
	{"local", openLocal},
	{"local-text", openLocalText},
	{"qdrant", openQdrant},
}

// textHits is a local store whose hits a Service gets with their text
// (mustService leaves Options.Chunks unset): the path of a store without
// a ChunkReader.
type textHits struct{ *local.Store }

func openLocalText(tb testing.TB) testStore {
	return textHits{openLocal(tb).(*local.Store)}
}

func openLocal(tb testing.TB) testStore {
	tb.Helper()
	s, err := local.Open(tb.TempDir(), local.Options{Dim: testDim, Logger: testLogger(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// openQdrant returns the Qdrant adapter against the in-process fake.
func openQdrant(tb testing.TB) testStore {
	tb.Helper()
	s, _ := openQdrantServer(tb)
	return s
}

// openQdrantServer returns the Qdrant adapter and the fake it talks to.
func openQdrantServer(tb testing.TB) (testStore, *qdranttest.Server) {
	tb.Helper()
	srv := qdranttest.NewServer(tb)
	s, err := qdrant.Open(tb.Context(), qdrant.Options{URL: srv.URL(), Dim: testDim, Model: "nomic-embed-text", Timeout: 10 * time.Second, Logger: testLogger(tb)})
	if err != nil {
		tb.Fatalf("qdrant.Open = %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, srv
}

// testLogger writes to the test log.
func testLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// mustService returns a Service over st with the Deterministic embedder;
// change modifies the options first.
func mustService(tb testing.TB, st testStore, change ...func(*search.Options)) *search.Service {
	tb.Helper()
	o := search.Options{
		Embedder:     embeddingtest.Deterministic{},
		Dense:        st,
		Sparse:       st,
		NextcloudURL: "https://cloud.example.com/",
		Logger:       testLogger(tb),
	}
	if cr, ok := st.(search.ChunkReader); ok {
		if _, full := st.(textHits); !full {
			o.Chunks = cr
		}
	}
	if tr, ok := st.(search.TermReader); ok {
		o.Terms = tr
	}
	for _, f := range change {
		f(&o)
	}
	s, err := search.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// mustSearch runs a search that must succeed.
func mustSearch(tb testing.TB, s *search.Service, user hs.UserID, req hs.SearchRequest) hs.SearchResult {
	tb.Helper()
	res, err := s.Search(tb.Context(), user, req)
	if err != nil {
		tb.Fatalf("Search(%s, %q) = %v", user, req.Query, err)
	}
	return res
}

// ids returns the file ids of a result page.
func ids(res hs.SearchResult) []hs.FileID {
	out := make([]hs.FileID, len(res.Results))
	for i, r := range res.Results {
		out[i] = r.FileID
	}
	return out
}

// fakeAccess is an AccessChecker with per-(user, file) answers; files
// without one are reachable at /as-<user>/<id>. calls counts requests.
type fakeAccess struct {
	mu      sync.Mutex
	answers map[hs.UserID]map[hs.FileID]error
	calls   int
}

var _ search.AccessChecker = (*fakeAccess)(nil)

func (f *fakeAccess) set(user hs.UserID, id hs.FileID, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.answers == nil {
		f.answers = map[hs.UserID]map[hs.FileID]error{}
	}
	if f.answers[user] == nil {
		f.answers[user] = map[hs.FileID]error{}
	}
	f.answers[user][id] = err
}

// FindByIDs answers for a batch as one request does: an ENOTFOUND answer
// leaves the file out, any other error fails the whole batch.
func (f *fakeAccess) FindByIDs(ctx context.Context, user hs.UserID, ids []hs.FileID) (map[hs.FileID]hs.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	out := map[hs.FileID]hs.FileInfo{}
	for _, id := range ids {
		err := f.answers[user][id]
		switch {
		case err == nil:
			out[id] = hs.FileInfo{ID: id, Path: "/as-" + string(user) + "/" + itoa(id)}
		case hs.ErrorKind(err) != hs.ENOTFOUND:
			return nil, err
		}
	}
	return out, nil
}

func (f *fakeAccess) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func itoa(id hs.FileID) string {
	return strconv.FormatInt(int64(id), 10)
}

// fakeClock is a settable Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
