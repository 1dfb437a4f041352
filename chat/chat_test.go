package chat_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/chat"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

const prompt = "[1] Backups\nThe cluster runs on three nodes. Backups happen nightly at two.\n\nQuestion: When do backups happen?"

func newChat(t *testing.T, o chat.Options) (*chat.Ollama, *embeddingtest.Server) {
	t.Helper()
	srv := embeddingtest.NewServer(t)
	srv.AddModel(embeddingtest.ChatModel("qwen3:0.6b"))
	if o.Host == "" {
		o.Host = srv.URL
	}
	if o.Model == "" {
		o.Model = "qwen3:0.6b"
	}
	c, err := chat.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestChatStreamsWithoutTruncation(t *testing.T) {
	c, srv := newChat(t, chat.Options{MaxAnswer: 200})
	n, err := c.Context(context.Background())
	if err != nil || n != chat.ServerDefaultContext {
		t.Fatalf("Context = %d, %v; want the server default", n, err)
	}
	var pieces []string
	pt, at, err := c.Chat(context.Background(), "Answer from the passages.", prompt, func(s string) error {
		pieces = append(pieces, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pieces, ""); got != "Backups happen nightly at two. [1]" || len(pieces) < 2 || at != len(pieces) || pt == 0 {
		t.Errorf("answer %q in %d pieces, tokens %d/%d", got, len(pieces), pt, at)
	}
	req := srv.ChatRequests()[0]
	if *req.Chat.Truncate || *req.Chat.Shift || req.Options["num_predict"] != float64(200) || req.Options["num_ctx"] != nil {
		t.Errorf("request options %+v truncate %v shift %v", req.Options, *req.Chat.Truncate, *req.Chat.Shift)
	}
	if req.Chat.Messages[0].Role != "system" || req.Chat.Messages[1].Content != prompt {
		t.Errorf("messages %+v", req.Chat.Messages)
	}
}

func TestChatContext(t *testing.T) {
	c, srv := newChat(t, chat.Options{NumCtx: 100000})
	if n, _ := c.Context(context.Background()); n != 8192 {
		t.Errorf("NumCtx over the trained context: %d, want 8192", n)
	}
	if _, _, err := c.Chat(context.Background(), "s", prompt, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := srv.ChatRequests()[0].Options["num_ctx"]; got != float64(8192) {
		t.Errorf("num_ctx sent %v", got)
	}
	m := embeddingtest.ChatModel("small")
	m.NumCtx = 2048
	srv.AddModel(m)
	c2, _ := chat.New(chat.Options{Host: srv.URL, Model: "small"})
	if n, _ := c2.Context(context.Background()); n != 2048 {
		t.Errorf("the model's num_ctx: %d", n)
	}
	emb, _ := chat.New(chat.Options{Host: srv.URL, Model: "nomic-embed-text"})
	if _, err := emb.Context(context.Background()); hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "cannot chat") {
		t.Errorf("an embedding model: %v", err)
	}
}

func TestChatFailures(t *testing.T) {
	ctx := context.Background()
	nothing := func(string) error { return nil }
	tests := []struct {
		name  string
		setup func(srv *embeddingtest.Server)
		kind  string
		text  string
		dead  bool // wraps context.DeadlineExceeded
	}{
		{"down", func(srv *embeddingtest.Server) { srv.Down() }, hs.EUNAVAILABLE, "unreachable", false},
		{"not pulled", func(srv *embeddingtest.Server) { srv.RemoveModel("qwen3:0.6b") }, hs.EUNAVAILABLE, "ollama pull", false},
		{"busy", func(srv *embeddingtest.Server) { srv.FailChat(http.StatusServiceUnavailable, 1) }, hs.EUNAVAILABLE, "status 503", false},
		{"broken off", func(srv *embeddingtest.Server) { srv.BreakChat(2, 1) }, hs.EUNAVAILABLE, "runner process has terminated", false},
		{"too long", nil, hs.ETOOLARGE, "does not fit", false},
		{"quiet", func(srv *embeddingtest.Server) { srv.SetChatTiming(5*time.Second, 0) }, hs.EUNAVAILABLE, "sent nothing", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idle := 10 * time.Second // only the quiet model should time out, even on a loaded machine
			if tt.dead {
				idle = 300 * time.Millisecond
			}
			c, srv := newChat(t, chat.Options{IdleTimeout: idle})
			if _, err := c.Context(ctx); err != nil {
				t.Fatal(err)
			}
			p := prompt
			if tt.setup != nil {
				tt.setup(srv)
			} else {
				p = strings.Repeat("word ", 5000)
			}
			_, _, err := c.Chat(ctx, "s", p, nothing)
			if hs.ErrorKind(err) != tt.kind || !strings.Contains(err.Error(), tt.text) || errors.Is(err, context.DeadlineExceeded) != tt.dead {
				t.Errorf("error %v (kind %s), want kind %s with %q", err, hs.ErrorKind(err), tt.kind, tt.text)
			}
			if strings.Contains(err.Error(), "Backups") || strings.Contains(err.Error(), "word word") {
				t.Errorf("the error quotes the prompt: %v", err)
			}
		})
	}
}

func TestChatCallerStops(t *testing.T) {
	c, _ := newChat(t, chat.Options{})
	stop := errors.New("enough")
	n := 0
	_, _, err := c.Chat(context.Background(), "s", prompt, func(string) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d pieces, want the callback's error after 1", err, n)
	}
}
