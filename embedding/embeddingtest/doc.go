// Package embeddingtest holds test stand-ins for Ollama: Deterministic, an
// embedder whose vectors follow from the text (same text, same vector;
// texts sharing words or word pieces point the same way), and Server, an
// httptest fake of Ollama's HTTP API that serves Deterministic vectors and
// can be told to fail, go down, lack a model or be slow.
//
// It is imported only by tests and by development commands.
package embeddingtest
