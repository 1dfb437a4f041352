package app

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/indexing/extract/ocrtest"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
)

// BenchmarkOCRLane: a scan of OCR_LANE_PAGES pages (default 300, 3 in the
// test command's smoke; small pages of one line) is uploaded; once it
// waits on the OCR lane a text file is uploaded, and the benchmark reports how long until the text
// file is found by a search (text-searchable-ms) and how long the scan
// took to be recognised and indexed (scan-indexed-s, scan-pages/min), with
// the app's default workers (2 fresh, 1 OCR). scripts/bench ocr runs it.
func BenchmarkOCRLane(b *testing.B) {
	tools := ocrtest.Need(b)
	n := benchsmoke.Size(300, 3)
	if v, err := fmt.Sscan(os.Getenv("OCR_LANE_PAGES"), &n); v != 1 || err != nil || n < 1 {
		n = benchsmoke.Size(300, 3)
	}
	page := tools.PNG(b, ocrtest.PageHTML("A cormorant dries its wings on the pier"), 700, 120)
	pages := make([][]byte, n)
	for i := range pages {
		pages[i] = page
	}
	scanPDF := tools.ScanPDF(b, pages...)
	for i := range b.N {
		env := newTestEnv(b, envOptions{install: true, quiet: true})
		scan := env.Sim.PutFile("alice", fmt.Sprintf("/Scans/long%d.pdf", i), scanPDF)
		scanStart := time.Now()
		env.awaitFileWithin(b, "the scan waits for OCR", scan.ID, time.Minute, func(ix indexed) bool {
			return ix.state.Error == indexing.WaitingForOCR
		})
		start := time.Now()
		note := env.Sim.PutFile("alice", "/Docs/note.md", []byte("# Note\n\nAn osprey over the estuary."))
		await(b, "the text file searchable", time.Minute, func() bool {
			_, body := env.proxyGet(b, &env.Alice, "api/search?q="+url.QueryEscape("osprey estuary"))
			var res hs.SearchResult
			_ = json.Unmarshal([]byte(body), &res)
			return len(res.Results) == 1 && int64(res.Results[0].FileID) == note.ID
		})
		textMS := float64(time.Since(start).Microseconds()) / 1000
		env.awaitFileWithin(b, "the scan indexed", scan.ID, 2*time.Hour, isIndexed(scan.ETag))
		scanS := time.Since(scanStart).Seconds()
		b.ReportMetric(textMS, "text-searchable-ms")
		b.ReportMetric(scanS, "scan-indexed-s")
		b.ReportMetric(float64(n)/scanS*60, "scan-pages/min")
		if l, err := os.ReadFile("/proc/loadavg"); err == nil {
			b.Logf("%d-page scan (700×120 px pages); %d CPUs; load average now %s", n, runtime.NumCPU(), strings.Join(strings.Fields(string(l))[:3], " "))
		}
	}
}
