package mcp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

// FuzzToolArguments decodes arbitrary arguments the way the SDK does for
// nc_semantic_search and nc_get_document (validate against the input
// schema, then unmarshal) and maps them to a request: nothing may panic,
// and a refusal, by the tool or by the search engine's own checks (fusion
// auto with weights, an empty date range), is EINVALID with a message.
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
	searchSchema, docSchema := resolve(searchInputSchema()), resolve(documentInputSchema())
	f.Fuzz(func(t *testing.T, args string) {
		var raw any
		if json.Unmarshal([]byte(args), &raw) != nil {
			return
		}
		if searchSchema.Validate(raw) == nil {
			var in searchInput
			if err := json.Unmarshal([]byte(args), &in); err == nil {
				req, err := in.request()
				switch {
				case err != nil && hs.ErrorKind(err) != hs.EINVALID:
					t.Fatalf("request(%s) = %v, kind %s; want EINVALID", args, err, hs.ErrorKind(err))
				case err == nil:
					if req.TopK < 1 || req.TopK > maxLimit || (req.Filter.PathPrefix != "" && !strings.HasPrefix(req.Filter.PathPrefix, "/")) {
						t.Fatalf("request(%s) = %+v", args, req)
					}
					if w := req.Weights; w != nil && (math.IsNaN(w.Semantic+w.Keyword+w.Fuzzy) || w.Semantic+w.Keyword+w.Fuzzy > 1+1e-9) {
						t.Fatalf("request(%s) weights %+v", args, *w)
					}
					if err := search.Validate(req); err != nil && (hs.ErrorKind(err) != hs.EINVALID || hs.ErrorMessage(err) == "") {
						t.Fatalf("search.Validate(request(%s)) = %v, kind %s; want EINVALID", args, err, hs.ErrorKind(err))
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
