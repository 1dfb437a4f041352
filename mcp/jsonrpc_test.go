package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/mcp"
)

// rpcAnswer is one JSON-RPC response.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestJSONRPCEdges: what JSON-RPC 2.0 and the MCP transport say for the
// messages clients get wrong or use rarely. A 2025-03-26 batch is
// answered element by element (an unknown method costs only its own
// answer); a message with an id but no method is an invalid request, in
// JSON-RPC's words; a protocol-version header that names no version is
// refused as such; an unknown notification is accepted and ignored.
func TestJSONRPCEdges(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	v20250326 := map[string]string{"MCP-Protocol-Version": "2025-03-26"}

	batch := func(name, body string, header map[string]string, want map[string]int) {
		t.Helper()
		status, h, out := post(t, url, body, header)
		var answers []rpcAnswer
		if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(out), &answers) != nil {
			t.Errorf("%s: %d %s %s, want 200 and a JSON array", name, status, h.Get("Content-Type"), out)
			return
		}
		got := map[string]int{}
		for _, a := range answers {
			code := 0
			if a.Error != nil {
				code = a.Error.Code
			} else if a.Result == nil {
				code = 1 // neither result nor error
			}
			got[string(a.ID)] = code
		}
		if len(got) != len(want) || len(answers) != len(want) {
			t.Errorf("%s: answers %s, want ids %v", name, out, want)
			return
		}
		for id, code := range want {
			if c, ok := got[id]; !ok || c != code {
				t.Errorf("%s: answer for id %s = %d, want %d (%s)", name, id, c, code, out)
			}
		}
	}
	batch("ping and an unknown method", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"foo/bar"}]`, v20250326,
		map[string]int{"1": 0, "2": -32601})
	batch("the same without a version header", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"foo/bar"}]`, nil,
		map[string]int{"1": 0, "2": -32601})
	batch("a tools list, a bad element and notifications", `[{"jsonrpc":"2.0","id":"a","method":"tools/list"},{"jsonrpc":"2.0","id":13},`+
		`{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/whatever"}]`, v20250326,
		map[string]int{`"a"`: 0, "13": -32600})
	batch("only unknown methods", `[{"jsonrpc":"2.0","id":1,"method":"x/y"},{"jsonrpc":"2.0","id":2,"method":"resources/subscribe"}]`, v20250326,
		map[string]int{"1": -32601, "2": -32601})

	single := func(name, body string, header map[string]string, wantStatus, wantCode int, wantText ...string) {
		t.Helper()
		status, h, out := post(t, url, body, header)
		if status != wantStatus {
			t.Errorf("%s: %d %s, want %d", name, status, out, wantStatus)
			return
		}
		if wantCode == 0 {
			return
		}
		var a rpcAnswer
		if !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(out), &a) != nil || a.Error == nil || a.Error.Code != wantCode {
			t.Errorf("%s: %s %s, want a JSON-RPC error %d", name, h.Get("Content-Type"), out, wantCode)
			return
		}
		for _, w := range wantText {
			if !strings.Contains(a.Error.Message, w) {
				t.Errorf("%s: message %q lacks %q", name, a.Error.Message, w)
			}
		}
	}
	single("an id but no method", `{"jsonrpc":"2.0","id":13}`, nil, 400, -32600, "method")
	single("an id but no method, 2025-11-25", `{"jsonrpc":"2.0","id":13}`, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, 400, -32600, "method")
	single("a null method", `{"jsonrpc":"2.0","id":13,"method":null}`, nil, 400, -32600, "method")
	single("an empty batch", `[]`, v20250326, 400, -32600)
	single("a protocol version that is none", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "banana"}, 400, -32022, `"banana"`, "2025-11-25")
	if _, _, out := post(t, url, `{"jsonrpc":"2.0","id":"x7","method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "banana"}); !strings.Contains(out, `"id":"x7"`) {
		t.Errorf("a refused protocol version: %s, want the request's id", out)
	}
	single("an unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil, 202, 0)
	single("a batch on 2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, map[string]string{"MCP-Protocol-Version": "2025-06-18"}, 400, 0)
}

// TestNullArguments: "arguments": null is an empty argument object, on
// every tool and protocol version; it neither crashes the app nor stops
// it from answering the next call.
func TestNullArguments(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	for _, tool := range []string{mcp.ToolSearch, mcp.ToolDocument, mcp.ToolStatus} {
		body, h := modern(tool, `null`)
		status, _, out := post(t, url, body, h)
		if status != 200 || !strings.Contains(out, `"result"`) {
			t.Errorf("%s with null arguments, 2026-07-28: %d %s", tool, status, out)
		}
		status, _, out = post(t, url, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"`+tool+`","arguments":null}}`, map[string]string{"MCP-Protocol-Version": "2025-11-25"})
		if status != 200 || !strings.Contains(out, `"result"`) {
			t.Errorf("%s with null arguments, 2025-11-25: %d %s", tool, status, out)
		}
	}
	if body, h := modern(mcp.ToolSearch, `{"query":"zebracorn"}`); true {
		if status, _, out := post(t, url, body, h); status != 200 || !strings.Contains(out, "Zebracorn plan") {
			t.Errorf("after null arguments: %d %s", status, out)
		}
	}
}
