package hybridsearch

import "errors"

// AskRequest is one question by one user, answered from passages of the
// files that user can read ("Ask your files").
type AskRequest struct {
	Question string `json:"question"`
	// PathPrefix limits the passages to one of the user's folders
	// ("/Projects"); "" means all their files.
	PathPrefix string `json:"path_prefix,omitempty"`
	// Algorithm picks the retrieval ("" means hybrid).
	Algorithm string `json:"algorithm,omitempty"`
}

// Passage is one chunk of a user's file given to the chat model, under
// the number N the model cites it by ("[N]").
type Passage struct {
	N        int      `json:"n"`
	FileID   FileID   `json:"file_id"`
	Title    string   `json:"title"`
	Path     string   `json:"path"` // in the asking user's files
	Link     string   `json:"link"` // opens the file in Nextcloud
	ChunkNo  int      `json:"chunk_no"`
	Page     int      `json:"page,omitempty"`
	Headings []string `json:"headings,omitempty"`
	Text     string   `json:"text"`
	// Tokens is the passage's size as the prompt budget counted it (an
	// estimate that errs high).
	Tokens int `json:"tokens"`
}

// Citation is a passage an answer cites, by its number.
type Citation struct {
	N      int    `json:"n"`
	FileID FileID `json:"file_id"`
	Title  string `json:"title"`
	Path   string `json:"path"`
	Link   string `json:"link"`
	Page   int    `json:"page,omitempty"`
}

// Answer is the whole answer to an AskRequest.
type Answer struct {
	Question string `json:"question"`
	// Text is the answer as the model wrote it, citing passages as [N];
	// when Answered is false it says that the passages do not hold the
	// answer instead.
	Text string `json:"text"`
	// Answered is false when the user's passages do not contain the
	// answer (the model said so, or no passage was found).
	Answered bool `json:"answered"`
	// Citations are the passages Text cites, in the order of their first
	// citation. Numbers in Text that name no passage are not cited.
	Citations []Citation `json:"citations"`
	// Passages are every passage the model read.
	Passages []Passage `json:"passages"`
	Model    string    `json:"model,omitempty"`
	// ContextTokens is the prompt's size as the budget estimated it, and
	// ContextLimit the model's context it had to fit (with room for the
	// answer). PromptTokens and AnswerTokens are the model's own counts
	// (Ollama's prompt_eval_count and eval_count; 0 when it gave none).
	ContextTokens int `json:"context_tokens"`
	ContextLimit  int `json:"context_limit"`
	PromptTokens  int `json:"prompt_tokens,omitempty"`
	AnswerTokens  int `json:"answer_tokens,omitempty"`
	// FirstTokenMS is the time from the question to the model's first
	// piece of text; TookMS the time to the whole answer.
	FirstTokenMS float64 `json:"first_token_ms,omitempty"`
	TookMS       float64 `json:"took_ms"`
	// Skipped lists retrieval legs that could not run, as in search.
	Skipped []SkippedLeg `json:"skipped_legs,omitempty"`
}

// AnswerStream receives an answer while it is written: Passages once,
// before any text, then each new piece of the text in order.
type AnswerStream interface {
	Passages(p []Passage)
	Text(delta string)
}

// Why a question got no answer (AskError.Code). Clients translate the
// code and fall back to the message for a code they do not know.
const (
	AskOff              = "ask_off"           // no chat model is configured: asking is not offered
	AskInvalid          = "invalid"           // the question is empty, too long or otherwise wrong
	AskBusy             = "busy"              // every answer slot stayed taken; try again shortly
	AskSearchFailed     = "search_failed"     // the passages could not be retrieved
	AskModelUnavailable = "model_unavailable" // the chat model's Ollama did not answer or lacks the model
	AskModelTimeout     = "model_timeout"     // the chat model took too long
	AskModelError       = "model_error"       // the chat model failed or refused the request
	AskCancelled        = "cancelled"         // the question was withdrawn
)

// AskError is a failed question: Code says why (one of the Ask* codes),
// Err is the cause, with its kind and a message safe to show.
type AskError struct {
	Code string
	Err  error
}

// Error returns the cause's message.
func (e *AskError) Error() string {
	if e.Err == nil {
		return e.Code
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *AskError) Unwrap() error { return e.Err }

// AskErrorCode returns the code of the first *AskError in err's chain, or
// "" when there is none.
func AskErrorCode(err error) string {
	var e *AskError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
