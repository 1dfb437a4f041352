package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// doc is one indexed document of the fake index.
type doc struct {
	meta   hs.FileMeta
	chunks []hs.Chunk
}

// fakeIndex serves Search, FilePoints, FindByID and IndexStatus from a few
// documents, each readable by the users in its meta.Readers.
type fakeIndex struct {
	mu      sync.Mutex
	docs    map[hs.FileID]doc
	lastReq hs.SearchRequest
	// searchErr, accessErr, statusErr, if set, are returned by the calls.
	searchErr, accessErr, statusErr error
	skipped                         []hs.SkippedLeg    // legs every search reports as skipped
	revoked                         map[hs.FileID]bool // Nextcloud no longer lets readers see these
	pathless                        map[hs.FileID]bool // Nextcloud confirms these without a path
}

var (
	_ mcp.Searcher     = (*fakeIndex)(nil)
	_ mcp.Chunks       = (*fakeIndex)(nil)
	_ mcp.Access       = (*fakeIndex)(nil)
	_ mcp.StatusSource = (*fakeIndex)(nil)
)

var modified = time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)

func newFakeIndex() *fakeIndex {
	f := &fakeIndex{docs: map[hs.FileID]doc{}, revoked: map[hs.FileID]bool{}, pathless: map[hs.FileID]bool{}}
	f.add(11, "alice", "/Projects/zebracorn.md", "Zebracorn plan", hs.DocFile,
		"# Zebracorn plan", "The zebracorn migration starts on Monday.", "Owner: alice. Budget 40k.")
	f.add(12, "alice", "/Notes/shopping.md", "Shopping", hs.DocNote, "Milk, eggs and zebracorn food.")
	f.add(21, "bob", "/Private/bob-secret.md", "Bob secret", hs.DocFile, "Bob's private zebracorn salary list.")
	return f
}

// add stores a document whose paragraphs become chunks that overlap by
// the previous chunk's last word.
func (f *fakeIndex) add(id hs.FileID, reader hs.UserID, path, title string, typ hs.DocType, paras ...string) {
	d := doc{meta: hs.FileMeta{ID: id, Path: path, Title: title, MIME: "text/markdown", Type: typ, Modified: modified, Readers: []hs.UserID{reader}}}
	body := strings.Join(paras, "\n\n")
	runes := []rune(body)
	pos := 0
	for i, p := range paras {
		start := pos
		if i > 0 {
			start = pos - 6 // overlap with the previous paragraph
		}
		end := pos + len([]rune(p))
		d.chunks = append(d.chunks, hs.Chunk{FileID: id, No: i, Text: string(runes[start:end]), Start: start, End: end, Page: 1})
		pos = end + 2
	}
	f.docs[id] = d
}

func (f *fakeIndex) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastReq = req
	if f.searchErr != nil {
		return hs.SearchResult{}, f.searchErr
	}
	if w := req.Weights; w != nil && w.Semantic+w.Keyword+w.Fuzzy > 1+1e-9 {
		return hs.SearchResult{}, hs.Errorf(hs.EINVALID, "search: weights must sum to at most 1")
	}
	res := hs.SearchResult{Query: req.Query, Algorithm: req.Algorithm, Fusion: req.Fusion, Results: []hs.DocumentResult{}, Skipped: f.skipped}
	ids := make([]hs.FileID, 0, len(f.docs))
	for id := range f.docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		d := f.docs[id]
		if !slices.Contains(d.meta.Readers, user) || len(req.Filter.Types) > 0 && !slices.Contains(req.Filter.Types, d.meta.Type) {
			continue
		}
		var ex []hs.Excerpt
		for _, c := range d.chunks {
			if i := strings.Index(strings.ToLower(c.Text), strings.ToLower(req.Query)); i >= 0 {
				n := len([]rune(c.Text[:i]))
				ex = append(ex, hs.Excerpt{ChunkNo: c.No, Text: c.Text, Page: c.Page, Highlights: [][2]int{{n, n + len([]rune(req.Query))}}})
			}
		}
		if len(ex) == 0 {
			continue
		}
		res.Results = append(res.Results, hs.DocumentResult{FileID: id, Title: d.meta.Title, Path: d.meta.Path, MIME: d.meta.MIME,
			Type: d.meta.Type, Modified: d.meta.Modified, Link: "http://nc.test/index.php/f/" + itoa(id), Relevance: 0.9, Excerpt: ex[0], More: ex[1:]})
		if len(res.Results) == req.TopK {
			break
		}
	}
	return res, nil
}

func itoa(id hs.FileID) string { b, _ := json.Marshal(id); return string(b) }

func (f *fakeIndex) FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.docs[id]
	if !ok {
		return nil, nil
	}
	var out []hs.Point
	for _, c := range d.chunks {
		out = append(out, hs.Point{ID: hs.PointID(id, c.No), Chunk: c, File: d.meta})
	}
	return out, nil
}

func (f *fakeIndex) FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.accessErr != nil {
		return hs.FileInfo{}, f.accessErr
	}
	d, ok := f.docs[id]
	if !ok || f.revoked[id] || !slices.Contains(d.meta.Readers, user) {
		return hs.FileInfo{}, hs.Errorf(hs.ENOTFOUND, "find file %d as %s: not visible", id, user)
	}
	if f.pathless[id] {
		return hs.FileInfo{ID: id, MIME: d.meta.MIME}, nil
	}
	return hs.FileInfo{ID: id, Path: "/Seen by " + string(user) + d.meta.Path, MIME: d.meta.MIME}, nil
}

func (f *fakeIndex) Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.statusErr != nil {
		return hs.IndexStatus{}, f.statusErr
	}
	if all && user != "admin" { // as indexing.Reporter
		return hs.IndexStatus{}, hs.Errorf(hs.EFORBIDDEN, "only admins may see every user's status")
	}
	st := hs.IndexStatus{User: user, Files: hs.FileCounts{Indexed: 3, Failed: 1, Pending: 4, Chunks: 9}, Progress: 0.5,
		Queue:      hs.QueueStatus{Pending: 4, ETASeconds: 12},
		Components: map[string]hs.ComponentStatus{"nats": {OK: true}, "embedder": {OK: false, Error: "ollama: connection refused"}}}
	for i := range 25 {
		st.Problems = append(st.Problems, hs.Problem{FileID: hs.FileID(100 + i), Path: "/broken.pdf", Status: hs.StatusFailed, Error: "no text"})
	}
	return st, nil
}

// recorder remembers the JSON-RPC methods and protocol-version headers of
// the requests the endpoint saw.
type recorder struct {
	mu       sync.Mutex
	methods  []string
	versions []string
}

func (r *recorder) seen() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.methods), slices.Clone(r.versions)
}

// testUserHeader carries the acting user in these tests; in the app the
// handlers package authenticates and sets it.
const testUserHeader = "X-Test-User"

// serve runs the endpoint behind a stand-in for the auth middleware.
func serve(t *testing.T, idx *fakeIndex, o mcp.Options) (string, *recorder) {
	t.Helper()
	o.Search, o.Chunks, o.Access, o.Status = idx, idx, idx, idx
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.AllowedOrigins == nil {
		o.AllowedOrigins = []string{"http://nc.test/index.php"}
	}
	o.NextcloudURL = "http://nc.test"
	h, err := mcp.NewHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct{ Method string }
		_ = json.Unmarshal(body, &msg)
		rec.mu.Lock()
		rec.methods = append(rec.methods, msg.Method)
		rec.versions = append(rec.versions, r.Header.Get("MCP-Protocol-Version"))
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if u := r.Header.Get(testUserHeader); u != "" {
			r = r.WithContext(hs.NewContextWithUser(r.Context(), hs.UserID(u)))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, rec
}

// asUser adds the test user header to every request.
type asUser struct {
	user string
	next http.RoundTripper
}

func (a asUser) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(testUserHeader, a.user)
	return a.next.RoundTrip(r)
}

// connect opens a Go SDK client session as user with protocol version v.
func connect(t *testing.T, url, user, v string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: asUser{user, http.DefaultTransport}}, MaxRetries: -1}
	cs, err := c.Connect(t.Context(), tr, &sdk.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		t.Fatalf("connect as %s with %s: %v", user, v, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and returns its result; a protocol error fails.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: %v", name, args, err)
	}
	return res
}

// text joins a result's text content.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structured content into out.
func structured(t *testing.T, res *sdk.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
