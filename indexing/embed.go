package indexing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"unicode"

	hs "github.com/hybrid-search/hybridsearch"
)

// maxSplitDepth bounds how often a text the embedder rejects is halved:
// at most 2^maxSplitDepth parts.
const maxSplitDepth = 4

// embedInput is what is embedded for a chunk: head (title and heading
// path) and body (the chunk's text), sent as head + "\n\n" + body.
type embedInput struct{ head, body string }

func (in embedInput) String() string { return in.head + "\n\n" + in.body }

// newEmbedInput returns the input of chunk c of a document titled title.
func newEmbedInput(title string, c hs.Chunk) embedInput {
	var b strings.Builder
	b.WriteString(title)
	for _, h := range c.Headings {
		if h != title {
			b.WriteString(" > ")
			b.WriteString(h)
		}
	}
	return embedInput{head: b.String(), body: c.Text}
}

// EmbedInput is what is embedded and analysed for a chunk: the document
// title and heading path before the chunk text, so a chunk deep in a
// document still carries what it is about.
func EmbedInput(title string, c hs.Chunk) string {
	return newEmbedInput(title, c).String()
}

// VectorKey is the key a chunk's dense vector is stored and reused under
// (hs.Chunk.Hash of a stored point): the hex SHA-256 of the exact text
// embedded, EmbedInput, so a chunk whose title or headings changed is
// embedded again even when its text did not.
func VectorKey(input string) string {
	sum := sha256.Sum256([]byte(input))
	return hex.EncodeToString(sum[:])
}

// unembedded records the inputs that got no vector, and why.
type unembedded struct {
	count  int
	reason error // the first input's
}

func (u *unembedded) add(err error) {
	if u.count == 0 {
		u.reason = err
	}
	u.count++
}

// embed returns one vector per input, all sent in one call: the embedder
// cuts them into requests and spreads them over its hosts (the only
// batching of texts; the pipeline hands it one write batch of a file at
// a time). An input too long for the model (ETOOLARGE, such as Ollama's
// "the input length exceeds the context length" for a text it cannot
// truncate) costs only its own vector: a rejected call is sent again in
// halves down to single inputs, a rejected input is split in two and its
// parts embedded (split), and an input that still fails gets a nil
// vector, counted in miss with its reason. Any other error (the embedder
// is down) is returned.
func (p *Pipeline) embed(ctx context.Context, inputs []embedInput, miss *unembedded) ([][]float32, error) {
	vecs, err := p.embedBatch(ctx, inputs)
	switch {
	case hs.ErrorKind(err) != hs.ETOOLARGE:
		return vecs, err
	case len(inputs) == 1:
		v, err := p.split(ctx, inputs[0], 1, miss, err)
		if err != nil {
			return nil, err
		}
		return [][]float32{v}, nil
	}
	half := len(inputs) / 2
	a, err := p.embed(ctx, inputs[:half], miss)
	if err != nil {
		return nil, err
	}
	b, err := p.embed(ctx, inputs[half:], miss)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// embedBatch sends inputs to the embedder in one call.
func (p *Pipeline) embedBatch(ctx context.Context, inputs []embedInput) ([][]float32, error) {
	texts := make([]string, len(inputs))
	for i, in := range inputs {
		texts[i] = in.String()
	}
	p.embedded.Add(int64(len(texts)))
	out, err := p.Embed.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(out) != len(texts) {
		return nil, hs.Errorf(hs.EINTERNAL, "embedder returned %d vectors for %d texts", len(out), len(texts))
	}
	return out, nil
}

// splitOrFail embeds one input at split depth depth; see split.
func (p *Pipeline) splitOrFail(ctx context.Context, in embedInput, depth int, miss *unembedded) ([]float32, error) {
	vecs, err := p.embedBatch(ctx, []embedInput{in})
	if err == nil {
		return vecs[0], nil
	}
	if hs.ErrorKind(err) != hs.ETOOLARGE {
		return nil, err
	}
	return p.split(ctx, in, depth+1, miss, err)
}

// split embeds an input the embedder rejected with rejection as the two
// halves of its body, each under the same head, and returns their
// length-weighted mean, normalised. Past maxSplitDepth, or for a body too
// short to split, the input gets no vector: it is counted in miss and nil
// is returned without error.
func (p *Pipeline) split(ctx context.Context, in embedInput, depth int, miss *unembedded, rejection error) ([]float32, error) {
	a, b, ok := halve(in.body)
	if !ok || depth > maxSplitDepth {
		miss.add(rejection)
		return nil, nil
	}
	before := miss.count
	var sum []float64
	for _, half := range []string{a, b} {
		v, err := p.splitOrFail(ctx, embedInput{head: in.head, body: half}, depth, miss)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		if sum == nil {
			sum = make([]float64, len(v))
		}
		if len(v) != len(sum) {
			return nil, hs.Errorf(hs.EINTERNAL, "embedder returned vectors of %d and %d dimensions", len(sum), len(v))
		}
		w := float64(len([]rune(half)))
		for i, x := range v {
			sum[i] += w * float64(x)
		}
	}
	if miss.count > before {
		// A part is missing: the whole input has no vector, counted once.
		miss.count = before + 1
		return nil, nil
	}
	return unit(sum), nil
}

// halve splits s in two near its middle rune, at the whitespace closest
// to it if there is any, else between runes. ok is false when s has
// fewer than two runes.
func halve(s string) (a, b string, ok bool) {
	r := []rune(strings.TrimSpace(s))
	if len(r) < 2 {
		return "", "", false
	}
	mid := len(r) / 2
	cut := mid
	for d := 0; d < mid; d++ {
		if unicode.IsSpace(r[mid-d]) {
			cut = mid - d
			break
		}
		if mid+d < len(r) && unicode.IsSpace(r[mid+d]) {
			cut = mid + d
			break
		}
	}
	a, b = strings.TrimSpace(string(r[:cut])), strings.TrimSpace(string(r[cut:]))
	if a == "" || b == "" {
		a, b = string(r[:mid]), string(r[mid:])
	}
	return a, b, true
}

// unit returns v scaled to length 1 as float32s.
func unit(v []float64) []float32 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// noVectorsMessage is the recorded reason of a file indexed with n of its
// total chunks lacking a dense vector.
func noVectorsMessage(n, total int, reason error) string {
	return fmt.Sprintf("%d of %d chunks have no vector, so search by meaning misses them (keyword and fuzzy search find them): %s",
		n, total, hs.ErrorMessage(reason))
}
