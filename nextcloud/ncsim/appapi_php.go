package ncsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// PHP value semantics the simulated controllers rely on. Values are what
// encoding/json produces (string, float64 or json.Number, bool, nil,
// map[string]any, []any).

// phpEmpty is PHP's empty(): null, false, 0, 0.0, "", "0" and empty arrays.
func phpEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case bool:
		return !t
	case string:
		return t == "" || t == "0"
	case float64:
		return t == 0
	case json.Number:
		f, err := t.Float64()
		return err == nil && f == 0
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// paramString reads a scalar request parameter as PHP casts it to string.
func paramString(params map[string]any, key string) (string, bool) {
	v, ok := params[key]
	if !ok || v == nil {
		return "", false
	}
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		if t {
			return "1", true
		}
		return "", true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case json.Number:
		return t.String(), true
	}
	return "", false
}

// paramInt reads an int request parameter as Nextcloud's controller
// casting does (numbers, numeric strings, booleans).
func paramInt(params map[string]any, key string) (int, bool) {
	v, ok := params[key]
	if !ok || v == nil {
		return 0, false
	}
	switch t := v.(type) {
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case float64:
		return int(t), true
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i), true
		}
		f, err := t.Float64()
		return int(f), err == nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil {
			f, ferr := strconv.ParseFloat(strings.TrimSpace(t), 64)
			if ferr != nil {
				return 0, true // (int)"abc" is 0 in PHP
			}
			return int(f), true
		}
		return n, true
	}
	return 0, false
}

// paramStringList reads an array of strings (configKeys and the like).
func paramStringList(params map[string]any, key string) ([]string, bool) {
	v, ok := params[key]
	if !ok {
		return nil, false
	}
	switch t := v.(type) {
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, ok := paramString(map[string]any{"v": e}, "v")
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case map[string]any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, ok := paramString(map[string]any{"v": e}, "v")
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// phpJSON encodes v the way PHP's json_encode does by default: "/" is
// escaped as "\/" and every non-ASCII character as \uXXXX (UTF-16). With
// hexTag, "<" and ">" become \u003C and \u003E (JSON_HEX_TAG, used by OCS).
func phpJSON(v any, hexTag bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var out bytes.Buffer
	out.Grow(len(raw) + len(raw)/8)
	for _, r := range string(raw) {
		switch {
		case r == '/':
			out.WriteString(`\/`)
		case hexTag && r == '<':
			out.WriteString(`\u003C`)
		case hexTag && r == '>':
			out.WriteString(`\u003E`)
		case r < 0x80:
			out.WriteByte(byte(r))
		default:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&out, `\u%04x`, u)
			}
		}
	}
	return out.Bytes(), nil
}

// decodeJSONValue decodes JSON keeping numbers as json.Number, as PHP
// keeps integers and floats apart.
func decodeJSONValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
