package app

import (
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/fs/ggml"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/chat"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestRealOllamaChat checks "Ask your files" against a real Ollama
// (OLLAMA_TEST_BIN, built as for TestRealOllama): it creates "tinyqwen", a
// qwen3 of random weights written here with Ollama's own fs/ggml package
// (one layer, 32 dimensions, a context of 512 tokens, a byte-level
// vocabulary of the 256 bytes and ChatML's special tokens), and checks
// the mechanics: the context the client reads, a streamed answer cut at
// MaxAnswer, a prompt over the context refused rather than truncated, and
// a question asked through the simulated Assistant and over HTTP. The
// answers are noise; only the plumbing is judged. It is not run in CI.
func TestRealOllamaChat(t *testing.T) {
	srv := startOllama(t)
	createTinyQwen(t, srv.url, "tinyqwen", 512)
	ctx := t.Context()

	c, err := chat.New(chat.Options{Host: srv.url, Model: "tinyqwen", MaxAnswer: 24})
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Context(ctx)
	if err != nil || n != 512 {
		t.Fatalf("Context = %d, %v; want the trained 512 (below the server's default 4096)", n, err)
	}
	t.Run("a streamed answer", func(t *testing.T) {
		start := time.Now()
		var first time.Duration
		var pieces int
		pt, at, err := c.Chat(ctx, "Answer briefly.", "[1] Backups\nBackups happen nightly.\n\nQuestion: When do backups happen?", func(string) error {
			if pieces == 0 {
				first = time.Since(start)
			}
			pieces++
			return nil
		})
		t.Logf("%d pieces, %d prompt and %d answer tokens, first after %v, all after %v", pieces, pt, at, first, time.Since(start))
		if err != nil || pt == 0 || at > 24 {
			t.Errorf("Chat: %v (prompt %d, answer %d tokens)", err, pt, at)
		}
	})
	t.Run("a prompt over the context", func(t *testing.T) {
		_, _, err := c.Chat(ctx, "s", strings.Repeat("backups nightly ", 400), func(string) error { return nil })
		t.Logf("over-long prompt: %v", err)
		if hs.ErrorKind(err) != hs.ETOOLARGE {
			t.Errorf("Chat = %v, want ETOOLARGE (Ollama must not cut the prompt)", err)
		}
	})
	t.Run("asked through the Assistant and over HTTP", func(t *testing.T) {
		// The app keeps room for a 1,024-token answer (half of a small
		// context) and the system prompt, so 512 tokens leave no passage:
		// it refuses that model with a clear error. A 2,048-token twin runs
		// the question.
		createTinyQwen(t, srv.url, "tinyqwen2k", 2048)
		embed := embeddingtest.NewServer(t)
		env := newTestEnv(t, envOptions{install: true, version: "34",
			setup: func(sim *ncsim.Server) { sim.TaskScheduleLimit = -1 },
			extra: map[string]string{"OLLAMA_HOST": embed.URL, "EMBED_MODEL": "nomic-embed-text", "OLLAMA_CHAT_MODEL": "tinyqwen2k",
				"OLLAMA_CHAT_HOST": srv.url}})
		f := env.Sim.PutFile("alice", "/Documents/backups.md", []byte("# Backups\n\nBackups happen nightly at two.\n"))
		env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
		task := env.awaitTask(t, env.Alice, env.schedule(t, env.Alice, "hybrid_search:ask", map[string]any{"question": "When do backups happen?"}), 2*time.Minute)
		t.Logf("task %s, output %q", task.Status, task.Output["answer"])
		if task.Status != "STATUS_SUCCESSFUL" {
			t.Errorf("task %+v", task)
		}
		events, first, status, raw := env.askHTTP(t, env.Alice, `{"question":"When do backups happen?"}`)
		t.Logf("HTTP: status %d, %d events, first text after %v %s", status, len(events), first, raw)
		if status != http.StatusOK || len(events) < 2 || events[len(events)-1].Name != "done" {
			t.Errorf("events %+v", events)
		}
	})
}

// createTinyQwen writes the tiny qwen3 GGUF and creates model name from
// it, with a ChatML template.
func createTinyQwen(t *testing.T, base, name string, contextLength int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tinyqwen.gguf")
	writeTinyQwen(t, path, contextLength)
	createModel(t, base, name, path, "{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n")
}

// writeTinyQwen writes a qwen3 GGUF of random weights: the keys and
// tensors Ollama's qwen3 model reads (model/models/qwen3/model.go,
// v0.17.4; Ollama's own engine runs it), with a byte-level BPE vocabulary
// (tokenizer/bytepairencoding.go maps each byte to one rune; every byte is
// a token, so any text encodes without merges) and ChatML's tokens.
func writeTinyQwen(t *testing.T, path string, contextLength int) {
	t.Helper()
	const embd, ff, heads, kvHeads, headDim = 32, 64, 2, 1, 16
	var tokens []string
	var types []int32
	for b := 0; b < 256; b++ {
		r := rune(b)
		switch {
		case r == 0x00ad:
			r = 0x0143
		case r <= 0x0020:
			r += 0x0100
		case r >= 0x007f && r <= 0x00a0:
			r += 0x00a2
		}
		tokens, types = append(tokens, string(r)), append(types, 1)
	}
	for _, special := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"} {
		tokens, types = append(tokens, special), append(types, 3)
	}
	kv := ggml.KV{
		"general.architecture":                   "qwen3",
		"general.name":                           "tinyqwen",
		"general.file_type":                      uint32(0),
		"qwen3.block_count":                      uint32(1),
		"qwen3.context_length":                   uint32(contextLength),
		"qwen3.embedding_length":                 uint32(embd),
		"qwen3.feed_forward_length":              uint32(ff),
		"qwen3.attention.head_count":             uint32(heads),
		"qwen3.attention.head_count_kv":          uint32(kvHeads),
		"qwen3.attention.key_length":             uint32(headDim),
		"qwen3.attention.value_length":           uint32(headDim),
		"qwen3.attention.layer_norm_rms_epsilon": float32(1e-6),
		"qwen3.rope.freq_base":                   float32(10000),
		"tokenizer.ggml.model":                   "gpt2",
		"tokenizer.ggml.pre":                     "qwen2",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.bos_token_id":            uint32(256),
		"tokenizer.ggml.eos_token_id":            uint32(258),
		"tokenizer.ggml.add_bos_token":           false,
	}
	ts := &randomTensors{rng: rand.New(rand.NewPCG(3, 4))}
	add := ts.add
	vocab := uint64(len(tokens))
	add("token_embd.weight", embd, vocab)
	add("output_norm.weight", embd)
	add("output.weight", embd, vocab)
	add("blk.0.attn_norm.weight", embd)
	add("blk.0.attn_q.weight", embd, heads*headDim)
	add("blk.0.attn_q_norm.weight", headDim)
	add("blk.0.attn_k.weight", embd, kvHeads*headDim)
	add("blk.0.attn_k_norm.weight", headDim)
	add("blk.0.attn_v.weight", embd, kvHeads*headDim)
	add("blk.0.attn_output.weight", heads*headDim, embd)
	add("blk.0.ffn_norm.weight", embd)
	add("blk.0.ffn_gate.weight", embd, ff)
	add("blk.0.ffn_up.weight", embd, ff)
	add("blk.0.ffn_down.weight", ff, embd)
	writeGGUF(t, path, kv, ts.ts)
}
