package mcp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// pageSearcher returns the same page for every query.
type pageSearcher struct{ res hs.SearchResult }

func (p pageSearcher) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	return p.res, nil
}

// BenchmarkToolCall measures the MCP layer alone: one 2026-07-28
// nc_semantic_search tools/call through the handler, in process, with the
// search answered at once (argument validation, the SDK's dispatch,
// output-schema validation, the text rendering and JSON encoding), for a
// full page (10 documents, each with its best chunk and three more of
// 1,000 characters: the largest usual answer) and for an empty one.
//
//	go test -run '^$' -bench ToolCall ./mcp
func BenchmarkToolCall(b *testing.B) {
	text := strings.Repeat("The zebracorn migration plan lists every service and its owner. ", 16)[:1000]
	var res hs.SearchResult
	for i := range 10 {
		d := hs.DocumentResult{FileID: hs.FileID(i + 1), Title: "Document", Path: "/Projects/doc.md", Type: hs.DocFile, Link: "http://nc.test/index.php/f/1",
			Relevance: 0.5, Excerpt: hs.Excerpt{Text: text, Highlights: [][2]int{{4, 13}}}}
		for no := 1; no <= 3; no++ {
			d.More = append(d.More, hs.Excerpt{ChunkNo: no, Text: text})
		}
		res.Results = append(res.Results, d)
	}
	b.Run("results=10", func(b *testing.B) { benchToolCall(b, res) })
	b.Run("results=0", func(b *testing.B) { benchToolCall(b, hs.SearchResult{}) })
}

func benchToolCall(b *testing.B, res hs.SearchResult) {
	idx := newFakeIndex()
	h, err := mcp.NewHandler(mcp.Options{Search: pageSearcher{res}, Chunks: idx, Access: idx, Status: idx, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	body, headers := modern(mcp.ToolSearch, `{"query":"zebracorn"}`)
	ctx := hs.NewContextWithUser(context.Background(), "alice")
	size := 0
	for b.Loop() {
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size)/1024, "response-KiB")
}
