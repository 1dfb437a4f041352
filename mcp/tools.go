package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
)

// Tool names.
const (
	ToolSearch   = "nc_semantic_search"
	ToolDocument = "nc_get_document"
	ToolStatus   = "nc_index_status"
)

// readOnly are the annotations of every tool: they read the index of the
// user's own Nextcloud, nothing else.
func readOnly(title string) *sdk.ToolAnnotations {
	closed := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &closed}
}

// addTools registers the three tools on srv, the search tool's schema
// with rules. Input schemas are handed to
// the SDK as JSON: it re-encodes a tool's input schema on every 2026-07-28
// request (to look for x-mcp-header), which costs about 0.3 ms for a
// *jsonschema.Schema and next to nothing for raw JSON.
func (h *handler) addTools(srv *sdk.Server, rules hs.SearchRules) error {
	search, err := searchInputSchema(rules)
	if err != nil {
		return err
	}
	document, err := documentInputSchema()
	if err != nil {
		return err
	}
	status, err := schemaFor[statusInput](map[string]func(*jsonschema.Schema){
		"all": all(describe("Also every user's counts (per_user). Only for Nextcloud admins; others get a forbidden error.")),
	})
	if err != nil {
		return err
	}
	searchOut, err := schemaFor[searchOutput](nil)
	if err != nil {
		return err
	}
	documentOut, err := schemaFor[documentOutput](nil)
	if err != nil {
		return err
	}
	statusOut, err := schemaFor[hs.IndexStatus](nil)
	if err != nil {
		return err
	}
	raw := map[string]json.RawMessage{}
	for name, s := range map[string]*jsonschema.Schema{ToolSearch: search, ToolDocument: document, ToolStatus: status,
		ToolSearch + " output": searchOut, ToolDocument + " output": documentOut, ToolStatus + " output": statusOut} {
		portable(s)
		if raw[name], err = json.Marshal(s); err != nil {
			return fmt.Errorf("mcp: schema of %s: %w", name, err)
		}
	}
	sdk.AddTool(srv, &sdk.Tool{
		Name: ToolSearch, Title: "Search Nextcloud", Description: searchDescription,
		InputSchema: raw[ToolSearch], OutputSchema: raw[ToolSearch+" output"], Annotations: readOnly("Search Nextcloud"),
	}, tool(h, ToolSearch, h.search))
	sdk.AddTool(srv, &sdk.Tool{
		Name: ToolDocument, Title: "Read a Nextcloud document", Description: documentDescription,
		InputSchema: raw[ToolDocument], OutputSchema: raw[ToolDocument+" output"], Annotations: readOnly("Read a Nextcloud document"),
	}, tool(h, ToolDocument, h.document))
	sdk.AddTool(srv, &sdk.Tool{
		Name: ToolStatus, Title: "Search index status", Description: statusDescription,
		InputSchema: raw[ToolStatus], OutputSchema: raw[ToolStatus+" output"], Annotations: readOnly("Search index status"),
	}, tool(h, ToolStatus, h.status))
	return nil
}

// portable gives every node of s one type: the schema package writes an
// optional pointer, slice or map field as type ["null", X], which clients
// that map tool schemas onto a single-type dialect (Gemini's function
// declarations, some OpenAI-compatible gateways) reject, and MCP
// Inspector flags. An input field left out takes its default, so null
// adds nothing there; an output field is either never null (the tools
// send empty lists) or left out when empty (omitempty).
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); len(s.Types) == 2 && i >= 0 {
		s.Type, s.Types = s.Types[1-i], nil
	}
	for _, p := range s.Properties {
		portable(p)
	}
	for _, p := range s.Defs {
		portable(p)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, p := range list {
			portable(p)
		}
	}
	portable(s.Items)
	portable(s.AdditionalProperties)
	portable(s.Not)
}

// tool adapts fn to the SDK: it takes the acting user from the context,
// puts fn's text in the result's content (its output becomes the
// structured content) and turns fn's error into a tool error.
func tool[In, Out any](h *handler, name string, fn func(ctx context.Context, user hs.UserID, in In) (Out, string, error)) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		var zero Out
		start := time.Now()
		user, ok := hs.UserFromContext(ctx)
		if !ok || user == "" {
			return nil, zero, errors.New("not signed in: no acting user")
		}
		out, text, err := fn(ctx, user, in)
		if h.o.ObserveTool != nil {
			outcome := "ok"
			switch {
			case errors.Is(err, context.Canceled) && ctx.Err() != nil:
				outcome = "cancelled" // the client went away: not an error of ours
			case err != nil:
				outcome = hs.ErrorKind(err)
			}
			h.o.ObserveTool(name, outcome, time.Since(start))
		}
		attrs := []any{slog.String("tool", name), slog.String("user_id", string(user)), slog.Int64("duration_ms", time.Since(start).Milliseconds())}
		if err != nil {
			return nil, zero, h.toolError(ctx, err, attrs)
		}
		h.log.Debug("tool call", attrs...)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
	}
}

// toolError turns err into the error the SDK reports as a tool result
// with isError: the user-safe message, prefixed by what the kind means.
// Internal errors are logged here and shown as a generic message.
func (h *handler) toolError(ctx context.Context, err error, attrs []any) error {
	msg := hs.RedactEndpoints(hs.ErrorMessage(err))
	level := slog.LevelDebug
	switch hs.ErrorKind(err) {
	case hs.EINVALID:
		msg = "invalid arguments: " + msg
	case hs.ENOTFOUND:
		msg = "not found: " + msg
	case hs.EUNAUTHORIZED:
		msg = "no access: " + msg
	case hs.EFORBIDDEN:
		msg = "forbidden: " + msg
	case hs.ETOOLARGE:
		msg = "too large: " + msg
	case hs.ECONFLICT:
		msg = "conflict, try again: " + msg
	case hs.EUNAVAILABLE:
		msg = "temporarily unavailable, try again shortly: " + msg
		level = slog.LevelWarn
	default:
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			msg = "cancelled or timed out"
			break
		}
		msg = "internal error (the app's log has the details)"
		level = slog.LevelError
	}
	h.log.Log(ctx, level, "tool call failed", append(attrs, slog.Any("error", err))...)
	return errors.New(msg)
}

// schemaFor infers T's JSON schema and lets edit adjust each property.
func schemaFor[T any](edit map[string]func(p *jsonschema.Schema)) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: schema: %w", err)
	}
	for name, fn := range edit {
		p, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("mcp: schema: no property %q", name)
		}
		fn(p)
	}
	return s, nil
}

// describe, bound, etc. are schema edits.
func describe(text string) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.Description = text }
}

func def(v any) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.Default, _ = json.Marshal(v) }
}

func between(lo, hi float64) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.Minimum, p.Maximum = &lo, &hi }
}

func atLeast(lo float64) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.Minimum = &lo }
}

func oneOf(values ...string) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) {
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
}

func maxLength(n int) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.MaxLength = &n }
}

// all applies several edits.
func all(edits ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) {
		for _, e := range edits {
			e(p)
		}
	}
}
