package ncsim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWriteOCS(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		accept     string
		status     int
		message    string
		data       any
		wantHTTP   int
		wantCode   int
		wantStatus string
		wantMsg    string
	}{
		{"v2 ok", "/ocs/v2.php/x", "application/json", 200, "", map[string]any{"a": 1}, 200, 200, "ok", "OK"},
		{"v1 ok", "/ocs/v1.php/x", "application/json", 200, "", nil, 200, 100, "ok", "OK"},
		{"v2 not found", "/ocs/v2.php/x", "application/json", 404, "No such Top Menu entry", nil, 404, 404, "failure", "No such Top Menu entry"},
		{"v1 not found", "/ocs/v1.php/x", "application/json", 404, "gone", nil, 200, 404, "failure", "gone"},
		{"v2 bad request", "/ocs/v2.php/x", "application/json", 400, "bad", nil, 400, 400, "failure", "bad"},
		{"v1 unauthorised", "/ocs/v1.php/x", "application/json", 401, "no", nil, 401, 997, "failure", "no"},
		{"v2 997", "/ocs/v2.php/x", "application/json", ocsUnauthorised, "no", nil, 401, 997, "failure", "no"},
		{"v2 996", "/ocs/v2.php/x", "application/json", ocsServerError, "boom", nil, 500, 996, "failure", "boom"},
		{"v1 996", "/ocs/v1.php/x", "application/json", ocsServerError, "boom", nil, 200, 996, "failure", "boom"},
		{"format=json", "/ocs/v2.php/x?format=json", "", 200, "", nil, 200, 200, "ok", "OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			w := httptest.NewRecorder()
			writeOCS(w, r, tt.status, tt.message, tt.data)
			if w.Code != tt.wantHTTP {
				t.Errorf("HTTP status = %d, want %d", w.Code, tt.wantHTTP)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			var env struct {
				OCS struct {
					Meta map[string]any `json:"meta"`
					Data json.RawMessage
				} `json:"ocs"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
				t.Fatalf("%v: %s", err, w.Body)
			}
			m := env.OCS.Meta
			if m["status"] != tt.wantStatus || m["statuscode"] != float64(tt.wantCode) || m["message"] != tt.wantMsg {
				t.Errorf("meta = %v, want %s/%d/%q", m, tt.wantStatus, tt.wantCode, tt.wantMsg)
			}
			_, hasTotal := m["totalitems"]
			if v1 := strings.Contains(tt.path, "v1.php"); hasTotal != v1 {
				t.Errorf("totalitems present = %v for v1 = %v", hasTotal, v1)
			}
			if tt.data == nil && string(env.OCS.Data) != "[]" {
				t.Errorf("empty data = %s, want []", env.OCS.Data)
			}
		})
	}
}

func TestWriteOCSXML(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/ocs/v1.php/x", nil)
	w := httptest.NewRecorder()
	writeOCS(w, r, 200, "", map[string]any{"users": []string{"alice", "bob"}})
	body := w.Body.String()
	if ct := w.Header().Get("Content-Type"); ct != "application/xml; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	for _, want := range []string{"<status>ok</status>", "<statuscode>100</statuscode>", "<message>OK</message>",
		"<totalitems></totalitems>", "<users><element>alice</element><element>bob</element></users>"} {
		if !strings.Contains(body, want) {
			t.Errorf("XML lacks %s:\n%s", want, body)
		}
	}
	r = httptest.NewRequest(http.MethodGet, "/ocs/v2.php/x", nil)
	w = httptest.NewRecorder()
	writeOCS(w, r, 404, "a <b>", nil)
	if w.Code != 404 || !strings.Contains(w.Body.String(), "<message>a &lt;b&gt;</message>") {
		t.Errorf("v2 XML failure = %d %s", w.Code, w.Body)
	}
}

func TestPHPJSON(t *testing.T) {
	got, err := phpJSON(map[string]any{"p": "/alice/files/Ü €😀 <x>"}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"p":"\/alice\/files\/\u00dc \u20ac\ud83d\ude00 <x>"}`
	if string(got) != want {
		t.Errorf("phpJSON = %s\nwant %s", got, want)
	}
	got, _ = phpJSON("<x>", true)
	if string(got) != `"\u003Cx\u003E"` {
		t.Errorf("phpJSON hexTag = %s", got)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(want), &back); err != nil || back["p"] != "/alice/files/Ü €😀 <x>" {
		t.Errorf("round trip = %v, %v", back, err)
	}
}
