package app

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/hybrid-search/hybridsearch/answer"
	"github.com/hybrid-search/hybridsearch/assistant"
	"github.com/hybrid-search/hybridsearch/chat"
)

// chatConfig is what picks the chat model: a change makes a new client.
type chatConfig struct {
	model, host string
	context     int
}

// chatOf returns c's chat configuration; the host defaults to the first
// Ollama host, and without one asking is off.
func chatOf(c Config) chatConfig {
	cc := chatConfig{model: c.ChatModel, host: c.ChatHost, context: c.ChatContext}
	if cc.host == "" && len(c.OllamaHosts) > 0 {
		cc.host = c.OllamaHosts[0]
	}
	if cc.host == "" {
		cc.model = ""
	}
	return cc
}

// startAnswers builds the answer lane and the Assistant's providers (serve
// only): questions search through the serving engine, and the providers
// take their tasks from Nextcloud until ctx ends. The chat model follows
// the settings.
func (m *App) startAnswers(ctx context.Context, eff Config) error {
	var err error
	m.Answer, err = answer.New(answer.Options{Search: current{m}, Slots: m.Config.AskWorkers, Timeout: m.Config.AskTimeout, Logger: m.Logger})
	if err != nil {
		return err
	}
	m.Assistant, err = assistant.New(assistant.Options{AppID: m.Config.AppID, Tasks: m.Nextcloud, Search: current{m},
		Ask: askLane{m.Answer}, Poll: m.Config.AssistantPoll, Logger: m.Logger})
	if err != nil {
		return err
	}
	m.chat = &chatModel{answer: m.Answer, assistant: m.Assistant, logger: m.Logger}
	m.chat.apply(eff)
	m.settings.chat = func(ctx context.Context, eff Config) {
		if m.chat.apply(eff) {
			go m.chat.sync(ctx)
		}
	}
	m.components.run(ctx, "assistant", func(ctx context.Context) error {
		m.Assistant.Run(ctx)
		return nil
	})
	// After a restart nothing calls /enabled: bring the registrations in
	// line with the configuration now (AppAPI refuses while disabled).
	go m.chat.sync(ctx)
	return nil
}

// chatModel keeps the chat model that answers questions in use as the
// settings choose it: a new model, host or context makes a new client for
// the answer lane and turns the Assistant's "ask" provider on, no model
// turns both off.
type chatModel struct {
	answer    modelUser
	assistant askProvider
	logger    *slog.Logger
	cur       atomic.Pointer[chatConfig] // the configuration in use
}

// modelUser is what asks the chat model: *answer.Service.
type modelUser interface {
	SetModel(m answer.Model)
}

// askProvider is the Assistant's "ask" task provider: *assistant.Service.
type askProvider interface {
	SetAsk(on bool)
	Sync(ctx context.Context) error
}

// apply puts eff's chat model in use, or turns asking off, when its
// configuration changed, and reports whether it did. It does no I/O: the
// model is asked for its context with the first question.
func (c *chatModel) apply(eff Config) bool {
	cc := chatOf(eff)
	if prev := c.cur.Load(); prev != nil && *prev == cc {
		return false
	}
	c.cur.Store(&cc)
	if cc.model == "" {
		c.answer.SetModel(nil)
		c.assistant.SetAsk(false)
		c.logger.Info("asking your files is off: no chat model (OLLAMA_CHAT_MODEL)")
		return true
	}
	model, err := chat.New(chat.Options{Host: cc.host, Model: cc.model, NumCtx: cc.context, Logger: c.logger})
	if err != nil {
		c.answer.SetModel(nil)
		c.assistant.SetAsk(false)
		c.logger.Warn("the chat model cannot be used; asking your files is off", "model", cc.model, "error", err)
		return true
	}
	c.answer.SetModel(model)
	c.assistant.SetAsk(true)
	c.logger.Info("asking your files is on", "model", cc.model)
	return true
}

// sync registers the Assistant's providers as the configuration wants
// them, trying a few times while Nextcloud is unreachable.
func (c *chatModel) sync(ctx context.Context) {
	wait := time.Second
	for attempt := 0; attempt < 5; attempt++ {
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := c.assistant.Sync(sctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return
		}
		c.logger.Debug("registering the Assistant's task providers failed (the app may be disabled)", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// askLane lets the Assistant reserve answer slots.
type askLane struct{ s *answer.Service }

func (a askLane) Reserve() (assistant.Asking, bool) {
	sl, ok := a.s.Reserve()
	if !ok {
		return nil, false
	}
	return sl, true
}
