package nextcloud

import (
	"context"
	"io"
	"net/http"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// Download opens the content of file p as user (GET). The FileInfo comes
// from the response headers and describes exactly the bytes returned:
// Path, ETag, MIME, Size and Modified. Nextcloud's GET carries no file id,
// permissions or owner, so those stay zero; take them from Stat or
// FindByID. The caller closes the reader. maxBytes > 0 caps the size: a
// larger Content-Length is ETOOLARGE at once, and a body that runs past
// the cap makes Read fail with ETOOLARGE. maxBytes <= 0 means no cap.
func (c *Client) Download(ctx context.Context, user hs.UserID, p string, maxBytes int64) (io.ReadCloser, hs.FileInfo, error) {
	if err := requireUser("download", user); err != nil {
		return nil, hs.FileInfo{}, err
	}
	clean, err := cleanPath(p)
	if err != nil {
		return nil, hs.FileInfo{}, err
	}
	r := &request{method: http.MethodGet, path: davFilesPath(user, clean), user: user}
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, hs.FileInfo{}, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, hs.FileInfo{}, statusError(r.op(), resp.StatusCode, sabreMessage(b))
	}
	fi := headerInfo(clean, resp)
	if maxBytes > 0 && resp.ContentLength > maxBytes {
		resp.Body.Close()
		return nil, fi, errorf(hs.ETOOLARGE, "download %s: %d bytes, limit %d", clean, resp.ContentLength, maxBytes)
	}
	if maxBytes <= 0 {
		return resp.Body, fi, nil
	}
	return &cappedReader{rc: resp.Body, left: maxBytes, op: "download " + clean, max: maxBytes}, fi, nil
}

// headerInfo reads a FileInfo from a GET response.
func headerInfo(p string, resp *http.Response) hs.FileInfo {
	fi := hs.FileInfo{
		Path: p,
		MIME: resp.Header.Get("Content-Type"),
		Size: max(resp.ContentLength, 0),
	}
	if mime, _, ok := strings.Cut(fi.MIME, ";"); ok {
		fi.MIME = strings.TrimSpace(mime)
	}
	etag := resp.Header.Get("OC-ETag")
	if etag == "" {
		etag = resp.Header.Get("ETag")
	}
	fi.ETag = unquoteETag(etag)
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		fi.Modified = t.UTC()
	}
	return fi
}

// cappedReader fails with ETOOLARGE once more than max bytes arrive.
type cappedReader struct {
	rc   io.ReadCloser
	left int64 // bytes still allowed
	max  int64
	op   string
}

func (r *cappedReader) Read(b []byte) (int, error) {
	if r.left < 0 {
		return 0, errorf(hs.ETOOLARGE, "%s: more than %d bytes", r.op, r.max)
	}
	// Read one byte past the cap to tell "exactly max" from "more".
	if int64(len(b)) > r.left+1 {
		b = b[:r.left+1]
	}
	n, err := r.rc.Read(b)
	r.left -= int64(n)
	if r.left < 0 {
		return n + int(r.left), errorf(hs.ETOOLARGE, "%s: more than %d bytes", r.op, r.max)
	}
	return n, err
}

func (r *cappedReader) Close() error { return r.rc.Close() }
