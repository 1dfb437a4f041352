package ncsim

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Bulk upload (capability dav.bulkupload "1.0"), as
// nextcloud/server apps/dav/lib/BulkUpload/BulkUploadPlugin.php and
// MultipartRequestParser.php do it: the desktop client sends many small
// files in one POST /remote.php/dav/bulk, a multipart/related body whose
// parts carry X-File-Path, X-File-MD5, Content-Length and X-File-Mtime (or
// X-OC-Mtime). Each part is written with Folder::newFile and then touched,
// so the node events are those of a write (create+write for a new file,
// update+write on 34+ or write for an existing one) followed by a touch.

// bulkResult is one file's entry in the JSON answer.
type bulkResult struct {
	Error       bool   `json:"error"`
	Message     string `json:"message,omitempty"`
	ETag        string `json:"etag,omitempty"`
	FileID      string `json:"fileid,omitempty"`
	Permissions string `json:"permissions,omitempty"`
}

// handleBulk serves POST /remote.php/dav/bulk.
func (s *Server) handleBulk(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.davUser(w, r)
	if !ok {
		return
	}
	boundary, err := bulkBoundary(r.Header.Get("Content-Type"))
	if err != nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, err.Error())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpload))
	if err != nil {
		writeDAVError(w, http.StatusRequestEntityTooLarge, exBadRequest, err.Error())
		return
	}
	p := &bulkParser{r: bufio.NewReader(bytes.NewReader(body)), boundary: "--" + boundary + "\r\n", last: "--" + boundary + "--\r\n"}
	// PHP's json_encode of an associative array keeps insertion order.
	var keys []string
	written := map[string]bulkResult{}
	add := func(path string, res bulkResult) {
		if _, seen := written[path]; !seen {
			keys = append(keys, path)
		}
		written[path] = res
	}
	status := http.StatusOK
	for !p.atLast() {
		headers, content, err := p.next()
		if err != nil {
			// "Return early if an error occurs during parsing."
			s.logf("ncsim: bulk upload by %s: %v", uid, err)
			status = http.StatusBadRequest
			break
		}
		path := headers["x-file-path"]
		mtime, hasMtime := bulkMtime(headers)
		fi, err := s.bulkWrite(uid, path, content, mtime, hasMtime)
		if err != nil {
			add(path, bulkResult{Error: true, Message: err.Error()})
			continue
		}
		add(path, bulkResult{ETag: fi.ETag, FileID: davFileID(fi.ID, s.InstanceID), Permissions: fi.Permissions})
	}
	w.Header().Set("Content-Type", "text/html; charset=UTF-8") // PHP's default: the plugin sets none
	w.WriteHeader(status)
	_, _ = w.Write(orderedJSON(keys, written))
}

// bulkWrite is $userFolder->newFile($path, $content) then
// $node->touch($mtime): the write's events, then the touch's.
func (s *Server) bulkWrite(uid, path string, content []byte, mtime int64, hasMtime bool) (FileInfo, error) {
	if path == "" {
		return FileInfo{}, errors.New("Could not create as provided path is empty")
	}
	p := cleanPath(path)
	if _, _, err := s.writeFile(uid, p, content, writeOpts{}); err != nil {
		var fe *fsError
		if errors.As(err, &fe) && fe.status == http.StatusConflict {
			return FileInfo{}, fmt.Errorf("Could not create path \"/%s/files%s\"", uid, p)
		}
		return FileInfo{}, err
	}
	if !hasMtime {
		mtime = s.now().Unix()
	}
	if err := s.touch(uid, p, mtime); err != nil {
		return FileInfo{}, err
	}
	fi, ok := s.Stat(uid, p)
	if !ok {
		return FileInfo{}, errNotFound(p)
	}
	return fi, nil
}

// bulkBoundary is MultipartRequestParser::parseBoundaryFromHeaders.
func bulkBoundary(contentType string) (string, error) {
	if contentType == "" {
		return "", errors.New("Content-Type can not be null")
	}
	mimeType, param, ok := strings.Cut(contentType, ";")
	key, value, ok2 := strings.Cut(param, "=")
	if !ok || !ok2 {
		return "", errors.New("Error while parsing boundary in Content-Type header.")
	}
	value = strings.TrimSpace(value)
	if len(value) >= 2 && strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`) {
		value = value[1 : len(value)-1]
	}
	if strings.TrimSpace(mimeType) != "multipart/related" {
		return "", errors.New("Content-Type must be multipart/related")
	}
	if strings.TrimSpace(key) != "boundary" {
		return "", errors.New("Boundary is invalid")
	}
	return value, nil
}

// bulkMtime reads X-File-Mtime, else X-OC-Mtime (MtimeSanitizer: a
// number, fractions dropped).
func bulkMtime(h map[string]string) (int64, bool) {
	v, ok := h["x-file-mtime"]
	if !ok {
		v, ok = h["x-oc-mtime"]
	}
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return int64(f), true
}

// bulkParser reads the multipart body the way MultipartRequestParser does:
// a boundary line, header lines up to an empty line, Content-Length bytes
// whose md5 must equal X-File-MD5, then CRLF.
type bulkParser struct {
	r              *bufio.Reader
	boundary, last string
}

func (p *bulkParser) at(s string) bool {
	b, _ := p.r.Peek(len(s))
	return string(b) == s
}

func (p *bulkParser) atLast() bool { return p.at(p.last) }

func (p *bulkParser) next() (map[string]string, []byte, error) {
	if !p.at(p.boundary) {
		return nil, nil, errors.New("Boundary not found where it should be.")
	}
	_, _ = p.r.Discard(len(p.boundary))
	headers := map[string]string{}
	for {
		line, err := p.r.ReadString('\n')
		if err != nil {
			return nil, nil, errors.New("An error occurred while reading headers of a part")
		}
		if line == "\r\n" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, nil, errors.New("An error occurred while reading headers of a part")
		}
		headers[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if _, ok := headers["content-length"]; !ok {
		return nil, nil, errors.New("The Content-Length header must not be null.")
	}
	sum, ok := headers["x-file-md5"]
	if !ok {
		return nil, nil, errors.New("The X-File-MD5 header must not be null.")
	}
	n, err := strconv.Atoi(headers["content-length"])
	if err != nil || n < 0 {
		return nil, nil, errors.New("Computed md5 hash is incorrect.")
	}
	content := make([]byte, n)
	if _, err := io.ReadFull(p.r, content); err != nil {
		return nil, nil, errors.New("Unexpected EOF while reading stream.")
	}
	got := md5.Sum(content)
	if hex.EncodeToString(got[:]) != sum {
		return nil, nil, errors.New("Computed md5 hash is incorrect.")
	}
	_, _ = p.r.Discard(2) // "\r\n"
	return headers, content, nil
}

// orderedJSON encodes m as a JSON object with keys in the given order,
// escaping "/" as PHP's json_encode does.
func orderedJSON(keys []string, m map[string]bulkResult) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		vj, _ := json.Marshal(m[k])
		b.Write(kj)
		b.WriteByte(':')
		b.Write(vj)
	}
	b.WriteByte('}')
	return bytes.ReplaceAll(b.Bytes(), []byte("/"), []byte(`\/`))
}
