package app

import (
	"context"
	"log/slog"
	"testing"

	"github.com/hybrid-search/hybridsearch/answer"
)

// fakeAsking records what chatModel sets on the answer lane and the
// Assistant.
type fakeAsking struct {
	model answer.Model
	sets  int
	ask   bool
}

func (f *fakeAsking) SetModel(m answer.Model)    { f.model, f.sets = m, f.sets+1 }
func (f *fakeAsking) SetAsk(on bool)             { f.ask = on }
func (f *fakeAsking) Sync(context.Context) error { return nil }

// TestChatModelApply: a chat configuration turns asking on or off only
// when it changed; the host defaults to the first Ollama host, and
// without a host or with one that is not a URL asking is off.
func TestChatModelApply(t *testing.T) {
	tests := []struct {
		name        string
		steps       []Config
		wantChanged []bool
		wantAsk     bool
	}{
		{name: "a model on the first Ollama host",
			steps:       []Config{{ChatModel: "qwen3:4b", OllamaHosts: []string{"http://ollama:11434"}}},
			wantChanged: []bool{true}, wantAsk: true},
		{name: "the same configuration again changes nothing",
			steps: []Config{
				{ChatModel: "qwen3:4b", ChatHost: "http://gpu1:11434"},
				{ChatModel: "qwen3:4b", ChatHost: "http://gpu1:11434", EmbedModel: "bge-m3"},
			},
			wantChanged: []bool{true, false}, wantAsk: true},
		{name: "no host: off",
			steps:       []Config{{ChatModel: "qwen3:4b"}},
			wantChanged: []bool{true}, wantAsk: false},
		{name: "turned off",
			steps: []Config{
				{ChatModel: "qwen3:4b", ChatHost: "http://gpu1:11434"},
				{ChatHost: "http://gpu1:11434"},
			},
			wantChanged: []bool{true, true}, wantAsk: false},
		{name: "a host that is not a URL: off",
			steps:       []Config{{ChatModel: "qwen3:4b", ChatHost: "gpu1 port 11434"}},
			wantChanged: []bool{true}, wantAsk: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeAsking{}
			c := &chatModel{answer: f, assistant: f, logger: slog.New(slog.DiscardHandler)}
			for i, cfg := range tt.steps {
				if got := c.apply(cfg); got != tt.wantChanged[i] {
					t.Errorf("step %d: apply = %v, want %v", i, got, tt.wantChanged[i])
				}
			}
			if f.ask != tt.wantAsk || (f.model != nil) != tt.wantAsk {
				t.Errorf("ask %v, model %v: want asking %v", f.ask, f.model, tt.wantAsk)
			}
		})
	}
}
