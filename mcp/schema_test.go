package mcp_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hybrid-search/hybridsearch/mcp"
)

// TestSchemasArePortable: every tool's input and output schema gives each
// value one type (no `type: ["null", X]`, which clients that map schemas
// onto a single-type dialect, such as Gemini's function declarations,
// reject), and every schema node says what it accepts (MCP Inspector's
// "untyped-schema" rule). The output the tools send still validates
// against them (the SDK checks it before sending).
func TestSchemasArePortable(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	cs := connect(t, url, "alice", "2025-11-25")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		for kind, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			b, _ := json.Marshal(s)
			var node any
			_ = json.Unmarshal(b, &node)
			for _, p := range unportable(node, kind) {
				t.Errorf("tool %s: %s", tool.Name, p)
			}
		}
	}
	// Outputs with every optional part empty or absent still validate.
	for name, args := range map[string]map[string]any{
		mcp.ToolSearch:   {"query": "nothing matches this"},
		mcp.ToolStatus:   {},
		mcp.ToolDocument: {"file_id": 11},
	} {
		if r := call(t, cs, name, args); r.IsError {
			t.Errorf("%s %v: %s", name, args, text(r))
		}
	}
}

// unportable lists a schema's type unions and untyped nodes, by path.
func unportable(node any, path string) []string {
	m, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	if _, union := m["type"].([]any); union {
		out = append(out, fmt.Sprintf("%s: type is a list %v", path, m["type"]))
	}
	typed := false
	for _, k := range []string{"type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not"} {
		if _, ok := m[k]; ok {
			typed = true
		}
	}
	if !typed {
		out = append(out, path+": no type")
	}
	for _, k := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if props, ok := m[k].(map[string]any); ok {
			for name, sub := range props {
				out = append(out, unportable(sub, path+"."+k+"."+name)...)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		out = append(out, unportable(m[k], path+"."+k)...)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[k].([]any); ok {
			for i, sub := range list {
				out = append(out, unportable(sub, fmt.Sprintf("%s.%s[%d]", path, k, i))...)
			}
		}
	}
	return out
}
