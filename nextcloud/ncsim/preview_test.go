package ncsim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"testing"
)

// TestPreview: GET /index.php/core/preview answers as
// PreviewController::getPreviewByFileId: a PNG for a file with a preview
// provider, 400 without a file id, 404 for what the user cannot see, a
// folder or a type without a preview; only with a session.
func TestPreview(t *testing.T) {
	s, ts := aaServer(t)
	var pic bytes.Buffer
	src := image.NewRGBA(image.Rect(0, 0, 200, 100))
	for x := range 200 {
		for y := range 100 {
			src.Set(x, y, color.RGBA{200, 30, 30, 255})
		}
	}
	if err := png.Encode(&pic, src); err != nil {
		t.Fatal(err)
	}
	photo := s.PutFile("alice", "/Photos/red.png", pic.Bytes())
	note := s.PutFile("alice", "/Notes/a.md", []byte("# Title\n\nSome text."))
	zip := s.PutFile("alice", "/a.zip", []byte("PK\x03\x04"))
	dir := s.Mkdir("alice", "/Empty")
	secret := s.PutFile("bob", "/secret.md", []byte("bob's"))

	resp := aaPostForm(t, ts.URL+"/index.php/login", url.Values{"user": {"alice"}, "password": {"alice"}})
	cookie := http.Header{"Cookie": {aaSessionCookie(resp).String()}}
	get := func(query string, h http.Header) (*http.Response, string) {
		return aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/core/preview?"+query, h, "")
	}
	resp, body := get(fmt.Sprintf("fileId=%d&x=64&y=64&a=1", photo.ID), cookie)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || resp.Header.Get("Cache-Control") != "private, max-age=86400, immutable" {
		t.Fatalf("preview of a PNG = %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}
	img, err := png.Decode(bytes.NewReader([]byte(body)))
	if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 32 {
		t.Errorf("preview 64×64 with the aspect ratio kept: %v %v, want 64×32", img.Bounds(), err)
	}
	if resp, _ := get(fmt.Sprintf("fileId=%d&x=32&y=32", note.ID), cookie); resp.StatusCode != 200 {
		t.Errorf("preview of a Markdown file = %d", resp.StatusCode)
	}
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"x=32&y=32", 400},
		{fmt.Sprintf("fileId=%d&x=0&y=32", note.ID), 400},
		{fmt.Sprintf("fileId=%d", zip.ID), 404},
		{fmt.Sprintf("fileId=%d", dir.ID), 404},
		{fmt.Sprintf("fileId=%d", secret.ID), 404},
		{"fileId=99999", 404},
	} {
		if resp, _ := get(tt.query, cookie); resp.StatusCode != tt.want {
			t.Errorf("preview?%s = %d, want %d", tt.query, resp.StatusCode, tt.want)
		}
	}
	if resp, _ := get(fmt.Sprintf("fileId=%d", note.ID), nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("preview without a session = %d, want the login redirect", resp.StatusCode)
	}
}
