// Package answer writes answers to a user's questions from passages of
// that user's own files, citing them ("Ask your files").
//
// A question runs the hybrid search as the asking user (Searcher), so
// only chunks the index lists the user as a reader of come back, and the
// page is re-checked against Nextcloud before it is used; files the check
// could not confirm (Verification.Unverified) are left out of the prompt.
// The best passages are taken breadth first (each document's best chunk,
// then its next ones) while they fit the model's context, less room for
// the answer and the instructions, by an estimate of tokens that errs
// high. The chat model (Model) then streams the answer. It cites passages
// as [N]; only numbers of passages it was given become citations, so text
// inside a document cannot point the answer at another file. The
// instructions tell the model to treat passages as quoted data and to
// reply NOT_IN_FILES when they do not hold the answer; that reply is held
// back while it may still be coming and becomes Answered false with a
// plain sentence.
//
// Answers run on their own lane: at most Options.Slots at a time, so a
// slow or stuck model delays only questions, never searches or indexing,
// and each answer has a deadline (Options.Timeout) on top of the model
// client's own idle timeout.
package answer
