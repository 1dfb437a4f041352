package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// searchOut mirrors nc_semantic_search's structured content.
type searchOut struct {
	Query     string `json:"query"`
	Algorithm string `json:"algorithm"`
	Results   []struct {
		FileID    int64   `json:"file_id"`
		Title     string  `json:"title"`
		Path      string  `json:"path"`
		Link      string  `json:"link"`
		DocType   string  `json:"doc_type"`
		Relevance float64 `json:"relevance"`
		Excerpt   string  `json:"excerpt"`
		Chunks    []struct {
			ChunkNo int    `json:"chunk_no"`
			Text    string `json:"text"`
		} `json:"chunks"`
	} `json:"results"`
	TotalFound int `json:"total_found"`
}

// docOut mirrors nc_get_document's structured content.
type docOut struct {
	FileID      int64  `json:"file_id"`
	Title       string `json:"title"`
	Path        string `json:"path"`
	Link        string `json:"link"`
	TotalChunks int    `json:"total_chunks"`
	FirstChunk  int    `json:"first_chunk"`
	LastChunk   int    `json:"last_chunk"`
	TotalChars  int    `json:"total_chars"`
	Offset      int    `json:"offset"`
	Text        string `json:"text"`
	Truncated   bool   `json:"truncated"`
	NextOffset  int    `json:"next_offset"`
}

// TestBothRevisions answers a 2025-11-25 client (initialize handshake)
// and a 2026-07-28 client (stateless requests, no initialize) from one
// handler, and checks the tool list and every tool on both.
func TestBothRevisions(t *testing.T) {
	url, rec := serve(t, newFakeIndex(), mcp.Options{Version: "9.9.9"})
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			before, _ := rec.seen()
			cs := connect(t, url, "alice", v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			if si := cs.InitializeResult().ServerInfo; si.Name != "hybrid_search" || si.Version != "9.9.9" {
				t.Errorf("server info = %+v", si)
			}
			if !strings.Contains(cs.InitializeResult().Instructions, "nc_semantic_search") {
				t.Errorf("instructions do not explain the tools")
			}
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkTools(t, tools.Tools)

			res := call(t, cs, mcp.ToolSearch, map[string]any{"query": "zebracorn"})
			var so searchOut
			structured(t, res, &so)
			if res.IsError || so.TotalFound != 2 || so.Results[0].Title != "Zebracorn plan" || so.Results[0].FileID != 11 ||
				so.Results[0].Link == "" || len(so.Results[0].Chunks) != 2 || !strings.Contains(so.Results[0].Chunks[1].Text, "migration") || so.Results[0].Excerpt == "" {
				t.Errorf("search = %+v, %s", so, text(res))
			}
			if txt := text(res); !strings.Contains(txt, "2 documents match") || !strings.Contains(txt, "file_id 11") || !strings.Contains(txt, "migration starts on Monday") {
				t.Errorf("search text = %s", txt)
			}

			res = call(t, cs, mcp.ToolDocument, map[string]any{"file_id": 11})
			var do docOut
			structured(t, res, &do)
			if res.IsError || do.Text != "# Zebracorn plan\n\nThe zebracorn migration starts on Monday.\n\nOwner: alice. Budget 40k." ||
				do.Path != "/Seen by alice/Projects/zebracorn.md" || do.Link != "http://nc.test/index.php/f/11" || do.TotalChunks != 3 {
				t.Errorf("document = %+v, %s", do, text(res))
			}

			res = call(t, cs, mcp.ToolStatus, nil)
			var st hs.IndexStatus
			structured(t, res, &st)
			if res.IsError || st.User != "alice" || st.Files.Indexed != 3 || st.Healthy || st.Progress != 0.5 || len(st.Problems) != 20 || st.ProblemsTotal != 25 {
				t.Errorf("status = %+v", st)
			}
			if txt := text(res); !strings.Contains(txt, "embedder is unavailable") || !strings.Contains(txt, "25 files could not be indexed") {
				t.Errorf("status text = %s", txt)
			}

			methods, versions := rec.seen()
			methods, versions = methods[len(before):], versions[len(before):]
			if v == "2026-07-28" {
				if slices.Contains(methods, "initialize") || !slices.Contains(methods, "server/discover") {
					t.Errorf("2026-07-28 client sent %v; want server/discover and no initialize", methods)
				}
				for i, hv := range versions {
					if hv != v {
						t.Errorf("request %s carried MCP-Protocol-Version %q", methods[i], hv)
					}
				}
			} else if methods[0] != "initialize" {
				t.Errorf("2025-11-25 client started with %v, want initialize", methods)
			}
		})
	}
}

// checkTools checks the tool list: names, descriptions, schemas and
// read-only, closed-world annotations.
func checkTools(t *testing.T, tools []*sdk.Tool) {
	t.Helper()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if len(tl.Description) < 40 {
			t.Errorf("%s: description %q is missing or too short", tl.Name, tl.Description)
		}
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: input schema %v, output schema %v; want both", tl.Name, tl.InputSchema != nil, tl.OutputSchema != nil)
		}
		if a := tl.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want readOnlyHint and openWorldHint false", tl.Name, a)
		}
	}
	slices.Sort(names)
	if want := []string{mcp.ToolDocument, mcp.ToolStatus, mcp.ToolSearch}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	for _, tl := range tools {
		if tl.Name != mcp.ToolSearch {
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		var s struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Default     any   `json:"default"`
				Enum        []any `json:"enum"`
				Description string
			} `json:"properties"`
		}
		_ = json.Unmarshal(b, &s)
		if !slices.Equal(s.Required, []string{"query"}) {
			t.Errorf("required = %v, want only query", s.Required)
		}
		for _, p := range []string{"query", "limit", "score_threshold", "algorithm", "semantic_weight", "keyword_weight", "fuzzy_weight", "fusion", "doc_types", "path_prefix", "modified_after", "modified_before"} {
			if s.Properties[p].Description == "" {
				t.Errorf("parameter %s is missing or undescribed", p)
			}
		}
		if s.Properties["limit"].Default != 10.0 || s.Properties["algorithm"].Default != "hybrid" || len(s.Properties["algorithm"].Enum) != 4 {
			t.Errorf("limit/algorithm defaults and enum: %s", b)
		}
	}
}

// TestUsersAreSeparate: alice never sees bob's documents, by search or by
// id, and the answer for bob's id is the same as for one that does not
// exist.
func TestUsersAreSeparate(t *testing.T) {
	idx := newFakeIndex()
	url, _ := serve(t, idx, mcp.Options{})
	alice := connect(t, url, "alice", "2026-07-28")
	res := call(t, alice, mcp.ToolSearch, map[string]any{"query": "salary"})
	if strings.Contains(text(res), "Bob") || strings.Contains(text(res), "salary list") {
		t.Errorf("alice's search shows bob's document: %s", text(res))
	}
	bobs := call(t, alice, mcp.ToolDocument, map[string]any{"file_id": 21})
	none := call(t, alice, mcp.ToolDocument, map[string]any{"file_id": 999})
	if !bobs.IsError || !none.IsError || strings.Contains(text(bobs), "salary") {
		t.Fatalf("alice reading bob's file: %v %s", bobs.IsError, text(bobs))
	}
	if strings.ReplaceAll(text(bobs), "21", "N") != strings.ReplaceAll(text(none), "999", "N") {
		t.Errorf("bob's file and a missing file answer differently:\n%s\n%s", text(bobs), text(none))
	}
	// Indexed as alice's, but Nextcloud says she lost access: refused.
	idx.revoked[11] = true
	if res := call(t, alice, mcp.ToolDocument, map[string]any{"file_id": 11}); !res.IsError || !strings.Contains(text(res), "not found") {
		t.Errorf("document after unshare = %s", text(res))
	}
	bob := connect(t, url, "bob", "2025-11-25")
	var so searchOut
	structured(t, call(t, bob, mcp.ToolSearch, map[string]any{"query": "zebracorn"}), &so)
	if so.TotalFound != 1 || so.Results[0].FileID != 21 {
		t.Errorf("bob's search = %+v, want his document only", so)
	}
}

func TestSearchArguments(t *testing.T) {
	idx := newFakeIndex()
	url, _ := serve(t, idx, mcp.Options{})
	cs := connect(t, url, "alice", "2026-07-28")
	w := func(s, k, f float64) *hs.Weights { return &hs.Weights{Semantic: s, Keyword: k, Fuzzy: f} }
	near := func(a, b *hs.Weights) bool {
		if a == nil || b == nil {
			return a == b
		}
		d := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
		return d(a.Semantic, b.Semantic) && d(a.Keyword, b.Keyword) && d(a.Fuzzy, b.Fuzzy)
	}
	tests := []struct {
		name string
		args map[string]any
		want hs.SearchRequest
	}{
		{"defaults", map[string]any{"query": " zebracorn "},
			hs.SearchRequest{Query: "zebracorn", Algorithm: "hybrid", TopK: 10}},
		{"nextcloud-mcp-server call", map[string]any{"query": "q", "limit": 5, "score_threshold": 0.5, "algorithm": "hybrid", "semantic_weight": 0.6, "keyword_weight": 0.4, "fuzzy_weight": 0.0},
			hs.SearchRequest{Query: "q", Algorithm: "hybrid", TopK: 5, ScoreThreshold: 0.5, Weights: w(0.6, 0.4, 0)}},
		{"one weight, others default", map[string]any{"query": "q", "semantic_weight": 0.4},
			hs.SearchRequest{Query: "q", Algorithm: "hybrid", TopK: 10, Weights: w(0.4, 0.3, 0.2)}},
		{"weights ignored off hybrid", map[string]any{"query": "q", "algorithm": "keyword", "keyword_weight": 0.9},
			hs.SearchRequest{Query: "q", Algorithm: "keyword", TopK: 10}},
		{"largest page", map[string]any{"query": "q", "limit": 50, "fusion": "linear"},
			hs.SearchRequest{Query: "q", Algorithm: "hybrid", Fusion: "linear", TopK: 50}},
		{"filters", map[string]any{"query": "q", "fusion": "auto", "doc_types": []string{"note"}, "path_prefix": "Projects/2026/", "modified_after": "2026-01-31", "modified_before": "2026-02-01T10:00:00+02:00"},
			hs.SearchRequest{Query: "q", Algorithm: "hybrid", Fusion: "auto", TopK: 10, Filter: hs.Filter{Types: []hs.DocType{"note"}, PathPrefix: "/Projects/2026",
				ModifiedAfter: mustTime("2026-01-31T00:00:00Z"), ModifiedBefore: mustTime("2026-02-01T08:00:00Z")}}},
		{"null optional arguments", map[string]any{"query": "q", "doc_types": nil, "semantic_weight": nil},
			hs.SearchRequest{Query: "q", Algorithm: "hybrid", TopK: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, mcp.ToolSearch, tt.args)
			if res.IsError {
				t.Fatalf("isError: %s", text(res))
			}
			got := idx.lastReq
			if got.Query != tt.want.Query || got.Algorithm != tt.want.Algorithm || got.Fusion != tt.want.Fusion || got.TopK != tt.want.TopK ||
				got.ScoreThreshold != tt.want.ScoreThreshold || !near(got.Weights, tt.want.Weights) ||
				!slices.Equal(got.Filter.Types, tt.want.Filter.Types) || got.Filter.PathPrefix != tt.want.Filter.PathPrefix ||
				!got.Filter.ModifiedAfter.Equal(tt.want.Filter.ModifiedAfter) || !got.Filter.ModifiedBefore.Equal(tt.want.Filter.ModifiedBefore) {
				t.Errorf("request = %+v (weights %+v)\nwant      %+v (weights %+v)", got, got.Weights, tt.want, tt.want.Weights)
			}
		})
	}
}
