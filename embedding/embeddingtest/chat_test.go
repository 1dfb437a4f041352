package embeddingtest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

const chatPrompt = "Passages:\n\n[1] Setup guide\nThe cluster runs on three nodes. Backups happen nightly at two.\n\n[2] Menu\nLunch is served at noon.\n\nQuestion: When do backups happen?"

func chatServer(t *testing.T) *embeddingtest.Server {
	s := embeddingtest.NewServer(t)
	s.AddModel(embeddingtest.ChatModel("qwen3:0.6b"))
	return s
}

// chat runs a streamed chat and returns the pieces and the last response.
func chat(t *testing.T, s *embeddingtest.Server, req *api.ChatRequest) ([]string, api.ChatResponse, error) {
	t.Helper()
	var pieces []string
	var last api.ChatResponse
	err := client(t, s).Chat(context.Background(), req, func(r api.ChatResponse) error {
		if r.Message.Content != "" {
			pieces = append(pieces, r.Message.Content)
		}
		last = r
		return nil
	})
	return pieces, last, err
}

func TestChatStreams(t *testing.T) {
	s := chatServer(t)
	pieces, last, err := chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{
		{Role: "system", Content: "Answer from the passages."}, {Role: "user", Content: chatPrompt}}})
	if err != nil {
		t.Fatal(err)
	}
	answer := strings.Join(pieces, "")
	if answer != "Backups happen nightly at two. [1]" || len(pieces) != 6 {
		t.Errorf("answer %q in %d pieces", answer, len(pieces))
	}
	if !last.Done || last.DoneReason != "stop" || last.EvalCount != len(pieces) || last.PromptEvalCount == 0 {
		t.Errorf("last response %+v", last)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 1 || reqs[0].Chat == nil || reqs[0].Chat.Messages[1].Content != chatPrompt {
		t.Errorf("recorded %+v", reqs)
	}

	// Not streamed: one object with the whole answer.
	no := false
	pieces, last, err = chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Stream: &no, Messages: []api.Message{{Role: "user", Content: chatPrompt}}})
	if err != nil || len(pieces) != 1 || pieces[0] != "Backups happen nightly at two. [1]" || !last.Done {
		t.Errorf("non-streamed: %q %+v %v", pieces, last, err)
	}

	// Nothing in the passages: the refusal.
	pieces, _, _ = chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{{Role: "user", Content: "[1] Menu\nLunch at noon.\n\nQuestion: Who wrote Hamlet?"}}})
	if got := strings.Join(pieces, ""); got != "The passages do not contain the answer." {
		t.Errorf("no answer: %q", got)
	}
}

func TestChatErrors(t *testing.T) {
	s := chatServer(t)
	var se api.StatusError
	_, _, err := chat(t, s, &api.ChatRequest{Model: "llama9", Messages: []api.Message{{Role: "user", Content: "hi"}}})
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.ErrorMessage != "model 'llama9' not found" {
		t.Errorf("unknown model: %v", err)
	}
	_, _, err = chat(t, s, &api.ChatRequest{Model: "nomic-embed-text", Messages: []api.Message{{Role: "user", Content: "hi"}}})
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || se.ErrorMessage != `"nomic-embed-text" does not support chat` {
		t.Errorf("embedding model: %v", err)
	}
	long := strings.Repeat("word ", 5000)
	no := false
	_, _, err = chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Truncate: &no, Messages: []api.Message{{Role: "user", Content: long}}})
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || se.ErrorMessage != "the input length exceeds the context length" {
		t.Errorf("over the context, no truncation: %v", err)
	}
	if _, _, err = chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{{Role: "user", Content: long}}}); err != nil {
		t.Errorf("over the context, truncated: %v", err)
	}
	if reqs := s.ChatRequests(); !reqs[len(reqs)-1].Truncated {
		t.Error("the truncation is not recorded")
	}
	s.FailChat(http.StatusServiceUnavailable, 1)
	_, _, err = chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{{Role: "user", Content: chatPrompt}}})
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("injected 503: %v", err)
	}
	s.BreakChat(2, 1)
	pieces, _, err := chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{{Role: "user", Content: chatPrompt}}})
	if err == nil || len(pieces) != 2 || !strings.Contains(err.Error(), "llama runner process has terminated") {
		t.Errorf("broken off: %q %v", pieces, err)
	}
	// num_predict stops the answer with done_reason length.
	pieces, last, err := chat(t, s, &api.ChatRequest{Model: "qwen3:0.6b", Options: map[string]any{"num_predict": 3},
		Messages: []api.Message{{Role: "user", Content: chatPrompt}}})
	if err != nil || len(pieces) != 3 || last.DoneReason != "length" {
		t.Errorf("num_predict 3: %q %+v %v", pieces, last, err)
	}
}

func TestChatTiming(t *testing.T) {
	s := chatServer(t)
	s.SetChatTiming(150*time.Millisecond, 10*time.Millisecond)
	start := time.Now()
	var first time.Duration
	err := client(t, s).Chat(context.Background(), &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{{Role: "user", Content: chatPrompt}}},
		func(r api.ChatResponse) error {
			if first == 0 && r.Message.Content != "" {
				first = time.Since(start)
			}
			return nil
		})
	if err != nil || first < 150*time.Millisecond {
		t.Errorf("first token after %v (%v), want ≥ 150ms", first, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = client(t, s).Chat(ctx, &api.ChatRequest{Model: "qwen3:0.6b", Messages: []api.Message{{Role: "user", Content: chatPrompt}}}, func(api.ChatResponse) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a client that gives up: %v", err)
	}
}
