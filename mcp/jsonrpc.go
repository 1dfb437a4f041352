package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
)

// The preflight reads each POST before the SDK does and answers, in
// JSON-RPC's and the MCP transport's own terms, what the SDK would refuse
// as a whole with a line of text: a 2025-03-26 batch is answered element
// by element (an unknown method or a malformed element costs only its own
// answer), a message that is neither request, notification nor response
// is an invalid request (-32600), a method the endpoint does not answer
// is -32601, an unknown notification is accepted and ignored, and a
// protocol-version header that names no version is refused with the
// versions there are. Everything else goes to the SDK unchanged.

// Protocol revisions the preflight distinguishes.
const (
	protocol20250326 = "2025-03-26" // the last with batches
	protocol20250618 = "2025-06-18"
	// protocol20260728 reports -32601 with HTTP 404 (SEP-2575); older
	// ones send the JSON-RPC error with HTTP 200.
	protocol20260728 = "2026-07-28"
)

// notified are the client notifications the SDK handles; others are
// accepted and dropped (a newer client's notification is no error).
var notified = map[string]bool{
	"notifications/initialized":        true,
	"notifications/cancelled":          true,
	"notifications/progress":           true,
	"notifications/roots/list_changed": true,
}

// futureVersion is a dated revision the SDK may negotiate (2026-07-28
// clients send their newest and fall back on the server's answer).
var futureVersion = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// message is what the preflight reads of one JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	Params  json.RawMessage `json:"params"`
}

// shape is what a message is.
type shape uint8

const (
	shapeInvalid shape = iota
	shapeCall
	shapeNotification
	shapeResponse
)

// classify returns the message's shape, its method and its id (null when
// it has none that may be echoed).
func classify(raw json.RawMessage) (shape, string, json.RawMessage) {
	var m message
	if json.Unmarshal(raw, &m) != nil {
		return shapeInvalid, "", json.RawMessage("null")
	}
	id := json.RawMessage("null")
	hasID := len(m.ID) > 0
	if hasID {
		switch m.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = m.ID
		case 'n': // null
		default:
			return shapeInvalid, "", json.RawMessage("null")
		}
	}
	if m.JSONRPC != "2.0" {
		return shapeInvalid, "", id
	}
	var method string
	if len(m.Method) > 0 && string(m.Method) != "null" {
		if json.Unmarshal(m.Method, &method) != nil || method == "" {
			return shapeInvalid, "", id
		}
	}
	switch {
	case method != "" && hasID:
		return shapeCall, method, id
	case method != "":
		return shapeNotification, method, id
	case hasID && (m.Result != nil || m.Error != nil):
		return shapeResponse, "", id
	}
	return shapeInvalid, "", id
}

// rpcError is a JSON-RPC error response.
func rpcError(id json.RawMessage, code int64, msg string, data any) json.RawMessage {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, msg, data}})
	return b
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// preflight answers what it must (see above) and reports whether it did;
// otherwise the request's body is left readable for the SDK. Bodies over
// the size limit are left to the SDK, which refuses them in its words.
func (h *handler) preflight(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	version := r.Header.Get("MCP-Protocol-Version")
	body, err := io.ReadAll(io.LimitReader(r.Body, h.o.MaxBodyBytes+1))
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	tooLarge := err != nil || int64(len(body)) > h.o.MaxBodyBytes
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	batch := len(trimmed) > 0 && trimmed[0] == '['
	kind, method, id := classify(body)
	if version != "" && !slices.Contains(sdk.SupportedProtocolVersions(), version) && (!futureVersion.MatchString(version) || version < protocol20260728) {
		if tooLarge || batch || kind != shapeCall {
			id = json.RawMessage("null")
		}
		writeJSON(w, http.StatusBadRequest, rpcError(id, sdk.CodeUnsupportedProtocolVersion,
			"unsupported protocol version "+hs.Quote(version)+" in the MCP-Protocol-Version header; supported: "+strings.Join(sdk.SupportedProtocolVersions(), ", "),
			sdk.UnsupportedProtocolVersionData{Supported: sdk.SupportedProtocolVersions(), Requested: version}))
		return true
	}
	if tooLarge {
		return false
	}
	if batch {
		return h.batch(w, r, body, version)
	}
	switch {
	case !json.Valid(body):
		return false // the SDK's parse error
	case kind == shapeInvalid:
		writeJSON(w, http.StatusBadRequest, rpcError(id, jsonrpc.CodeInvalidRequest,
			"invalid request: a JSON-RPC 2.0 message has a method (request or notification), or an id with a result or an error (response)", nil))
		return true
	case kind == shapeNotification && !notified[method]:
		h.log.Debug("unknown notification ignored", "method", clip(method))
		w.WriteHeader(http.StatusAccepted)
		return true
	case kind == shapeCall && !answered[method]:
		if v := metaVersion(body); v != "" {
			version = v
		}
		status := http.StatusOK
		if version >= protocol20260728 {
			status = http.StatusNotFound
		}
		h.log.Debug("undeclared method refused", "method", clip(method))
		writeJSON(w, status, undeclared(id, method))
		return true
	}
	return false
}

// undeclared is the -32601 answer to a method the endpoint does not answer.
func undeclared(id json.RawMessage, method string) json.RawMessage {
	return rpcError(id, jsonrpc.CodeMethodNotFound, "method not found: "+hs.Quote(method), nil)
}

// metaVersion is a request's _meta protocol version (2026-07-28), or "".
func metaVersion(body []byte) string {
	var c struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	var v string
	if json.Unmarshal(body, &c) == nil {
		_ = json.Unmarshal(c.Params.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	}
	return v
}

// batch answers a JSON-RPC batch of a revision that has them (2025-03-26,
// the one assumed without a version header): the elements the SDK can
// answer go to it as a batch, the others are answered here, and the
// answers are sent together. Later revisions' batches are left to the
// SDK, which refuses them.
func (h *handler) batch(w http.ResponseWriter, r *http.Request, body []byte, version string) bool {
	if version != "" && version >= protocol20250618 {
		return false
	}
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil {
		return false // not JSON: the SDK's parse error
	}
	if len(elems) == 0 {
		writeJSON(w, http.StatusBadRequest, rpcError(json.RawMessage("null"), jsonrpc.CodeInvalidRequest, "invalid request: an empty batch", nil))
		return true
	}
	var answers, forward []json.RawMessage
	for _, e := range elems {
		kind, method, id := classify(e)
		switch {
		case kind == shapeInvalid:
			answers = append(answers, rpcError(id, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 request, notification or response", nil))
		case kind == shapeCall && !answered[method]:
			answers = append(answers, undeclared(id, method))
		case kind == shapeNotification && !notified[method]:
		default:
			forward = append(forward, e)
		}
	}
	if len(answers) == 0 && len(forward) == len(elems) {
		return false
	}
	if len(forward) > 0 {
		out, _ := json.Marshal(forward)
		r2 := r.Clone(r.Context())
		r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(out)), int64(len(out))
		rec := &recorder{header: http.Header{}}
		h.mcp.ServeHTTP(rec, r2)
		var sdkAnswers []json.RawMessage
		switch {
		case rec.status == http.StatusAccepted:
		case rec.status == http.StatusOK && json.Unmarshal(rec.body.Bytes(), &sdkAnswers) == nil:
			answers = append(sdkAnswers, answers...)
		default: // the SDK refused the rest as a whole: its answer stands
			maps.Copy(w.Header(), rec.header)
			w.WriteHeader(rec.status)
			_, _ = w.Write(rec.body.Bytes())
			return true
		}
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	out, _ := json.Marshal(answers)
	writeJSON(w, http.StatusOK, out)
	return true
}

// recorder keeps the SDK's answer to a batch's forwarded part.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(status int) {
	if rec.status == 0 {
		rec.status = status
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.body.Write(b)
}
