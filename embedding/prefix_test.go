package embedding_test

import (
	"testing"

	"github.com/hybrid-search/hybridsearch/embedding"
)

func TestPrefixesFor(t *testing.T) {
	tests := []struct {
		model      string
		wantScheme string
		wantKnown  bool
	}{
		{"nomic-embed-text", "nomic", true},
		{"nomic-embed-text:latest", "nomic", true},
		{"NOMIC-EMBED-TEXT:v1.5", "nomic", true},
		{"registry.ollama.ai/library/nomic-embed-text:latest", "nomic", true},
		{"hf.co/nomic-ai/nomic-embed-text-v2-moe-GGUF:Q8_0", "nomic", true},
		{"mxbai-embed-large:335m", "mxbai", true},
		{"bge-m3", "none", true},
		{"all-minilm:l6-v2", "none", true},
		{"granite-embedding:278m", "none", true},
		{"snowflake-arctic-embed2:568m", "arctic-embed2", true},
		{"snowflake-arctic-embed:335m", "arctic-embed", true},
		{"embeddinggemma:300m", "embeddinggemma", true},
		{"qwen3-embedding:8b", "qwen3", true},
		{"dengcao/Qwen3-Embedding-0.6B:Q8_0", "qwen3", true},
		{"jeffh/intfloat-multilingual-e5-large:f16", "e5", true},
		{"e5-large-v2", "e5", true},
		{"yoyo/e5-mistral-7b-instruct", "e5-mistral", true},
		{"bge5-like-name", "none", false},
		{"llama3.2", "none", false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, known := embedding.PrefixesFor(tt.model)
			if got.Scheme != tt.wantScheme || known != tt.wantKnown {
				t.Errorf("PrefixesFor(%q) = %q, %v; want %q, %v", tt.model, got.Scheme, known, tt.wantScheme, tt.wantKnown)
			}
		})
	}
}

func TestPrefixSchemesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range embedding.PrefixSchemes() {
		if seen[p.Scheme] {
			t.Errorf("scheme %q listed twice", p.Scheme)
		}
		seen[p.Scheme] = true
	}
	if !seen["nomic"] || !seen["none"] {
		t.Errorf("schemes = %v, want nomic and none among them", seen)
	}
}
