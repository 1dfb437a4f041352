package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

const searchUsage = `Usage: hybridsearch search --user UID [flags] QUERY...

Searches UID's files and notes through the running app (the same engine as
the panel and MCP) and prints a ranked list, or the JSON answer with --json.
It talks to the running app like "hybridsearch status".

Examples:
  hybridsearch search --user alice kuberntes upgrade
  hybridsearch search --user alice --algorithm keyword '"30 CFR 75.1725"'
  hybridsearch search --user alice --weights 0.2,0.6,0.2 --type note Apfelkuchen

Flags:
`

// Search runs the search command.
func Search(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("search", flag.ContinueOnError)
	fl.SetOutput(stderr)
	user := fl.String("user", "", "Nextcloud user to search as (required)")
	algorithm := fl.String("algorithm", "", "hybrid (default), semantic, keyword or fuzzy")
	fusion := fl.String("fusion", "", "rrf (default), linear or auto")
	weights := fl.String("weights", "", "semantic,keyword,fuzzy weights, e.g. 0.5,0.3,0.2")
	topK := fl.Int("top-k", 0, "results to show, 1-50 (default 10)")
	threshold := fl.Float64("score-threshold", 0, "minimum cosine similarity for the semantic leg")
	typ := fl.String("type", "", "note or file")
	path := fl.String("path", "", "only below this folder, e.g. /Documents")
	after := fl.String("after", "", "modified after (YYYY-MM-DD or RFC 3339)")
	before := fl.String("before", "", "modified before (YYYY-MM-DD or RFC 3339)")
	explain := fl.Bool("explain", false, "show each leg's rank and score")
	asJSON := fl.Bool("json", false, "print the raw JSON answer")
	fl.Usage = func() { fmt.Fprint(stderr, searchUsage); fl.PrintDefaults() }
	if err := ParseFlags(fl, args); err != nil {
		return err
	}
	query := strings.Join(fl.Args(), " ")
	if *user == "" || query == "" {
		return Usagef("search", "--user and a query are required")
	}
	req := hs.SearchRequest{Query: query, Algorithm: *algorithm, Fusion: *fusion, TopK: *topK, ScoreThreshold: *threshold, Explain: *explain}
	if *weights != "" {
		parts := strings.Split(*weights, ",")
		if len(parts) != 3 {
			return Usagef("search", "--weights needs three numbers: semantic,keyword,fuzzy")
		}
		var w [3]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return Usagef("search", "--weights: %q is not a number", p)
			}
			w[i] = f
		}
		req.Weights = &hs.Weights{Semantic: w[0], Keyword: w[1], Fuzzy: w[2]}
	}
	if *typ != "" {
		req.Filter.Types = []hs.DocType{hs.DocType(*typ)}
	}
	req.Filter.PathPrefix = *path
	for _, d := range []struct {
		v   string
		dst *time.Time
	}{{*after, &req.Filter.ModifiedAfter}, {*before, &req.Filter.ModifiedBefore}} {
		if d.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, d.v)
		if err != nil {
			if t, err = time.Parse(time.DateOnly, d.v); err != nil {
				return Usagef("search", "%q is not a date (YYYY-MM-DD) or RFC 3339 time", d.v)
			}
		}
		*d.dst = t
	}
	c, err := newAPIClient(getenv)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.do(ctx, "POST", "/api/search", *user, req, &raw); err != nil {
		return err
	}
	if *asJSON {
		_, err := fmt.Fprintln(stdout, string(raw))
		return err
	}
	var res hs.SearchResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	printResults(stdout, res)
	return nil
}

// printResults prints a ranked list: relevance, title, path, excerpt with
// the highlighted terms in [brackets].
func printResults(w io.Writer, res hs.SearchResult) {
	fmt.Fprintf(w, "%s for %q (%s", plural(len(res.Results), "result"), res.Query, res.Algorithm)
	if res.Fusion != "" {
		fmt.Fprintf(w, ", %s, weights %.2f/%.2f/%.2f", res.Fusion, res.Weights.Semantic, res.Weights.Keyword, res.Weights.Fuzzy)
	}
	fmt.Fprintf(w, ", %.1f ms)\n", res.TookMS)
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  note: the %s leg did not run: %s\n", s.Leg, s.Reason)
	}
	for i, r := range res.Results {
		fmt.Fprintf(w, "\n%2d. %.2f  %s  (%s)\n", i+1, r.Relevance, r.Title, r.Path)
		fmt.Fprintf(w, "    %s\n", excerptLine(r.Excerpt, 240))
		if r.Explain != nil {
			var legs []string
			for _, leg := range []string{"semantic", "keyword", "fuzzy"} {
				if s, ok := r.Explain.Legs[leg]; ok {
					legs = append(legs, fmt.Sprintf("%s #%d (%.3f)", leg, s.Rank, s.Score))
				}
			}
			boost := ""
			if r.Explain.IdentifierBoost {
				boost = ", identifier match"
			}
			fmt.Fprintf(w, "    explain: %s; fused %.4f%s\n", strings.Join(legs, ", "), r.Explain.Fused, boost)
		}
	}
	if len(res.Verification.Unverified) > 0 {
		fmt.Fprintf(w, "\nnote: %s could not be re-checked against Nextcloud just now\n", plural(len(res.Verification.Unverified), "result"))
	}
}

// excerptLine renders an excerpt on one line with highlights in brackets,
// cut to about max runes around the first highlight.
func excerptLine(e hs.Excerpt, max int) string {
	runes := []rune(e.Text)
	var b strings.Builder
	start := 0
	if len(e.Highlights) > 0 && e.Highlights[0][0] > max/2 {
		start = e.Highlights[0][0] - max/4
	}
	end := min(len(runes), start+max)
	h := 0
	for i := start; i < end; i++ {
		for h < len(e.Highlights) && e.Highlights[h][1] <= i {
			h++
		}
		if h < len(e.Highlights) && e.Highlights[h][0] == i {
			b.WriteByte('[')
		}
		r := runes[i]
		if r == '\n' || r == '\t' {
			r = ' '
		}
		b.WriteRune(r)
		if h < len(e.Highlights) && e.Highlights[h][1] == i+1 {
			b.WriteByte(']')
		}
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(runes) {
		s += "…"
	}
	return s
}
