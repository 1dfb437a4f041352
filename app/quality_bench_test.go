package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// BenchmarkQuality measures retrieval quality on the CISI collection
// through the whole product: every document is a Markdown file (its title
// in the front matter) put into the simulator, indexed by the real
// pipeline (webhooks, queue, WebDAV, extraction, chunking, analysis, the
// local store) and searched through POST /api/search without a semantic
// leg (no Ollama). In the same run two references search the same
// documents: bleve's BM25 (qualitytest.Bleve: bleve v2.5.7, English
// analyzer, a scorch index) and the textbook BM25 on the app's own terms
// (qualitytest.TextbookBM25, k1 1.2, b 0.75). It prints, for keyword,
// fuzzy, hybrid (rrf, linear, auto), keyword and hybrid rrf with
// pseudo-relevance feedback (the request option "feedback": true) and
// the references: nDCG@10, P@10, MAP@30, recall@30 and page
// stability (the share of queries whose first 10 results are the same for
// top_k 10, 20, 30 and 50); then the same with one random typo per query
// (fixed seed); the ratios to each reference; then how many results 20
// random-letter queries return. It never fails on a figure. The
// cross-validated figures are search.BenchmarkQualityCV's. CISI_DIR overrides the collection's folder; the
// benchmark is skipped when the collection is missing.
//
//	go test -run '^$' -bench Quality -benchtime 1x ./app
func BenchmarkQuality(b *testing.B) {
	c, err := qualitytest.ReadCISI(qualitytest.CISIDir(), hs.DefaultSearchRules().MaxQueryRunes)
	if err != nil {
		b.Skipf("no CISI collection: %v", err)
	}
	if benchsmoke.On() { // the test command's smoke: a slice of the collection
		c.Docs, c.Queries = c.Docs[:min(len(c.Docs), 150)], c.Queries[:min(len(c.Queries), 10)]
	}
	env := quietEnv(b, map[string]string{"WORKERS": "2"})
	start := time.Now()
	var files []ncsim.FileInfo
	for _, d := range c.Docs {
		body := "---\ntitle: " + strconv.Quote(d.Title) + "\n---\n\n" + d.Text
		files = append(files, env.Sim.PutFile("alice", "/cisi/"+d.ID+".md", []byte(body)))
	}
	awaitIndexed(b, env, files)
	indexing := time.Since(start)
	ids := make(map[int64]string, len(files))
	for i, f := range files {
		ids[f.ID] = c.Docs[i].ID
	}
	ref, err := qualitytest.NewBleve(filepath.Join(b.TempDir(), "bleve"), c.Docs)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ref.Close() })
	textbook := qualitytest.NewTextbookBM25(c.Docs)
	refNames := []string{"bleve BM25", "textbook BM25"}
	api := &searchAPI{b: b, url: env.appURL() + "/api/search", ids: ids,
		auth: base64.StdEncoding.EncodeToString([]byte("alice:" + env.Main.Config.AppSecret))}

	feedback := true
	runs := []struct {
		name string
		req  hs.SearchRequest
	}{
		{"keyword", hs.SearchRequest{Algorithm: hs.AlgorithmKeyword}},
		{"fuzzy", hs.SearchRequest{Algorithm: hs.AlgorithmFuzzy}},
		{"hybrid rrf", hs.SearchRequest{Fusion: hs.FusionRRF}},
		{"hybrid linear", hs.SearchRequest{Fusion: hs.FusionLinear}},
		{"hybrid auto", hs.SearchRequest{Fusion: hs.FusionAuto}},
		{"keyword+feedback", hs.SearchRequest{Algorithm: hs.AlgorithmKeyword, Feedback: &feedback}},
		{"hybrid+feedback", hs.SearchRequest{Fusion: hs.FusionRRF, Feedback: &feedback}},
	}
	b.ResetTimer()
	for range b.N {
		out := &strings.Builder{}
		fmt.Fprintf(out, "\nCISI: %d documents indexed through the pipeline in %v, %d judged queries, no semantic leg\n",
			len(c.Docs), indexing.Round(time.Millisecond), len(c.Queries))
		var ndcg [2][]float64 // by typo, then run (the reference last)
		for typo := range 2 {
			rng := rand.New(rand.NewPCG(10, 10))
			scores := make([]qualitytest.Scores, len(runs)+len(refNames))
			for _, q := range c.Queries {
				text := q.Text
				if typo == 1 {
					text = qualitytest.Typo(rng, text)
				}
				for i, r := range runs {
					req := r.req
					req.Query = text
					pages := make([][]string, 0, 4)
					for _, k := range []int{10, 20, 30, 50} {
						req.TopK = k
						pages = append(pages, api.search(req))
					}
					scores[i].Add(pages[2], q.Rel)
					scores[i].AddStability(samePrefix(pages, 10))
				}
				got, err := ref.Search(text, 50)
				if err != nil {
					b.Fatal(err)
				}
				scores[len(runs)].Add(got, q.Rel)
				ref10, _ := ref.Search(text, 10)
				scores[len(runs)].AddStability(samePrefix([][]string{ref10, got}, 10))
				got = textbook.Search(text, 50)
				scores[len(runs)+1].Add(got, q.Rel)
				scores[len(runs)+1].AddStability(samePrefix([][]string{textbook.Search(text, 10), got}, 10))
			}
			fmt.Fprintf(out, "\n%s\n%-16s %8s %6s %7s %9s %10s\n", map[int]string{0: "as written", 1: "one random typo per query (seed 10)"}[typo],
				"run", "nDCG@10", "P@10", "MAP@30", "recall@30", "stability")
			for i, s := range scores {
				name := ""
				if i < len(runs) {
					name = runs[i].name
				} else {
					name = refNames[i-len(runs)]
				}
				n, p, m, r, st := s.Mean()
				ndcg[typo] = append(ndcg[typo], n)
				fmt.Fprintf(out, "%-16s %8.3f %6.3f %7.3f %9.3f %10.3f\n", name, n, p, m, r, st)
			}
		}
		bleveAt, textAt := len(runs), len(runs)+1
		kw, hyb, hybFB := ndcg[0][0], ndcg[0][2], ndcg[0][6]
		for typo := range 2 {
			fmt.Fprintf(out, "\n%s:", []string{"as written", "one typo"}[typo])
			for _, at := range []int{bleveAt, textAt} {
				ref := ndcg[typo][at]
				fmt.Fprintf(out, " keyword / %s %.3f, hybrid rrf / it %.3f, hybrid+feedback / it %.3f;",
					refNames[at-len(runs)], ndcg[typo][0]/ref, ndcg[typo][2]/ref, ndcg[typo][6]/ref)
			}
		}
		fmt.Fprintf(out, "\nhybrid rrf / keyword: %.3f\n", hyb/kw)
		fmt.Fprintf(out, "typo loss of nDCG@10: %s %.3f, %s %.3f, keyword %.3f, hybrid rrf %.3f (target: at most half the references')\n",
			refNames[0], ndcg[0][bleveAt]-ndcg[1][bleveAt], refNames[1], ndcg[0][textAt]-ndcg[1][textAt], ndcg[0][0]-ndcg[1][0], ndcg[0][2]-ndcg[1][2])
		nonsense := qualitytest.RandomLetters(rand.New(rand.NewPCG(20, 20)), 20)
		fmt.Fprintf(out, "results for 20 random-letter queries:")
		for _, r := range runs {
			n := 0
			for _, q := range nonsense {
				req := r.req
				req.Query = q
				n += len(api.search(req))
			}
			fmt.Fprintf(out, " %s %d;", r.name, n)
		}
		fmt.Fprintln(out)
		fmt.Fprint(os.Stdout, out.String())
		b.ReportMetric(kw, "keyword-nDCG@10")
		b.ReportMetric(ndcg[0][bleveAt], "bleve-nDCG@10")
		b.ReportMetric(ndcg[0][textAt], "textbook-nDCG@10")
		b.ReportMetric(kw/max(ndcg[0][bleveAt], ndcg[0][textAt]), "keyword/better-ref")
		b.ReportMetric(hyb, "hybrid-nDCG@10")
		b.ReportMetric(hybFB, "hybrid+feedback-nDCG@10")
	}
}

// samePrefix reports whether the pages agree on their first n results
// (a shorter page must be a prefix of the longer ones).
func samePrefix(pages [][]string, n int) bool {
	first := pages[0][:min(n, len(pages[0]))]
	for _, p := range pages[1:] {
		if !slices.Equal(first, p[:min(n, len(p))]) {
			return false
		}
	}
	return true
}

// searchAPI posts searches to /api/search as alice.
type searchAPI struct {
	b    *testing.B
	url  string
	auth string
	ids  map[int64]string // file id -> CISI document id
}

// search returns the CISI ids of a result page.
func (a *searchAPI) search(req hs.SearchRequest) []string {
	body, _ := json.Marshal(req)
	r, _ := http.NewRequest(http.MethodPost, a.url, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("EX-APP-ID", "hybrid_search")
	r.Header.Set("EX-APP-VERSION", "0.1.0")
	r.Header.Set("AUTHORIZATION-APP-API", a.auth)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		a.b.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		a.b.Fatalf("/api/search %q: %d %.300s", req.Query, resp.StatusCode, data)
	}
	var res hs.SearchResult
	if err := json.Unmarshal(data, &res); err != nil {
		a.b.Fatal(err)
	}
	out := make([]string, len(res.Results))
	for i, x := range res.Results {
		out[i] = a.ids[int64(x.FileID)]
	}
	return out
}
