package nextcloud

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// FolderMIME is the MIME type Nextcloud gives folders.
const FolderMIME = "httpd/unix-directory"

type davMultistatus struct {
	Responses []davResponse `xml:"DAV: response"`
}

type davResponse struct {
	Href      string        `xml:"DAV: href"`
	Status    string        `xml:"DAV: status"` // whole-response status, rare
	Propstats []davPropstat `xml:"DAV: propstat"`
}

type davPropstat struct {
	Prop   davProp `xml:"DAV: prop"`
	Status string  `xml:"DAV: status"`
}

type davProp struct {
	LastModified  *string `xml:"DAV: getlastmodified"`
	ETag          *string `xml:"DAV: getetag"`
	ContentType   *string `xml:"DAV: getcontenttype"`
	ContentLength *string `xml:"DAV: getcontentlength"`
	ResourceType  *struct {
		Collection *struct{} `xml:"DAV: collection"`
	} `xml:"DAV: resourcetype"`
	FileID      *string `xml:"http://owncloud.org/ns fileid"`
	Size        *string `xml:"http://owncloud.org/ns size"`
	Permissions *string `xml:"http://owncloud.org/ns permissions"`
	OwnerID     *string `xml:"http://owncloud.org/ns owner-id"`
}

// parseMultistatus reads a 207 body of PROPFIND or SEARCH on user's files
// tree. Only properties in 200 propstats count; responses outside the
// user's files tree or with a failing status are skipped.
func parseMultistatus(b []byte, user hs.UserID) ([]hs.FileInfo, error) {
	var ms davMultistatus
	if err := xml.Unmarshal(b, &ms); err != nil {
		return nil, fmt.Errorf("parse multistatus: %w", err)
	}
	out := make([]hs.FileInfo, 0, len(ms.Responses))
	for _, r := range ms.Responses {
		if r.Status != "" && statusLineCode(r.Status) != http.StatusOK {
			continue
		}
		p, ok := hrefToPath(r.Href, user)
		if !ok {
			continue
		}
		fi, err := fileInfo(p, r.Propstats)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Href, err)
		}
		out = append(out, fi)
	}
	return out, nil
}

// fileInfo builds a FileInfo from the 200 propstats of one response.
func fileInfo(p string, propstats []davPropstat) (hs.FileInfo, error) {
	fi := hs.FileInfo{Path: p}
	var contentLength, size *string
	for _, ps := range propstats {
		if statusLineCode(ps.Status) != http.StatusOK {
			continue
		}
		pr := ps.Prop
		if pr.ResourceType != nil && pr.ResourceType.Collection != nil {
			fi.IsDir = true
		}
		if pr.LastModified != nil && strings.TrimSpace(*pr.LastModified) != "" {
			t, err := http.ParseTime(strings.TrimSpace(*pr.LastModified))
			if err != nil {
				return fi, fmt.Errorf("getlastmodified %q: %w", *pr.LastModified, err)
			}
			fi.Modified = t.UTC()
		}
		if pr.ETag != nil {
			fi.ETag = unquoteETag(*pr.ETag)
		}
		if pr.ContentType != nil {
			fi.MIME = strings.TrimSpace(*pr.ContentType)
		}
		if pr.FileID != nil && strings.TrimSpace(*pr.FileID) != "" {
			id, err := strconv.ParseInt(strings.TrimSpace(*pr.FileID), 10, 64)
			if err != nil {
				return fi, fmt.Errorf("fileid %q: %w", *pr.FileID, err)
			}
			fi.ID = hs.FileID(id)
		}
		if pr.Permissions != nil {
			fi.Permissions = strings.TrimSpace(*pr.Permissions)
		}
		if pr.OwnerID != nil {
			fi.Owner = hs.UserID(strings.TrimSpace(*pr.OwnerID))
		}
		if pr.ContentLength != nil {
			contentLength = pr.ContentLength
		}
		if pr.Size != nil {
			size = pr.Size
		}
	}
	// oc:size covers folders (their total) and files alike;
	// getcontentlength is a file's own length and wins for files.
	sizeText := size
	if !fi.IsDir && contentLength != nil && strings.TrimSpace(*contentLength) != "" {
		sizeText = contentLength
	}
	if sizeText != nil && strings.TrimSpace(*sizeText) != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(*sizeText), 10, 64)
		if err != nil {
			return fi, fmt.Errorf("size %q: %w", *sizeText, err)
		}
		fi.Size = n
	}
	if fi.IsDir && fi.MIME == "" {
		fi.MIME = FolderMIME
	}
	return fi, nil
}

// statusLineCode reads the code of "HTTP/1.1 200 OK"; 0 if unreadable.
func statusLineCode(s string) int {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// unquoteETag strips the quotes (and a weak marker) from an ETag.
func unquoteETag(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "W/")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

// hrefToPath turns a WebDAV href (path or absolute URL, URL-encoded) under
// /remote.php/dav/files/<user> into a path in user's tree ("/" for the
// root, folders without the trailing slash).
func hrefToPath(href string, user hs.UserID) (string, bool) {
	href = strings.TrimSpace(href)
	if u, err := url.Parse(href); err == nil && u.Scheme != "" {
		href = u.EscapedPath()
	}
	decoded, err := url.PathUnescape(href)
	if err != nil {
		return "", false
	}
	prefix := davRoot + "files/" + string(user)
	i := strings.Index(decoded, prefix)
	if i < 0 {
		return "", false
	}
	rest := decoded[i+len(prefix):]
	if rest != "" && rest[0] != '/' {
		return "", false // another user whose id starts with user's
	}
	rest = strings.TrimRight(rest, "/")
	if rest == "" {
		return "/", true
	}
	return rest, true
}

// sabreMessage pulls <s:message> out of a Sabre XML error body.
func sabreMessage(b []byte) string {
	var e struct {
		Message string `xml:"http://sabredav.org/ns message"`
	}
	if bytes.Contains(b, []byte("sabredav.org")) && xml.Unmarshal(b, &e) == nil {
		return e.Message
	}
	return ""
}
