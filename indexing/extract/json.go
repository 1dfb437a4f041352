package extract

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// maxJSONDepth bounds JSON nesting.
const maxJSONDepth = 1000

// json extracts the strings and numbers of a JSON document (or a stream of
// them, as in JSON Lines) as lines: "key: value" for object members,
// "key:" before a nested object or array, the bare value in arrays. It
// streams tokens and never builds the document.
func (j *job) json() error {
	d := json.NewDecoder(strings.NewReader(strings.TrimPrefix(string(j.data), "\uFEFF")))
	d.UseNumber()
	type frame struct{ object, wantKey bool }
	var stack []frame
	key := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return j.corrupt(err, "json")
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if k, ok := tok.(string); ok {
				key, top.wantKey = k, false
				continue
			}
		}
		if top != nil && top.object {
			top.wantKey = true
		}
		var line string
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if len(stack) >= maxJSONDepth {
					return j.invalid("json nested deeper than %d", maxJSONDepth)
				}
				stack = append(stack, frame{object: t == '{', wantKey: t == '{'})
				if key != "" {
					line = key + ":"
				}
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
				j.b.end()
			}
		case string:
			line = keyed(key, t)
		case json.Number:
			line = keyed(key, t.String())
		}
		key = ""
		if err := j.b.line(line); err != nil {
			return err
		}
	}
}

// keyed prefixes a member's value with its key.
func keyed(key, value string) string {
	if key == "" {
		return value
	}
	return key + ": " + value
}
