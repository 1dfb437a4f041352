// Package chat talks to a chat model that Ollama serves (/api/chat and
// /api/show, through github.com/ollama/ollama/api), for answers written
// from a user's own passages.
//
// Ollama, not the app, fits a prompt into the model's context, and by
// default it does so silently: chatPrompt drops messages and the runner
// cuts tokens from the middle of what is left (server/prompt.go,
// runner/ollamarunner/runner.go, v0.17.4). A cut passage or question
// gives a wrong answer with no error, so Ollama is asked not to: every
// request sends truncate false and shift false, and the caller budgets
// the prompt with Context and MaxAnswer. A prompt that still does not fit
// fails with ETOOLARGE.
//
// The answer streams: Chat calls back with each piece of text as Ollama
// sends it. A model that sends nothing for IdleTimeout (the first piece
// included, which waits for the model to load) is given up on. Errors
// carry root error kinds and never the prompt: an unreachable or busy
// Ollama, a model that is not pulled and a timeout are EUNAVAILABLE
// (timeouts wrap context.DeadlineExceeded), a model that cannot chat is
// EINVALID.
//
// This is the app's second Ollama adapter beside package embedding: the
// two talk to different models with different lifetimes and failure
// handling (embedding spreads batches over several hosts; a chat is one
// long stream on one host).
package chat
