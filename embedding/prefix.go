package embedding

import "strings"

// Prefixes are the instruction texts a model expects before a document
// (indexing side) and before a query (search side). An empty field means
// the text is sent as it is.
type Prefixes struct {
	Scheme   string // short name of the scheme, e.g. "nomic"; "none" for plain text
	Document string
	Query    string
}

// The strings come from the model cards; Ollama does not add them.
const (
	representQuery = "Represent this sentence for searching relevant passages: "
	qwen3Query     = "Instruct: Given a search query, retrieve relevant passages\nQuery: "
	e5MistralQuery = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "
)

// prefixRule maps model names containing any of match to a scheme.
type prefixRule struct {
	match []string
	p     Prefixes
}

// prefixRules is the table, most specific first. Sources: the model cards of
// nomic-embed-text (v1, v1.5, v2), intfloat e5 / multilingual-e5,
// e5-mistral, mixedbread mxbai-embed-large, Snowflake arctic-embed v1 and
// v2, Google EmbeddingGemma, Qwen3-Embedding; bge-m3, all-minilm,
// granite-embedding and paraphrase-multilingual take no prefix.
// snowflake-arctic-embed2's "query: " is from its model card, not confirmed
// against the Ollama build (uncertain).
func prefixRules() []prefixRule {
	return []prefixRule{
		{[]string{"nomic-embed"}, Prefixes{Scheme: "nomic", Document: "search_document: ", Query: "search_query: "}},
		{[]string{"embeddinggemma"}, Prefixes{Scheme: "embeddinggemma", Document: "title: none | text: ", Query: "task: search result | query: "}},
		{[]string{"qwen3-embedding"}, Prefixes{Scheme: "qwen3", Query: qwen3Query}},
		{[]string{"e5-mistral"}, Prefixes{Scheme: "e5-mistral", Query: e5MistralQuery}},
		{[]string{"mxbai-embed"}, Prefixes{Scheme: "mxbai", Query: representQuery}},
		{[]string{"arctic-embed2", "arctic-embed-l-v2", "arctic-embed-m-v2"}, Prefixes{Scheme: "arctic-embed2", Query: "query: "}},
		{[]string{"arctic-embed"}, Prefixes{Scheme: "arctic-embed", Query: representQuery}},
		{[]string{"multilingual-e5", "e5-"}, Prefixes{Scheme: "e5", Document: "passage: ", Query: "query: "}},
		{[]string{"bge-m3", "all-minilm", "granite-embedding", "paraphrase-multilingual"}, Prefixes{Scheme: "none"}},
	}
}

// PrefixesFor returns the prefixes for an Ollama model name such as
// "nomic-embed-text", "nomic-embed-text:v1.5" or
// "hf.co/intfloat/multilingual-e5-large-instruct-GGUF:Q8_0". known is false
// for a model missing from the table; its Prefixes are empty (scheme "none").
func PrefixesFor(model string) (p Prefixes, known bool) {
	name := baseName(model)
	for _, r := range prefixRules() {
		for _, m := range r.match {
			if matchName(name, m) {
				return r.p, true
			}
		}
	}
	return Prefixes{Scheme: "none"}, false
}

// PrefixSchemes returns every scheme in the table, most specific first
// (a fresh slice; the caller may keep it).
func PrefixSchemes() []Prefixes {
	rules := prefixRules()
	out := make([]Prefixes, len(rules))
	for i, r := range rules {
		out[i] = r.p
	}
	return out
}

// baseName lowercases a model name and drops the registry path and the tag.
func baseName(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return name
}

// matchName reports whether m occurs in name at the start or after a
// separator, so "e5-" matches "multilingual-e5-large" but not "bge5-x".
func matchName(name, m string) bool {
	for i := 0; ; {
		j := strings.Index(name[i:], m)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || strings.ContainsRune("-_.", rune(name[at-1])) {
			return true
		}
		i = at + 1
	}
}
