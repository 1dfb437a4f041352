package nextcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	hs "github.com/hybrid-search/hybridsearch"
)

// ocsEnvelope is the JSON form of an OCS v1 or v2 response.
type ocsEnvelope struct {
	OCS struct {
		Meta struct {
			Status     string `json:"status"`
			StatusCode int    `json:"statuscode"`
			Message    string `json:"message"`
		} `json:"meta"`
		Data json.RawMessage `json:"data"`
	} `json:"ocs"`
}

// ocs calls an OCS endpoint as user and decodes ocs.data into out (if
// non-nil). body, if non-nil, is sent as JSON. Failures, including v1's
// "HTTP 200 with a failing statuscode", become error kinds.
func (c *Client) ocs(ctx context.Context, user hs.UserID, method, path string, query url.Values, body, out any) error {
	r := &request{method: method, path: path, query: query, user: user,
		header: http.Header{"Accept": {"application/json"}}}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return errorf(hs.EINVALID, "%s: encode body: %w", r.op(), err)
		}
		r.body, r.ctype = b, "application/json"
	}
	status, _, b, err := c.call(ctx, r)
	if err != nil {
		return err
	}
	return decodeOCS(r.op(), status, b, out)
}

// decodeOCS checks an OCS response and decodes its data into out.
func decodeOCS(op string, status int, b []byte, out any) error {
	var env ocsEnvelope
	jsonErr := json.Unmarshal(b, &env)
	meta := env.OCS.Meta
	if status < 200 || status > 299 {
		code := status
		if jsonErr == nil && (meta.StatusCode == ocsUnauthorised || meta.StatusCode == ocsNotFound) {
			code = meta.StatusCode
		}
		msg := meta.Message
		if jsonErr != nil {
			msg = ""
		}
		return statusError(op, code, msg)
	}
	if jsonErr != nil {
		return errorf(hs.EINTERNAL, "%s: not an OCS JSON response: %w", op, jsonErr)
	}
	if !ocsOK(meta.Status, meta.StatusCode) {
		return statusError(op, meta.StatusCode, meta.Message)
	}
	if out == nil || isEmptyData(env.OCS.Data) {
		return nil
	}
	if err := json.Unmarshal(env.OCS.Data, out); err != nil {
		return errorf(hs.EINTERNAL, "%s: decode OCS data: %w", op, err)
	}
	return nil
}

// ocsOK reports success: statuscode 100 (v1) or 2xx (v2).
func ocsOK(status string, code int) bool {
	if code == 100 || (code >= 200 && code < 300) {
		return true
	}
	return code == 0 && status == "ok"
}

// isEmptyData reports whether data is absent, null or PHP's empty array,
// which OCS sends for an empty DataResponse.
func isEmptyData(data json.RawMessage) bool {
	d := bytes.TrimSpace(data)
	return len(d) == 0 || bytes.Equal(d, []byte("null")) || bytes.Equal(d, []byte("[]"))
}
