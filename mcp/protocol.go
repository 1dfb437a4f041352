package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
)

// answered are the JSON-RPC requests the endpoint answers: the lifecycle,
// what its capabilities declare (tools, resources without subscriptions,
// prompts) and the 2026-07-28 discovery and subscription stream. Every
// other request, among them the ones the SDK would otherwise answer
// without a declared capability (logging/setLevel, completion/complete,
// resources/subscribe), gets JSON-RPC -32601 on every protocol version.
// Notifications pass to the SDK, which ignores the ones it does not know.
var answered = map[string]bool{
	"initialize":               true,
	"ping":                     true,
	"tools/list":               true,
	"tools/call":               true,
	"resources/list":           true,
	"resources/templates/list": true,
	"resources/read":           true,
	"prompts/list":             true,
	"prompts/get":              true,
	"server/discover":          true,
	"subscriptions/listen":     true,
}

// tidyErrors is receiving middleware: it refuses methods the endpoint
// does not answer (a safety net: the preflight answers them), reads
// "arguments": null as {} (the SDK would apply schema defaults to a nil
// map and panic) and an argument given as null as one left out (the
// schemas give each argument one type, see portable; some clients send
// null for what they leave out), turns a panic into an internal error (the SDK handles
// each request on a goroutine of its own, where a panic would end the
// app), and makes error messages fit to show: a tool's error text and a
// JSON-RPC error's message pass through tidy.
func (h *handler) tidyErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		if !answered[method] && !strings.HasPrefix(method, "notifications/") {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + hs.Quote(method)}
		}
		if c, ok := req.(*sdk.CallToolRequest); ok && c.Params != nil {
			c.Params.Arguments = withoutNulls(c.Params.Arguments)
		}
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("MCP request handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error (the app's log has the details)"}
			}
		}()
		res, err = next(ctx, method, req)
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			tidied := *wire
			tidied.Message = tidy(wire.Message)
			return res, &tidied
		}
		if tr, ok := res.(*sdk.CallToolResult); ok && tr.IsError {
			for _, c := range tr.Content {
				if t, ok := c.(*sdk.TextContent); ok {
					t.Text = tidy(t.Text)
				}
			}
		}
		return res, err
	}
}

// The SDK's schema validation reports "validating "arguments": validating
// root: validating /properties/limit: maximum: 100/1 is greater than
// 50.000000".
var (
	argumentRE = regexp.MustCompile(`^validating "arguments": validating root: validating /properties/([^:/]+): `)
	argsRE     = regexp.MustCompile(`^validating "arguments": (?:validating root: )?`)
	boundRE    = regexp.MustCompile(`(-?\d+)/(\d+) is (less than|greater than)( or equal to)? (-?\d+(?:\.\d+)?)\b`)
)

// tidy makes an error message fit for an assistant to read: the SDK's
// validation prefix becomes "invalid argument NAME: ", numbers of its
// bounds print plainly (FormatNumber), and every run of more than
// hs.QuoteRunes characters without a space (a huge value) is cut.
func tidy(msg string) string {
	msg = argumentRE.ReplaceAllString(msg, "invalid argument $1: ")
	msg = argsRE.ReplaceAllString(msg, "invalid arguments: ")
	msg = boundRE.ReplaceAllStringFunc(msg, func(m string) string {
		g := boundRE.FindStringSubmatch(m)
		p, _ := strconv.ParseFloat(g[1], 64)
		q, _ := strconv.ParseFloat(g[2], 64)
		limit, _ := strconv.ParseFloat(g[5], 64)
		return hs.FormatNumber(p/q) + " is " + g[3] + g[4] + " " + hs.FormatNumber(limit)
	})
	return clipRuns(msg)
}

// maxRun is the longest run of non-space characters tidy keeps: a value of
// hs.QuoteRunes with its quotes and the ellipsis hs.Quote adds.
const maxRun = hs.QuoteRunes + 3

// clipRuns cuts every run of non-space characters longer than
// hs.QuoteRunes to its start, "…" and its length; a run in double quotes
// keeps its closing quote and counts without them. A value hs.Quote cut
// already ("…"… with its quotes and ellipsis) is left as it is.
func clipRuns(s string) string {
	long := false
	run := 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			run = 0
			continue
		}
		if run++; run > maxRun {
			long = true
			break
		}
	}
	if !long {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexFunc(s, unicode.IsSpace)
		if j < 0 {
			j = len(s)
		}
		b.WriteString(clip(s[:j]))
		s = s[j:]
	}
	return b.String()
}

// clip shortens one word as clipRuns does.
func clip(word string) string {
	n := utf8.RuneCountInString(word)
	if n <= maxRun {
		return word
	}
	quoted := strings.HasPrefix(word, `"`) && strings.HasSuffix(word, `"`) && n > 1
	if quoted {
		word, n = word[1:len(word)-1], n-2
	}
	cut, k := word, 0
	for i := range word {
		if k == hs.QuoteRunes {
			cut = word[:i]
			break
		}
		k++
	}
	if quoted {
		return fmt.Sprintf(`"%s"… (%d characters)`, cut, n)
	}
	return fmt.Sprintf("%s… (%d characters)", cut, n)
}

// withoutNulls returns tool arguments without the members that are null,
// and {} for null arguments; anything else unchanged.
func withoutNulls(args json.RawMessage) json.RawMessage {
	if string(args) == "null" {
		return json.RawMessage("{}")
	}
	if !bytes.Contains(args, []byte("null")) {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	dropped := false
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
			dropped = true
		}
	}
	if !dropped {
		return args
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}
