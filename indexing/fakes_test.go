package indexing_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

// Fakes of the pipeline's collaborators: small in-memory stand-ins whose
// func fields, if non-nil, replace a method (fault injection). They record
// what they were asked, so tests assert on outcomes and inputs.

// tree is Nextcloud's side: files by id, each seen by some users at their
// own paths.
type tree struct {
	mu        sync.Mutex
	files     map[hs.FileID]*treeFile
	downloads int

	findByID func(user hs.UserID, id hs.FileID) (hs.FileInfo, error)
	download func(user hs.UserID, pth string) (io.ReadCloser, hs.FileInfo, error)
}

type treeFile struct {
	info    hs.FileInfo // Path unused: see paths
	content string
	paths   map[hs.UserID]string
}

var _ indexing.FileSource = (*tree)(nil)

func newTree() *tree { return &tree{files: map[hs.FileID]*treeFile{}} }

// put creates or replaces file id, owned by owner at pth, with a new etag.
func (t *tree) put(id hs.FileID, owner hs.UserID, pth, content string) hs.FileInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.files[id]
	if f == nil {
		f = &treeFile{paths: map[hs.UserID]string{}}
		t.files[id] = f
	}
	f.content = content
	f.paths[owner] = pth
	sum := sha256.Sum256([]byte(content))
	f.info = hs.FileInfo{ID: id, ETag: hex.EncodeToString(sum[:4]), MIME: mimeOf(pth), Size: int64(len(content)),
		Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(content)) * time.Second), Owner: owner}
	return t.infoFor(f, owner)
}

// share shows file id to user at pth; pth "" hides it from user.
func (t *tree) share(id hs.FileID, user hs.UserID, pth string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if pth == "" {
		delete(t.files[id].paths, user)
		return
	}
	t.files[id].paths[user] = pth
}

func (t *tree) remove(id hs.FileID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, id)
}

func (t *tree) infoFor(f *treeFile, user hs.UserID) hs.FileInfo {
	info := f.info
	info.Path = f.paths[user]
	info.IsDir = info.MIME == "httpd/unix-directory"
	return info
}

func mimeOf(pth string) string {
	switch path.Ext(pth) {
	case ".md":
		return "text/markdown"
	case ".txt":
		return "text/plain"
	case ".png":
		return "image/png"
	case "":
		return "httpd/unix-directory"
	}
	return "application/octet-stream"
}

func (t *tree) FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	if t.findByID != nil {
		return t.findByID(user, id)
	}
	return t.lookup(user, id)
}

// lookup is FindByID without the override.
func (t *tree) lookup(user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f, ok := t.files[id]; ok && f.paths[user] != "" {
		return t.infoFor(f, user), nil
	}
	return hs.FileInfo{}, hs.Errorf(hs.ENOTFOUND, "file %d not found for %s", id, user)
}

func (t *tree) Stat(ctx context.Context, user hs.UserID, pth string) (hs.FileInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.files {
		if f.paths[user] == pth {
			return t.infoFor(f, user), nil
		}
	}
	return hs.FileInfo{}, hs.Errorf(hs.ENOTFOUND, "%s not found for %s", pth, user)
}

// List returns the files and folders right under dir; folders are files
// whose MIME type is a directory's.
func (t *tree) List(ctx context.Context, user hs.UserID, dir string) ([]hs.FileInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []hs.FileInfo
	for _, f := range t.files {
		if p := f.paths[user]; p != "" && path.Dir(p) == dir {
			out = append(out, t.infoFor(f, user))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (t *tree) Download(ctx context.Context, user hs.UserID, pth string, maxBytes int64) (io.ReadCloser, hs.FileInfo, error) {
	t.mu.Lock()
	t.downloads++
	t.mu.Unlock()
	if t.download != nil {
		return t.download(user, pth)
	}
	info, err := t.Stat(ctx, user, pth)
	if err != nil {
		return nil, hs.FileInfo{}, err
	}
	if info.Size > maxBytes {
		return nil, hs.FileInfo{}, hs.Errorf(hs.ETOOLARGE, "download %s: %d bytes, limit %d", pth, info.Size, maxBytes)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return io.NopCloser(strings.NewReader(t.files[info.ID].content)), info, nil
}

func (t *tree) downloadCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.downloads
}

// extractor reads .md and .txt files as they are; a first line
// "title: X" gives the document title X.
type extractor struct {
	extract func(name string, body string) (hs.Text, error)
}

func (extractor) Supported(name, mime string) bool {
	return strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".txt")
}

func (e extractor) Extract(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return hs.Text{}, err
	}
	if e.extract != nil {
		return e.extract(name, string(b))
	}
	body := string(b)
	var title string
	if rest, ok := strings.CutPrefix(body, "title: "); ok {
		title, body, _ = strings.Cut(rest, "\n")
	}
	return hs.Text{Body: body, Title: title, Extractor: "fake"}, nil
}

// paragraphs is a chunker: each blank-line separated paragraph is a chunk.
type paragraphs struct{}

func (paragraphs) ChunkEach(file hs.FileID, t hs.Text, batch int, fn func([]hs.Chunk) error) error {
	var chunks []hs.Chunk
	for _, p := range strings.Split(t.Body, "\n\n") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		sum := sha256.Sum256([]byte(p))
		chunks = append(chunks, hs.Chunk{FileID: file, No: len(chunks), Text: p, Hash: hex.EncodeToString(sum[:])})
	}
	for len(chunks) > 0 {
		n := min(batch, len(chunks))
		if err := fn(chunks[:n:n]); err != nil {
			return err
		}
		chunks = chunks[n:]
	}
	return nil
}

func sparse(meta hs.FileMeta, c hs.Chunk) (hs.SparseVector, hs.SparseVector) {
	return hs.SparseVector{Indices: []uint32{1}, Values: []float32{1}}, hs.SparseVector{}
}

// embedder returns vec(text) for each text. fail, if non-nil, is asked
// for each text: an error fails the whole call, as in Ollama.
type embedder struct {
	mu    sync.Mutex
	calls [][]string
	fail  func(text string) error
}

var _ indexing.Embedder = (*embedder)(nil)

func (e *embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls = append(e.calls, slices.Clone(texts))
	fail := e.fail
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if fail != nil {
			if err := fail(t); err != nil {
				return nil, err
			}
		}
		out[i] = vec(t)
	}
	return out, nil
}

// texts returns every text sent, in order.
func (e *embedder) texts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, c := range e.calls {
		out = append(out, c...)
	}
	return out
}

func (e *embedder) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = nil
}

// vec is a unit vector that follows from text.
func vec(text string) []float32 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float32, 8)
	var n float64
	for i := range v {
		v[i] = float32(sum[i]) - 127.5
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

// store keeps points by file and records the calls made.
type store struct {
	mu     sync.Mutex
	points map[hs.FileID][]hs.Point
	meta   map[hs.FileID]hs.FileMeta
	calls  []string

	writeErr error // returned by WriteFile and UpsertPoints when set
}

var _ indexing.ChunkWriter = (*store)(nil)

func newStore() *store {
	return &store{points: map[hs.FileID][]hs.Point{}, meta: map[hs.FileID]hs.FileMeta{}}
}

func (s *store) record(format string, args ...any) {
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
}

func (s *store) WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("WriteFile %d %d", meta.ID, len(points))
	if s.writeErr != nil {
		return s.writeErr
	}
	s.points[meta.ID], s.meta[meta.ID] = slices.Clone(points), meta
	return nil
}

func (s *store) UpsertPoints(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("UpsertPoints %d %d", meta.ID, len(points))
	if s.writeErr != nil {
		return s.writeErr
	}
	s.meta[meta.ID] = meta
	have := s.points[meta.ID]
	for _, p := range points {
		for len(have) <= p.Chunk.No {
			have = append(have, hs.Point{})
		}
		have[p.Chunk.No] = p
	}
	s.points[meta.ID] = have
	return nil
}

func (s *store) TrimFile(ctx context.Context, id hs.FileID, keep int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("TrimFile %d %d", id, keep)
	if len(s.points[id]) > keep {
		s.points[id] = s.points[id][:keep]
	}
	return nil
}

func (s *store) UpdateFileMeta(ctx context.Context, meta hs.FileMeta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("UpdateFileMeta %d %s", meta.ID, meta.Path)
	if _, ok := s.meta[meta.ID]; !ok {
		return hs.Errorf(hs.ENOTFOUND, "file %d not in the store", meta.ID)
	}
	s.meta[meta.ID] = meta
	return nil
}

func (s *store) DeleteFile(ctx context.Context, id hs.FileID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("DeleteFile %d", id)
	delete(s.points, id)
	delete(s.meta, id)
	return nil
}

func (s *store) FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.points[id]), nil
}

func (s *store) VectorsByHash(ctx context.Context, hashes []string) (map[string][]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]float32{}
	for _, pts := range s.points {
		for _, p := range pts {
			if p.Dense != nil && slices.Contains(hashes, p.Chunk.Hash) {
				out[p.Chunk.Hash] = p.Dense
			}
		}
	}
	return out, nil
}

// callsLike returns the recorded calls that start with prefix.
func (s *store) callsLike(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.calls {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// states is the per-file state store; putErr, if set, fails Put.
type states struct {
	mu     sync.Mutex
	m      map[hs.FileID]hs.FileState
	putErr error
}

var _ indexing.StateStore = (*states)(nil)

func newStates() *states { return &states{m: map[hs.FileID]hs.FileState{}} }

func (s *states) Get(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[id]
	if !ok {
		return hs.FileState{}, 0, hs.Errorf(hs.ENOTFOUND, "no state for %d", id)
	}
	st.Paths = maps(st.Paths)
	st.Readers = slices.Clone(st.Readers)
	return st, 1, nil
}

func (s *states) Put(ctx context.Context, st hs.FileState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.putErr != nil {
		return s.putErr
	}
	st.Paths = maps(st.Paths)
	st.Readers = slices.Clone(st.Readers)
	s.m[st.ID] = st
	return nil
}

// Update is Put for a state read at revision 1 (Get's); rev 0 creates.
func (s *states) Update(ctx context.Context, st hs.FileState, rev uint64) error {
	s.mu.Lock()
	_, exists := s.m[st.ID]
	s.mu.Unlock()
	if exists != (rev != 0) {
		return hs.Errorf(hs.ECONFLICT, "state %d changed", st.ID)
	}
	return s.Put(ctx, st)
}

func (s *states) Delete(ctx context.Context, id hs.FileID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; !ok {
		return hs.Errorf(hs.ENOTFOUND, "no state for %d", id)
	}
	delete(s.m, id)
	return nil
}

func (s *states) List(ctx context.Context, fn func(hs.FileState) error) error {
	s.mu.Lock()
	all := make([]hs.FileState, 0, len(s.m))
	for _, st := range s.m {
		all = append(all, st)
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	for _, st := range all {
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

func (s *states) get(id hs.FileID) (hs.FileState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[id]
	return st, ok
}

func maps(m map[hs.UserID]string) map[hs.UserID]string {
	out := make(map[hs.UserID]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// users says which users exist.
type users func(user hs.UserID) bool

func (u users) UserExists(ctx context.Context, user hs.UserID) (bool, error) { return u(user), nil }

// queue records published jobs.
type queue struct {
	mu   sync.Mutex
	jobs []hs.IndexJob
}

func (q *queue) enqueue(ctx context.Context, jobs ...hs.IndexJob) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, jobs...)
	return nil
}
