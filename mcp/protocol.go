package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
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

// protocol20260728 is the revision that reports -32601 with HTTP 404
// (SEP-2575); older ones send the JSON-RPC error with HTTP 200.
const protocol20260728 = "2026-07-28"

// call is what refuseUndeclared reads of a JSON-RPC message.
type call struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// refuseUndeclared answers a POST whose body is a single JSON-RPC request
// for a method the endpoint does not answer with JSON-RPC -32601, and
// reports whether it did. Otherwise it leaves the body readable for the
// SDK. Bodies over the size limit, batches and anything malformed are left
// to the SDK, which refuses them in its own words.
func (h *handler) refuseUndeclared(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.o.MaxBodyBytes+1))
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	if err != nil || int64(len(body)) > h.o.MaxBodyBytes {
		return false
	}
	var c call
	if json.Unmarshal(body, &c) != nil || c.Method == "" || len(c.ID) == 0 || string(c.ID) == "null" || answered[c.Method] {
		return false
	}
	version := r.Header.Get("MCP-Protocol-Version")
	if v, ok := c.Params.Meta["io.modelcontextprotocol/protocolVersion"]; ok {
		_ = json.Unmarshal(v, &version)
	}
	status := http.StatusOK
	if version >= protocol20260728 {
		status = http.StatusNotFound
	}
	resp, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      c.ID,
		"error":   map[string]any{"code": jsonrpc.CodeMethodNotFound, "message": "method not found: " + hs.Quote(c.Method)},
	})
	h.log.Debug("undeclared method refused", "method", clip(c.Method))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
	return true
}

// tidyErrors is receiving middleware: it refuses methods the endpoint
// does not answer (requests inside a 2025-03-26 batch reach the SDK
// without refuseUndeclared), and makes error messages fit to show: a
// tool's error text and a JSON-RPC error's message pass through tidy.
func tidyErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if !answered[method] && !strings.HasPrefix(method, "notifications/") {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + hs.Quote(method)}
		}
		res, err := next(ctx, method, req)
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
