package ncsim

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// OCS status codes beyond the HTTP ones.
const (
	ocsUnauthorised = 997
	ocsNotFound     = 998
	ocsServerError  = 996
)

// writeOCS writes an OCS envelope the way V1Response/V2Response do.
// status is the v2 (HTTP-like) status: 200 for success, 4xx/5xx or 997/998
// for failure. The version comes from the path (/ocs/v1.php or /ocs/v2.php)
// and the format from format=json or Accept: application/json (XML otherwise).
func writeOCS(w http.ResponseWriter, r *http.Request, status int, message string, data any) {
	v1 := strings.Contains(r.URL.Path, "/ocs/v1.php")
	httpStatus := status
	switch status {
	case ocsUnauthorised:
		httpStatus = http.StatusUnauthorized
	case ocsNotFound:
		httpStatus = http.StatusNotFound
	case ocsServerError:
		httpStatus = http.StatusInternalServerError
	}
	ok := status >= 200 && status < 300
	code := status
	if ok {
		message = "OK"
		if v1 {
			code = 100
		}
	} else if code == http.StatusUnauthorized {
		code = ocsUnauthorised
	}
	if v1 && httpStatus != http.StatusUnauthorized {
		httpStatus = http.StatusOK
	}
	if data == nil {
		data = []any{}
	}
	meta := ocsMeta{Status: "failure", StatusCode: code, Message: message}
	if ok {
		meta.Status = "ok"
	}
	if v1 {
		empty := ""
		meta.TotalItems, meta.ItemsPerPage = &empty, &empty
	}
	if wantsJSON(r) {
		body, err := phpJSON(ocsEnvelope{OCS: ocsBody{Meta: meta, Data: data}}, true)
		if err != nil {
			http.Error(w, "ncsim: encode OCS answer: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(httpStatus)
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(httpStatus)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n<ocs>\n <meta>\n")
	fmt.Fprintf(&b, "  <status>%s</status>\n  <statuscode>%d</statuscode>\n  <message>%s</message>\n",
		meta.Status, meta.StatusCode, xmlEscape(meta.Message))
	if v1 {
		b.WriteString("  <totalitems></totalitems>\n  <itemsperpage></itemsperpage>\n")
	}
	b.WriteString(" </meta>\n <data>")
	writeXMLValue(&b, data)
	b.WriteString("</data>\n</ocs>\n")
	_, _ = w.Write([]byte(b.String()))
}

// ocsEnvelope is the OCS answer in the key order Nextcloud writes.
type ocsEnvelope struct {
	OCS ocsBody `json:"ocs"`
}

type ocsBody struct {
	Meta ocsMeta `json:"meta"`
	Data any     `json:"data"`
}

type ocsMeta struct {
	Status       string  `json:"status"`
	StatusCode   int     `json:"statuscode"`
	Message      string  `json:"message"`
	TotalItems   *string `json:"totalitems,omitempty"`
	ItemsPerPage *string `json:"itemsperpage,omitempty"`
}

func wantsJSON(r *http.Request) bool {
	if r.URL.Query().Get("format") == "json" {
		return true
	}
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// writeXMLValue renders data the way OCS's XML formatter does: maps as
// elements, lists as <element> children.
func writeXMLValue(b *strings.Builder, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		return
	}
	var generic any
	_ = json.Unmarshal(raw, &generic)
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(b, "<%s>", k)
				walk(t[k])
				fmt.Fprintf(b, "</%s>", k)
			}
		case []any:
			for _, e := range t {
				b.WriteString("<element>")
				walk(e)
				b.WriteString("</element>")
			}
		case nil:
		case bool:
			if t {
				b.WriteString("1")
			}
		default:
			b.WriteString(xmlEscape(fmt.Sprint(t)))
		}
	}
	walk(generic)
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// readParams merges the query string, a form body and a JSON object body
// the way Nextcloud's IRequest does, and returns the values as JSON-typed
// values (strings from the query and form, any JSON type from the body).
func readParams(r *http.Request) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range r.URL.Query() {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		if r.Body == nil {
			return out, nil
		}
		var body map[string]any
		dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20))
		if err := dec.Decode(&body); err != nil && err.Error() != "EOF" {
			return nil, fmt.Errorf("invalid JSON body: %w", err)
		}
		for k, v := range body {
			out[k] = v
		}
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"), strings.HasPrefix(ct, "multipart/form-data"):
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		for k, v := range r.PostForm {
			if len(v) > 0 {
				out[k] = v[0]
			}
		}
	}
	return out, nil
}
