package mcp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	hs "github.com/hybrid-search/hybridsearch"
)

// FuzzToolArguments decodes arbitrary arguments the way the SDK does for
// nc_semantic_search and nc_get_document (validate against the input
// schema, then unmarshal) and maps them to a request: nothing may panic, a
// refusal is EINVALID with a message, and an accepted search request is
// one the search rules accept.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{"query":"budget 2024"}`,
		`{"query":" x ","limit":500,"algorithm":"hybrid","semantic_weight":2,"keyword_weight":0,"fuzzy_weight":1e308}`,
		`{"query":"a","fusion":"auto","semantic_weight":0.5}`,
		`{"query":"a","doc_types":["note","file"],"path_prefix":"//Docs//","modified_after":"2024-01-01","modified_before":"2023-01-01T00:00:00Z"}`,
		`{"query":"a","score_threshold":-2}`,
		`{"file_id":42,"chunk":3,"window":2}`, `{"file_id":-1,"offset":-5,"max_chars":1}`, `{}`, `[]`, `null`,
	} {
		f.Add(s)
	}
	resolve := func(s *jsonschema.Schema, err error) *jsonschema.Resolved {
		if err != nil {
			f.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		return r
	}
	rules := hs.DefaultSearchRules()
	searchSchema, docSchema := resolve(searchInputSchema(rules)), resolve(documentInputSchema())
	f.Fuzz(func(t *testing.T, args string) {
		var raw any
		if json.Unmarshal([]byte(args), &raw) != nil {
			return
		}
		if searchSchema.Validate(raw) == nil {
			var in searchInput
			if err := json.Unmarshal([]byte(args), &in); err == nil {
				req, err := in.request(rules)
				switch {
				case err != nil && (hs.ErrorKind(err) != hs.EINVALID || hs.ErrorMessage(err) == ""):
					t.Fatalf("request(%s) = %v, kind %s; want EINVALID", args, err, hs.ErrorKind(err))
				case err == nil:
					if req.TopK < 0 || req.TopK > rules.MaxTopK || (req.Filter.PathPrefix != "" && !strings.HasPrefix(req.Filter.PathPrefix, "/")) {
						t.Fatalf("request(%s) = %+v", args, req)
					}
					if w := req.Weights; w != nil && (math.IsNaN(w.Semantic+w.Keyword+w.Fuzzy) || w.Semantic+w.Keyword+w.Fuzzy > rules.MaxWeightSum+1e-9) {
						t.Fatalf("request(%s) weights %+v", args, *w)
					}
					if _, err := rules.Check(req); err != nil {
						t.Fatalf("request(%s) accepted what the rules refuse: %v", args, err)
					}
				}
			}
		}
		if docSchema.Validate(raw) == nil {
			var in documentInput
			if err := json.Unmarshal([]byte(args), &in); err == nil {
				if in.Window < 0 || in.Window > maxWindow || in.Offset < 0 || (in.MaxChars != 0 && (in.MaxChars < minMaxChars || in.MaxChars > maxMaxChars)) {
					t.Fatalf("schema let through %s: %+v", args, in)
				}
			}
		}
	})
}
