package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
)

// TestRealOllama runs items 7 and 9 of issue 11 against a real Ollama:
// OLLAMA_TEST_BIN names an ollama binary built from
// github.com/ollama/ollama v0.17.4 (see docs/testing.md). The test
// starts "ollama serve" on a free port with its own model directory and
// creates "tinybert", a BERT of random weights written here with
// Ollama's own fs/ggml package: one layer, 32 dimensions, a context of 64
// tokens and a vocabulary of ASCII letters, digits and punctuation only,
// so any other letter is [UNK]. It is not run in CI.
func TestRealOllama(t *testing.T) {
	srv := startOllama(t)
	createTinyBERT(t, srv.url, "tinybert", 64)
	ctx := t.Context()

	client, err := embedding.NewOllama(embedding.OllamaOptions{Hosts: []string{srv.url}, Model: "tinybert", ContextNeeded: contextNeeded(1000)})
	if err != nil {
		t.Fatal(err)
	}
	info, err := client.Probe(ctx)
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	t.Logf("probe: %+v", info)

	t.Run("an input Ollama cannot truncate", func(t *testing.T) {
		long := strings.Repeat("Übergrößen für Öfen ", 40)
		_, err := client.EmbedDocuments(ctx, []string{long})
		t.Logf("over-long input of [UNK] words: %v", err)
		if hs.ErrorKind(err) != hs.ETOOLARGE || !strings.Contains(err.Error(), "context length") {
			t.Errorf("EmbedDocuments = %v, want ETOOLARGE about the context length", err)
		}
		if _, err := client.EmbedDocuments(ctx, []string{strings.Repeat("plain ascii words ", 40)}); err != nil {
			t.Errorf("over-long ASCII input (Ollama truncates it) = %v", err)
		}
		if _, err := client.EmbedDocuments(ctx, []string{strings.Repeat("Übergrößen für Öfen ", 5)}); err != nil {
			t.Errorf("a part of it = %v", err)
		}
	})

	t.Run("num_ctx only when needed", func(t *testing.T) {
		plain := api.NewClient(mustURL(t, srv.url), http.DefaultClient)
		ours := func() {
			if _, err := client.EmbedDocuments(ctx, []string{"a chunk of ours"}); err != nil {
				t.Fatal(err)
			}
		}
		theirs := func(opts map[string]any) {
			if _, err := plain.Embed(ctx, &api.EmbedRequest{Model: "tinybert", Input: "another client's text", Options: opts}); err != nil {
				t.Fatal(err)
			}
		}
		ours()
		before := srv.runnerStarts()
		for range 3 {
			theirs(nil)
			ours()
		}
		withDefaults := srv.runnerStarts() - before
		before = srv.runnerStarts()
		for range 3 {
			theirs(map[string]any{"num_ctx": info.ContextLength}) // what every request of ours sent before
			ours()
		}
		forced := srv.runnerStarts() - before
		t.Logf("model loads over 6 alternating requests: %d beside a client that sends no num_ctx, %d beside one that forces num_ctx=%d",
			withDefaults, forced, info.ContextLength)
		if withDefaults != 0 {
			t.Errorf("the model was reloaded %d times beside a client with Ollama's defaults", withDefaults)
		}
	})

	t.Run("a file with a chunk Ollama cannot embed", func(t *testing.T) {
		env := newTestEnv(t, envOptions{install: true, extra: map[string]string{"OLLAMA_HOST": srv.url, "EMBED_MODEL": "tinybert"}})
		f := env.Sim.PutFile("alice", "/Docs/plan.md", []byte(unembeddable))
		start := time.Now()
		ix := env.awaitFile(t, "indexed, one chunk without a vector", f.ID, func(ix indexed) bool {
			return ix.state.Status == hs.StatusIndexed && len(ix.points) >= 2
		})
		t.Logf("after %v: state %+v, %d chunks", time.Since(start).Round(time.Millisecond), ix.state, len(ix.points))
		if ix.state.NoVectors == 0 {
			t.Logf("every chunk got a vector (split in parts)")
		}
		res, body := env.searchAs(t, &env.Alice, "q=Boxkämpfer&algorithm=keyword")
		if len(res.Results) == 0 {
			t.Errorf("keyword search does not find the file:\n%s", body)
		}
		_, body = env.proxyGet(t, &env.Alice, "api/status")
		var rep hs.IndexStatus
		if err := json.Unmarshal([]byte(body), &rep); err != nil {
			t.Fatal(err)
		}
		t.Logf("problems: %+v", rep.Problems)
	})
}

// ollamaServer is a running "ollama serve".
type ollamaServer struct {
	url  string
	mu   sync.Mutex
	logs bytes.Buffer
}

func (s *ollamaServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

// runnerStarts counts the model runners Ollama started so far: each load
// or reload of a model.
func (s *ollamaServer) runnerStarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.logs.String(), `msg="starting runner"`)
}

// startOllama runs "$OLLAMA_TEST_BIN serve" (skipping the test without
// it) on a free port with its own home and model directory, waits until
// it answers and stops it when the test ends.
func startOllama(t *testing.T) *ollamaServer {
	t.Helper()
	bin := os.Getenv("OLLAMA_TEST_BIN")
	if bin == "" {
		t.Skip("OLLAMA_TEST_BIN is not set (a real Ollama binary; see docs/testing.md)")
	}
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	srv := &ollamaServer{url: "http://" + addr}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+dir, "OLLAMA_HOST="+addr, "OLLAMA_MODELS="+filepath.Join(dir, "models"), "OLLAMA_NOPRUNE=1")
	cmd.Stdout, cmd.Stderr = srv, srv
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its runners too are stopped with it
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			srv.mu.Lock()
			t.Logf("ollama serve logs:\n%s", srv.logs.String())
			srv.mu.Unlock()
		}
	})
	c := api.NewClient(mustURL(t, srv.url), http.DefaultClient)
	await(t, "ollama serve to answer", 30*time.Second, func() bool { return c.Heartbeat(t.Context()) == nil })
	return srv
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// createTinyBERT writes the tiny BERT GGUF and creates model name from it.
func createTinyBERT(t *testing.T, base, name string, contextLength int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tinybert.gguf")
	writeTinyBERT(t, path, contextLength)
	createModel(t, base, name, path, "")
}

// createModel uploads the GGUF at path as a blob and creates model name
// from it, with template tmpl if set.
func createModel(t *testing.T, base, name, path, tmpl string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	c := api.NewClient(mustURL(t, base), http.DefaultClient)
	if err := c.CreateBlob(t.Context(), digest, bytes.NewReader(data)); err != nil {
		t.Fatalf("create blob: %v", err)
	}
	stream := false
	req := &api.CreateRequest{Model: name, Files: map[string]string{filepath.Base(path): digest}, Template: tmpl, Stream: &stream}
	if err := c.Create(t.Context(), req, func(api.ProgressResponse) error { return nil }); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

// writeTinyBERT writes a BERT GGUF of random weights: the tensors and
// keys Ollama's bert model reads (model/models/bert/embed.go, v0.17.4),
// with BERT's special token ids and a WordPiece vocabulary ("▁" marks a
// word start) of lowercase ASCII letters, digits and punctuation.
func writeTinyBERT(t *testing.T, path string, contextLength int) {
	t.Helper()
	const embd, ff, heads = 32, 64, 2
	tokens := make([]string, 0, 256)
	types := make([]int32, 0, 256)
	for i := range 104 {
		tok, typ := fmt.Sprintf("[unused%d]", i), int32(5)
		switch i {
		case 0:
			tok, typ = "[PAD]", 3
		case 100:
			tok, typ = "[UNK]", 2
		case 101:
			tok, typ = "[CLS]", 3
		case 102:
			tok, typ = "[SEP]", 3
		case 103:
			tok, typ = "[MASK]", 3
		}
		tokens, types = append(tokens, tok), append(types, typ)
	}
	for _, r := range "abcdefghijklmnopqrstuvwxyz0123456789" {
		tokens, types = append(tokens, "▁"+string(r), string(r)), append(types, 1, 1)
	}
	for _, r := range ".,;:!?'\"()[]{}-_/\\#*&%$@+=<>|~`" {
		tokens, types = append(tokens, "▁"+string(r)), append(types, 1)
	}
	kv := ggml.KV{
		"general.architecture":              "bert",
		"general.name":                      "tinybert",
		"general.file_type":                 uint32(0),
		"bert.block_count":                  uint32(1),
		"bert.context_length":               uint32(contextLength),
		"bert.embedding_length":             uint32(embd),
		"bert.feed_forward_length":          uint32(ff),
		"bert.attention.head_count":         uint32(heads),
		"bert.attention.layer_norm_epsilon": float32(1e-12),
		"bert.attention.causal":             false,
		"bert.pooling_type":                 uint32(1), // mean
		"tokenizer.ggml.model":              "bert",
		"tokenizer.ggml.tokens":             tokens,
		"tokenizer.ggml.token_type":         types,
		"tokenizer.ggml.scores":             make([]float32, len(tokens)),
		"tokenizer.ggml.padding_token_id":   uint32(0),
		"tokenizer.ggml.unknown_token_id":   uint32(100),
		"tokenizer.ggml.cls_token_id":       uint32(101),
		"tokenizer.ggml.seperator_token_id": uint32(102),
		"tokenizer.ggml.mask_token_id":      uint32(103),
		"tokenizer.ggml.bos_token_id":       uint32(101),
		"tokenizer.ggml.eos_token_id":       uint32(102),
		"tokenizer.ggml.token_type_count":   uint32(2),
		"tokenizer.ggml.add_bos_token":      true,
		"tokenizer.ggml.add_eos_token":      true,
	}
	ts := &randomTensors{rng: rand.New(rand.NewPCG(1, 2))}
	add := ts.add
	add("token_embd.weight", embd, uint64(len(tokens)))
	add("token_types.weight", embd, 2)
	add("position_embd.weight", embd, uint64(contextLength))
	add("token_embd_norm.weight", embd)
	add("token_embd_norm.bias", embd)
	for _, p := range []string{"attn_q", "attn_k", "attn_v", "attn_output"} {
		add("blk.0."+p+".weight", embd, embd)
		add("blk.0."+p+".bias", embd)
	}
	add("blk.0.attn_output_norm.weight", embd)
	add("blk.0.attn_output_norm.bias", embd)
	add("blk.0.ffn_up.weight", embd, ff)
	add("blk.0.ffn_up.bias", ff)
	add("blk.0.ffn_down.weight", ff, embd)
	add("blk.0.ffn_down.bias", embd)
	add("blk.0.layer_output_norm.weight", embd)
	add("blk.0.layer_output_norm.bias", embd)
	writeGGUF(t, path, kv, ts.ts)
}

// f32s writes float32s in little-endian order.
type f32s []float32

func (v f32s) WriteTo(w io.Writer) (int64, error) {
	return int64(4 * len(v)), binary.Write(w, binary.LittleEndian, []float32(v))
}

// randomTensors collects GGUF tensors of random weights for a tiny test
// model: normal values of spread 0.2, norm weights 1 and norm biases 0.
type randomTensors struct {
	rng *rand.Rand
	ts  []*ggml.Tensor
}

// add appends the tensor name of the given shape.
func (r *randomTensors) add(name string, shape ...uint64) {
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(r.rng.NormFloat64() * 0.2) // drawn for every value, so the weights stay as they were
		if strings.HasSuffix(name, "norm.weight") {
			vals[i] = 1
		} else if strings.HasSuffix(name, "norm.bias") {
			vals[i] = 0
		}
	}
	r.ts = append(r.ts, &ggml.Tensor{Name: name, Kind: 0, Shape: shape, WriterTo: f32s(vals)})
}

// writeGGUF writes a model file of kv and ts to path with Ollama's own
// GGUF writer.
func writeGGUF(t *testing.T, path string, kv ggml.KV, ts []*ggml.Tensor) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := ggml.WriteGGUF(f, kv, ts); err != nil {
		t.Fatalf("write GGUF: %v", err)
	}
}
