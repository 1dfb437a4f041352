package handlers

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// handleAsset serves GET /js/*, /css/* and /img/* from the embedded
// frontend build. Names are fixed (AppAPI registers scripts by path), so
// every asset is revalidated (Cache-Control: no-cache) rather than cached
// for an hour by the proxy, and carries an ETag of its content: a second
// visit costs a 304 without a body. AppAPI's proxy forwards the browser's
// If-None-Match and Accept-Encoding and returns the status as it is
// (app_api lib/Controller/ExAppProxyController.php, createProxyResponse).
// Assets of 1 KiB or more go gzipped to a client that accepts it, with
// their own ETag.
func (s *Server) handleAsset(c echo.Context) error {
	p := strings.TrimPrefix(c.Request().URL.Path, "/")
	if strings.Contains(p, "..") {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	a, err := s.assetCache.get(s.assets, p)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "no such asset")
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Type", a.ctype)
	h.Add("Vary", "Accept-Encoding")
	body, etag := a.body, a.etag
	if a.gz != nil && acceptsGzip(c.Request().Header.Get("Accept-Encoding")) {
		body, etag = a.gz, a.gzETag
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(body))
	return nil
}

// gzipMin is the smallest asset worth compressing.
const gzipMin = 1024

// asset is one file of the build, read once (the build is embedded and
// never changes while the app runs).
type asset struct {
	body, gz     []byte
	etag, gzETag string
	ctype        string
}

// assetCache holds the assets read so far, by path.
type assetCache struct {
	mu    sync.Mutex
	files map[string]*asset
}

// get returns the asset at p in fsys, reading, hashing and compressing it
// on first use; an error for a missing file or a directory.
func (c *assetCache) get(fsys fs.FS, p string) (*asset, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.files[p]; ok {
		return a, nil
	}
	body, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:12])
	a := &asset{body: body, etag: `"` + tag + `"`, ctype: mime.TypeByExtension(path.Ext(p))}
	if a.ctype == "" {
		a.ctype = http.DetectContentType(body)
	}
	if len(body) >= gzipMin {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(body); err == nil && zw.Close() == nil && buf.Len() < len(body) {
			a.gz, a.gzETag = buf.Bytes(), `"`+tag+`-gzip"`
		}
	}
	if c.files == nil {
		c.files = map[string]*asset{}
	}
	c.files[p] = a
	return a, nil
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip
// (named, or as *, with a q above 0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if name = strings.TrimSpace(name); !strings.EqualFold(name, "gzip") && name != "*" {
			continue
		}
		q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}
