package hybridsearch_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestSearchRulesCheck(t *testing.T) {
	r := hs.DefaultSearchRules()
	day := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	w := func(s, k, f float64) *hs.Weights { return &hs.Weights{Semantic: s, Keyword: k, Fuzzy: f} }
	tests := []struct {
		name string
		req  hs.SearchRequest
		want string // in the message; "" = valid
	}{
		{"defaults", hs.SearchRequest{Query: " q "}, ""},
		{"empty query", hs.SearchRequest{}, "the query is empty"},
		{"blank query", hs.SearchRequest{Query: " \t\n"}, "the query is empty"},
		{"longest query", hs.SearchRequest{Query: strings.Repeat("é", 1000)}, ""},
		{"query too long", hs.SearchRequest{Query: strings.Repeat("é", 1001)}, "the query has 1001 characters, at most 1000 are allowed"},
		{"unknown algorithm", hs.SearchRequest{Query: "x", Algorithm: "bm42"}, `unknown algorithm "bm42" (use hybrid, semantic, keyword or fuzzy)`},
		{"unknown fusion", hs.SearchRequest{Query: "x", Fusion: "rsf"}, `unknown fusion "rsf" (use rrf, linear or auto)`},
		{"auto with weights", hs.SearchRequest{Query: "x", Fusion: hs.FusionAuto, Weights: w(0.5, 0.3, 0.2)}, "auto chooses the weights itself"},
		{"negative weight", hs.SearchRequest{Query: "x", Weights: w(-0.1, 0.5, 0)}, "weights must be ≥ 0, the semantic weight is -0.1"},
		{"NaN weight", hs.SearchRequest{Query: "x", Weights: w(0, 0, math.NaN())}, "the fuzzy weight must be a number, got NaN"},
		{"infinite weight", hs.SearchRequest{Query: "x", Weights: w(0, math.Inf(1), 0)}, "the keyword weight must be a number, got infinity"},
		{"weights sum over 1", hs.SearchRequest{Query: "x", Weights: w(0.7, 0.2, 0.2)}, "weights must sum to at most 1, they sum to 1.1"},
		{"weights sum to 1 with rounding", hs.SearchRequest{Query: "x", Weights: w(0.7, 0.2, 0.1)}, ""},
		{"all weights 0", hs.SearchRequest{Query: "x", Weights: w(0, 0, 0)}, "at least one weight must be above 0"},
		{"top_k 50", hs.SearchRequest{Query: "x", TopK: 50}, ""},
		{"top_k 51", hs.SearchRequest{Query: "x", TopK: 51}, "top_k must be between 1 and 50, got 51"},
		{"top_k negative", hs.SearchRequest{Query: "x", TopK: -1}, "top_k must be between 1 and 50, got -1"},
		{"threshold -1", hs.SearchRequest{Query: "x", ScoreThreshold: -1}, ""},
		{"threshold huge", hs.SearchRequest{Query: "x", ScoreThreshold: 1e21}, "score_threshold must be between -1 and 1 (a cosine similarity), got 1e21"},
		{"threshold NaN", hs.SearchRequest{Query: "x", ScoreThreshold: math.NaN()}, "got NaN"},
		{"unknown type", hs.SearchRequest{Query: "x", Filter: hs.Filter{Types: []hs.DocType{"image"}}}, `unknown document type "image" in the filter (use file or note)`},
		{"long path prefix", hs.SearchRequest{Query: "x", Filter: hs.Filter{PathPrefix: "/" + strings.Repeat("p", 5000)}}, "path_prefix has 5001 bytes, at most 4096"},
		{"empty date range", hs.SearchRequest{Query: "x", Filter: hs.Filter{ModifiedAfter: day, ModifiedBefore: day}}, "modified_after (2026-01-31T00:00:00Z) must be before modified_before"},
		{"offset within the window", hs.SearchRequest{Query: "x", Offset: 90, TopK: 10}, ""},
		{"offset past the window", hs.SearchRequest{Query: "x", Offset: 91, TopK: 10}, "offset must be between 0 and 90 for top_k 10 (paging reaches 100 matches), got 91"},
		{"negative offset", hs.SearchRequest{Query: "x", Offset: -1}, "offset must be between 0 and 90"},
		{"sort modified", hs.SearchRequest{Query: "x", Sort: hs.SortModified}, ""},
		{"unknown sort", hs.SearchRequest{Query: "x", Sort: "size"}, `unknown sort "size" (use relevance or modified)`},
		{"owner me", hs.SearchRequest{Query: "x", Owner: hs.OwnerMe}, ""},
		{"unknown owner", hs.SearchRequest{Query: "x", Owner: "bob"}, `unknown owner "bob" (use me or others)`},
		{"huge algorithm is quoted short", hs.SearchRequest{Query: "x", Algorithm: strings.Repeat("z", 3000)}, `"` + strings.Repeat("z", 100) + `"… (3000 characters)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Check(tt.req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				if got.Algorithm == "" || got.TopK == 0 || strings.TrimSpace(got.Query) != got.Query {
					t.Errorf("Check did not fill the defaults: %+v", got)
				}
				return
			}
			if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(hs.ErrorMessage(err), tt.want) {
				t.Errorf("Check = %v (kind %s), want EINVALID containing %q", err, hs.ErrorKind(err), tt.want)
			}
			if len(hs.ErrorMessage(err)) > 300 {
				t.Errorf("message of %d bytes: %.300s", len(hs.ErrorMessage(err)), hs.ErrorMessage(err))
			}
		})
	}
}

func TestSearchRulesDefaults(t *testing.T) {
	r := hs.DefaultSearchRules()
	got, err := r.Check(hs.SearchRequest{Query: "q"})
	if err != nil || got.Algorithm != hs.AlgorithmHybrid || got.Fusion != hs.FusionRRF || got.TopK != 10 ||
		got.Weights == nil || *got.Weights != hs.DefaultWeights {
		t.Fatalf("Check = %+v, %v", got, err)
	}
	// Defaults replaced at run time, as an admin's settings are.
	admin, err := r.WithDefaults(hs.SearchDefaults{Fusion: hs.FusionLinear, Weights: hs.Weights{Keyword: 0.8, Fuzzy: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = admin.Check(hs.SearchRequest{Query: "q"})
	if got.Fusion != hs.FusionLinear || *got.Weights != (hs.Weights{Keyword: 0.8, Fuzzy: 0.2}) {
		t.Errorf("with the admin's defaults: %+v %+v", got, *got.Weights)
	}
	if r.Defaults.Fusion != hs.FusionRRF {
		t.Errorf("WithDefaults changed the rules it was called on")
	}
	auto, err := r.WithDefaults(hs.SearchDefaults{Fusion: hs.FusionAuto})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := auto.Check(hs.SearchRequest{Query: "q"}); got.Fusion != hs.FusionAuto || got.Weights != nil {
		t.Errorf("auto default: %+v", got)
	}
	// A request's own weights under an auto default fuse with rrf.
	if got, err := auto.Check(hs.SearchRequest{Query: "q", Weights: &hs.Weights{Keyword: 1}}); err != nil || got.Fusion != hs.FusionRRF {
		t.Errorf("weights under an auto default: %+v, %v", got, err)
	}
	for _, d := range []hs.SearchDefaults{
		{Weights: hs.Weights{Semantic: 0.9, Keyword: 0.9}},
		{Fusion: "magic"},
		{Algorithm: "bm42"},
		{TopK: 500},
	} {
		if _, err := r.WithDefaults(d); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("WithDefaults(%+v) = %v, want EINVALID", d, err)
		}
	}
	if (hs.SearchRules{}).OrDefault().MaxTopK != 50 {
		t.Error("the zero rules are not the default ones")
	}
}

func TestSearchRulesParseTime(t *testing.T) {
	r := hs.DefaultSearchRules()
	for in, want := range map[string]string{
		"2026-01-31":                "2026-01-31T00:00:00Z",
		"2026-01-31T09:00:00":       "2026-01-31T09:00:00Z",
		"2026-02-01T10:00:00+02:00": "2026-02-01T08:00:00Z",
		"2026-02-01T10:00:00.5Z":    "2026-02-01T10:00:00.5Z",
		"":                          "0001-01-01T00:00:00Z",
	} {
		got, err := r.ParseTime("modified_after", in)
		if err != nil || got.Format(time.RFC3339Nano) != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"31.01.2026", "1738310400", "last tuesday"} {
		if _, err := r.ParseTime("modified_after", bad); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("ParseTime(%q) = %v, want EINVALID", bad, err)
		}
	}
	_, err := r.ParseTime("modified_after", strings.Repeat("y", 5000))
	if msg := hs.ErrorMessage(err); hs.ErrorKind(err) != hs.EINVALID || len(msg) > 250 || !strings.Contains(msg, "(5000 characters) is not an RFC 3339 date") {
		t.Errorf("ParseTime of a long value = %q", msg)
	}
}

// TestSearchRulesJSON: the panel reads the rules from its initial state
// under these names.
func TestSearchRulesJSON(t *testing.T) {
	b, err := json.Marshal(hs.DefaultSearchRules())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"max_query_runes":1000`, `"max_top_k":50`, `"max_weight_sum":1`, `"algorithms":["hybrid","semantic","keyword","fuzzy"]`,
		`"fusions":["rrf","linear","auto"]`, `"defaults":{"algorithm":"hybrid","fusion":"rrf","weights":{"semantic":0.5,"keyword":0.3,"fuzzy":0.2},"top_k":10}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("rules JSON lacks %s: %s", want, b)
		}
	}
}

func TestQuoteAndFormatNumber(t *testing.T) {
	for in, want := range map[string]string{
		"abc":                        `"abc"`,
		"tab\there":                  `"tab\there"`,
		strings.Repeat("日", 100):     `"` + strings.Repeat("日", 100) + `"`,
		strings.Repeat("日", 101):     `"` + strings.Repeat("日", 100) + `"… (101 characters)`,
		strings.Repeat("x", 900<<10): `"` + strings.Repeat("x", 100) + `"… (921600 characters)`,
	} {
		if got := hs.Quote(in); got != want {
			t.Errorf("Quote(%.20q…) = %.200s, want %.200s", in, got, want)
		}
	}
	for in, want := range map[float64]string{
		0: "0", 1: "1", -0.1: "-0.1", 0.1 + 0.2: "0.3", 0.7 + 0.2 + 0.2: "1.1", 1.0000000000000002: "1",
		50: "50", 1e6: "1000000", 1234567.89: "1234570", 1e21: "1e21", 2.5e-7: "2.5e-07", 0.000123: "0.000123",
		math.NaN(): "NaN", math.Inf(1): "infinity", math.Inf(-1): "-infinity",
	} {
		if got := hs.FormatNumber(in); got != want {
			t.Errorf("FormatNumber(%v) = %s, want %s", in, got, want)
		}
	}
}

// TestRequestWeights: legs not given keep their defaults; the three are
// checked together.
func TestRequestWeights(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name    string
		s, k, z *float64
		want    hs.Weights
		wantErr bool
	}{
		{"all given", f(0.2), f(0.2), f(0.6), hs.Weights{Semantic: 0.2, Keyword: 0.2, Fuzzy: 0.6}, false},
		{"defaults fill in", nil, f(0.1), nil, hs.Weights{Semantic: 0.5, Keyword: 0.1, Fuzzy: 0.2}, false},
		{"sum of 1", f(0.7), f(0.2), f(0.1), hs.Weights{Semantic: 0.7, Keyword: 0.2, Fuzzy: 0.1}, false},
		{"sum above 1", f(2), f(1), f(1), hs.Weights{}, true},
		{"sum above 1 with defaults", f(0.8), nil, nil, hs.Weights{}, true},
		{"negative", f(-1), nil, nil, hs.Weights{}, true},
		{"all zero", f(0), f(0), f(0), hs.Weights{}, true},
	}
	for _, tt := range tests {
		got, err := hs.DefaultSearchRules().RequestWeights(hs.AlgorithmHybrid, tt.s, tt.k, tt.z)
		if (err != nil) != tt.wantErr || (!tt.wantErr && (got == nil || *got != tt.want)) {
			t.Errorf("%s: RequestWeights = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
		if err != nil && hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("%s: kind %s", tt.name, hs.ErrorKind(err))
		}
	}
}

// TestRequestWeightsNone: no weight, or a single-leg algorithm, asks for
// none (the search uses its defaults).
func TestRequestWeightsNone(t *testing.T) {
	r := hs.DefaultSearchRules()
	high := 5.0
	for _, tt := range []struct {
		algorithm string
		s         *float64
	}{{"", nil}, {hs.AlgorithmHybrid, nil}, {hs.AlgorithmKeyword, &high}, {hs.AlgorithmSemantic, &high}} {
		if w, err := r.RequestWeights(tt.algorithm, tt.s, nil, nil); w != nil || err != nil {
			t.Errorf("RequestWeights(%q, %v) = %+v, %v; want nil, nil", tt.algorithm, tt.s, w, err)
		}
	}
}
