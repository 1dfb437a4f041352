package embeddingtest

import (
	"fmt"
	"strings"
)

// Model is a model the fake Server has "pulled".
type Model struct {
	Name          string   // as Ollama lists it, e.g. "nomic-embed-text:latest"
	Arch          string   // general.architecture and details.family
	Dim           int      // <arch>.embedding_length, and the length of served vectors
	ContextLength int      // <arch>.context_length
	ParameterSize string   // details.parameter_size, e.g. "137M"
	Capabilities  []string // nil means ["embedding"]
	// NumCtx is the Modelfile's num_ctx parameter, listed by /api/show in
	// parameters and used when a request sets none; 0 means none, so the
	// server's default applies (Server.SetDefaultContext).
	NumCtx int
	// ASCIIVocab gives the model a vocabulary of ASCII words only, as an
	// English BERT's: any other word is one [UNK] token. Ollama's retry of
	// an over-long input decodes [UNK] as the text "[UNK]", which encodes
	// again as several tokens, so such an input can still exceed the
	// context after truncation (see Server).
	ASCIIVocab bool
}

// KnownModel returns realistic facts for an Ollama embedding model by name
// (tag optional): nomic-embed-text, mxbai-embed-large, bge-m3,
// snowflake-arctic-embed2, all-minilm, embeddinggemma, qwen3-embedding
// (the 0.6b shape) and multilingual-e5 names. Other names get a small
// BERT (384 dimensions, 512 tokens).
func KnownModel(name string) Model {
	m := Model{Name: CanonicalName(name), Arch: "bert", Dim: 384, ContextLength: 512, ParameterSize: "33M"}
	base := m.Name[:strings.LastIndexByte(m.Name, ':')]
	switch {
	case strings.Contains(base, "nomic-embed"):
		m.Arch, m.Dim, m.ContextLength, m.ParameterSize = "nomic-bert", 768, 2048, "137M"
	case strings.Contains(base, "mxbai-embed-large"):
		m.Dim, m.ContextLength, m.ParameterSize = 1024, 512, "334M"
	case strings.Contains(base, "bge-m3"):
		m.Dim, m.ContextLength, m.ParameterSize = 1024, 8192, "567M"
	case strings.Contains(base, "snowflake-arctic-embed2"):
		m.Dim, m.ContextLength, m.ParameterSize = 1024, 8192, "568M"
	case strings.Contains(base, "all-minilm"):
		m.Dim, m.ContextLength, m.ParameterSize = 384, 512, "23M"
	case strings.Contains(base, "embeddinggemma"):
		m.Arch, m.Dim, m.ContextLength, m.ParameterSize = "gemma3", 768, 2048, "307M"
	case strings.Contains(base, "qwen3-embedding"):
		m.Arch, m.Dim, m.ContextLength, m.ParameterSize = "qwen3", 1024, 32768, "596M"
	case strings.Contains(base, "e5"):
		m.Dim, m.ContextLength, m.ParameterSize = 1024, 512, "560M"
	}
	return m
}

// CanonicalName lowercases an Ollama model name, drops the default
// registry path and adds the ":latest" tag when there is none, so
// "nomic-embed-text" and "registry.ollama.ai/library/nomic-embed-text:latest"
// name the same model, as they do in Ollama.
func CanonicalName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "registry.ollama.ai/")
	n = strings.TrimPrefix(n, "library/")
	last := n[strings.LastIndexByte(n, '/')+1:]
	if !strings.Contains(last, ":") {
		n += ":latest"
	}
	return n
}

// parameters is /api/show's parameters text: one "%-30s %#v" line per
// Modelfile parameter (server/routes.go GetModelInfo, v0.17.4).
func (m Model) parameters() string {
	if m.NumCtx <= 0 {
		return ""
	}
	return fmt.Sprintf("%-*s %#v", 30, "num_ctx", m.NumCtx)
}

func (m Model) capabilities() []string {
	if m.Capabilities == nil {
		return []string{"embedding"}
	}
	return m.Capabilities
}

// modelInfo is the GGUF key/value view /api/show returns as model_info.
func (m Model) modelInfo() map[string]any {
	a := m.Arch
	return map[string]any{
		"general.architecture":         a,
		"general.basename":             m.Name[:strings.LastIndexByte(m.Name, ':')],
		"general.file_type":            1,
		"general.quantization_version": 2,
		a + ".attention.causal":        false,
		a + ".attention.head_count":    12,
		a + ".block_count":             12,
		a + ".context_length":          m.ContextLength,
		a + ".embedding_length":        m.Dim,
		a + ".feed_forward_length":     4 * m.Dim,
		a + ".pooling_type":            1,
		"tokenizer.ggml.model":         "bert",
	}
}
