package embeddingtest

import (
	"context"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding"
)

// DefaultDim is the vector length of a Deterministic with Dimensions 0, the
// size of nomic-embed-text.
const DefaultDim = 768

// Deterministic is an embedder with the method set of *embedding.Ollama
// that needs no server. A text's vector is the normalised sum of one
// pseudo-random unit vector per analysed term (analysis.Terms: lowercase
// words, CJK bigrams) plus lighter ones for each term's character
// trigrams, so equal texts embed equally and texts that share words, or
// forms of a word ("upgrade", "upgrading"), get close vectors. Known model
// prefixes (embedding.PrefixSchemes) are stripped first, so a query and a
// document agree whichever prefix they carry. The zero value is ready to use.
// The length field is Dimensions because Dim is taken by the method.
type Deterministic struct {
	Dimensions int    // vector length; 0 means DefaultDim
	Name       string // returned by Model; "" means "deterministic"
}

// Weights of the two kinds of features, and how many coordinates one
// feature touches (a sparse random projection: cheap and nearly orthogonal).
const (
	termWeight    = 1.0
	trigramWeight = 0.35
	spread        = 16
)

// Model returns Name, or "deterministic".
func (d Deterministic) Model() string {
	if d.Name == "" {
		return "deterministic"
	}
	return d.Name
}

// Dim returns the vector length.
func (d Deterministic) Dim(context.Context) (int, error) { return d.dim(), nil }

// Health always succeeds.
func (d Deterministic) Health(context.Context) error { return nil }

// EmbedDocuments returns Vector of each text. Like Ollama it rejects an
// empty text with an EINVALID error and honours ctx.
func (d Deterministic) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, hs.Errorf(hs.EUNAVAILABLE, "embeddingtest: embed: %w", err)
		}
		if strings.TrimSpace(t) == "" {
			return nil, hs.Errorf(hs.EINVALID, "embeddingtest: document %d of %d is empty", i, len(texts))
		}
		out[i] = d.Vector(t)
	}
	return out, nil
}

// EmbedQuery returns Vector(text); an empty query is an EINVALID error.
func (d Deterministic) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, hs.Errorf(hs.EUNAVAILABLE, "embeddingtest: embed: %w", err)
	}
	if strings.TrimSpace(text) == "" {
		return nil, hs.Errorf(hs.EINVALID, "embeddingtest: empty query")
	}
	return d.Vector(text), nil
}

// Vector returns the unit vector of text. It is a pure function of the
// text (after prefix stripping) and Dimensions.
func (d Deterministic) Vector(text string) []float32 {
	vec := make([]float64, d.dim())
	terms := analysis.Terms(StripPrefix(text))
	for _, t := range terms {
		addFeature(vec, "t\x00"+t, termWeight)
		for _, g := range trigrams(t) {
			addFeature(vec, "g\x00"+g, trigramWeight)
		}
	}
	if len(terms) == 0 {
		addFeature(vec, "raw\x00"+text, 1) // punctuation only, or nothing
	}
	var sum float64
	for _, v := range vec {
		sum += v * v
	}
	if sum == 0 { // features cancelled out exactly; vanishingly rare
		vec[0], sum = 1, 1
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(vec))
	for i, v := range vec {
		out[i] = float32(v * inv)
	}
	return out
}

func (d Deterministic) dim() int {
	if d.Dimensions <= 0 {
		return DefaultDim
	}
	return d.Dimensions
}

// StripPrefix removes one known model prefix (document or query side, the
// longest that matches) from the start of text.
func StripPrefix(text string) string {
	var prefixes []string
	for _, s := range embedding.PrefixSchemes() {
		for _, p := range []string{s.Document, s.Query} {
			if p != "" {
				prefixes = append(prefixes, p)
			}
		}
	}
	sort.Slice(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(text, p); ok {
			return rest
		}
	}
	return text
}

// addFeature adds weight times the feature's pseudo-random unit vector:
// spread coordinates chosen by a generator seeded with the feature's hash,
// each ±1/sqrt(spread).
func addFeature(vec []float64, feature string, weight float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	state := h.Sum64()
	n := min(spread, len(vec))
	w := weight / math.Sqrt(float64(n))
	for range n {
		r := splitmix64(&state)
		i := int(r % uint64(len(vec)))
		if r>>63 == 1 {
			vec[i] += w
		} else {
			vec[i] -= w
		}
	}
}

// splitmix64 is a small, well-mixed generator (Steele et al.).
func splitmix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// trigrams returns the character trigrams of a term padded with one space
// on each side; a term of one rune gives none beyond the term itself.
func trigrams(term string) []string {
	r := []rune(" " + term + " ")
	if len(r) < 4 {
		return nil
	}
	out := make([]string, 0, len(r)-2)
	for i := 0; i+3 <= len(r); i++ {
		out = append(out, string(r[i:i+3]))
	}
	return out
}
