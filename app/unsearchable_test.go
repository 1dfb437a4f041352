package app

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestUnsearchableQueries: without an embedding model, hybrid search of
// a query the keyword and fuzzy legs cannot use (東京 in no document, !!!,
// an emoji) answered 503, and MCP "temporarily unavailable, try again"
// (issue 23: 4.3 % errors in the load test). It is a valid search with no
// results and a reason, over HTTP and MCP alike.
func TestUnsearchableQueries(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/ibis.md", []byte("The sacred ibis wades in the marsh."))
	}})
	f := env.mustStat(t, "alice", "/ibis.md")
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
	for _, tt := range []struct{ q, code string }{{"東京", "unknown_words"}, {"!!!", "nothing_to_search"}, {"😀", "nothing_to_search"}} {
		resp, body := env.proxyGet(t, &env.Alice, "api/search?q="+url.QueryEscape(tt.q))
		var res struct {
			Results    []json.RawMessage       `json:"results"`
			ReasonCode string                  `json:"reason_code"`
			Skipped    []struct{ Code string } `json:"skipped_legs"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil || len(res.Results) != 0 || res.ReasonCode != tt.code {
			t.Errorf("GET api/search?q=%s = %d %s, want 200, no results, reason %s", tt.q, resp.StatusCode, body, tt.code)
		}
		out := env.mcpCall(t, &env.Alice, "nc_semantic_search", map[string]any{"query": tt.q})
		if txt := toolText(out); out.IsError || !strings.Contains(txt, "No documents match") || strings.Contains(strings.ToLower(txt), "try again") {
			t.Errorf("MCP search %q: isError %v %q, want no documents and the reason", tt.q, out.IsError, txt)
		}
	}
}
