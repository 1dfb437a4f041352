package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hybrid-search/hybridsearch/handlers"
)

// TestAssetsRevalidateAndCompress: the panel's assets were re-downloaded
// in full on every visit (no-cache with nothing to revalidate, issue 23).
// They carry an ETag, a second visit gets 304 with no body, and a browser
// that accepts gzip gets them compressed.
func TestAssetsRevalidateAndCompress(t *testing.T) {
	js := strings.Repeat("console.log('hybrid search panel');\n", 200)
	h := serverWithAssets(t, fstest.MapFS{"js/hybrid_search-main.js": {Data: []byte(js)}, "img/app.svg": {Data: []byte("<svg/>")}})

	rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/js/hybrid_search-main.js", nil), "alice"))
	etag := rec.Header().Get("ETag")
	if rec.Code != 200 || rec.Body.String() != js || etag == "" || rec.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("first visit = %d, ETag %q, Cache-Control %q", rec.Code, etag, rec.Header().Get("Cache-Control"))
	}
	again := signed(httptest.NewRequest(http.MethodGet, "/js/hybrid_search-main.js", nil), "alice")
	again.Header.Set("If-None-Match", etag)
	if rec := do(h, again); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("second visit = %d with %d bytes, want 304 and none", rec.Code, rec.Body.Len())
	}

	gz := signed(httptest.NewRequest(http.MethodGet, "/js/hybrid_search-main.js", nil), "alice")
	gz.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	rec = do(h, gz)
	if rec.Header().Get("Content-Encoding") != "gzip" || !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") || rec.Body.Len() >= len(js)/4 {
		t.Fatalf("gzip = %q, Vary %q, %d bytes of %d", rec.Header().Get("Content-Encoding"), rec.Header().Get("Vary"), rec.Body.Len(), len(js))
	}
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); string(plain) != js {
		t.Error("the gzipped body is not the asset")
	}
	gzTag := rec.Header().Get("ETag")
	if gzTag == etag {
		t.Error("the gzipped and the plain asset share an ETag")
	}
	gz.Header.Set("If-None-Match", gzTag)
	if rec := do(h, gz); rec.Code != http.StatusNotModified {
		t.Errorf("second visit with gzip = %d, want 304", rec.Code)
	}
	// A tiny file is not worth compressing.
	small := signed(httptest.NewRequest(http.MethodGet, "/img/app.svg", nil), "alice")
	small.Header.Set("Accept-Encoding", "gzip")
	if rec := do(h, small); rec.Code != 200 || rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != "<svg/>" {
		t.Errorf("small svg = %d %q %q", rec.Code, rec.Header().Get("Content-Encoding"), rec.Body.String())
	}
}

func serverWithAssets(t *testing.T, assets fstest.MapFS) http.Handler {
	t.Helper()
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{},
		Publish: &fakeQueue{}, Operator: &fakeOperator{}, Assets: assets})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}
