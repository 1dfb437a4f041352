package nextcloud

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// PHP's JSON is loosely typed: ids may be numbers or strings, booleans 0/1,
// and empty maps []. These helpers read such values leniently.

// jsonString returns raw as a string: strings as they are, null as "",
// other values as their JSON text.
func jsonString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// jsonInt returns raw as an integer, accepting numbers and numeric strings;
// anything else is 0.
func jsonInt(raw json.RawMessage) int64 {
	s := jsonString(raw)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return int64(f)
	}
	return 0
}

// jsonBool returns raw as a boolean, accepting true/false, 0/1 and their
// string forms.
func jsonBool(raw json.RawMessage) bool {
	switch jsonString(raw) {
	case "true", "1":
		return true
	}
	return false
}

// jsonStringMap decodes a JSON object of strings; null, [] and anything
// that is not an object give nil.
func jsonStringMap(raw json.RawMessage) map[string]string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = jsonString(v)
	}
	return out
}

// jsonObject decodes a JSON object; null, [] and non-objects give nil.
func jsonObject(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	return m
}
