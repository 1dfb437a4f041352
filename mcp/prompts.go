package mcp

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PromptSearch is the prompt that asks the assistant to answer from the
// user's Nextcloud.
const PromptSearch = "search_nextcloud"

// addPrompts registers the prompts: templates an assistant offers its
// user (a slash command in most clients).
func (h *handler) addPrompts(srv *sdk.Server) {
	srv.AddPrompt(&sdk.Prompt{
		Name:        PromptSearch,
		Title:       "Answer from my Nextcloud",
		Description: "Answer a question from the user's Nextcloud files and notes, citing the documents used.",
		Arguments: []*sdk.PromptArgument{{
			Name: "question", Title: "Question", Required: true,
			Description: "What to find out, in the user's words: a question, keywords or an identifier.",
		}},
	}, h.searchPrompt)
}

// searchPrompt answers prompts/get for PromptSearch.
func (h *handler) searchPrompt(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	q := strings.TrimSpace(req.Params.Arguments["question"])
	if q == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the argument question is required"}
	}
	text := "Answer from my Nextcloud files and notes: " + q + "\n\n" +
		"Search them with " + ToolSearch + " (try other words or the keyword algorithm if the first search finds nothing relevant), " +
		"read more of a promising document with " + ToolDocument + " when its passages are not enough, " +
		"and answer citing each document used by its title and link. If nothing relevant is found, say so; " +
		ToolStatus + " tells whether indexing is still running."
	return &sdk.GetPromptResult{
		Description: "Answer from my Nextcloud: " + q,
		Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}},
	}, nil
}
