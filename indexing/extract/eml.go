package extract

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
)

// Bounds on the MIME tree of a message.
const (
	maxMailDepth = 8    // nested multiparts and attached messages
	maxMailParts = 1000 // parts in the whole message
)

// eml extracts an Internet message: "# Subject", From/To/Cc/Date lines,
// the body (text/plain preferred over text/html within an alternative,
// HTML converted, transfer encodings and charsets decoded), attached
// messages the same way one heading level down, and finally the names of
// attachments. Subject becomes Title.
func (j *job) eml() error {
	m, err := mail.ReadMessage(bytes.NewReader(j.data))
	if err != nil {
		return j.corrupt(err, "eml")
	}
	w := &mailWalker{j: j, dec: &mime.WordDecoder{CharsetReader: charsetReader}}
	j.title = w.header(m.Header.Get("Subject"))
	return w.message(m.Header, m.Body, 0)
}

// header is what mail.Header and textproto.MIMEHeader have in common.
type header interface{ Get(key string) string }

type mailWalker struct {
	j     *job
	dec   *mime.WordDecoder
	parts int
	level int // messages enclosing the current one
}

// message writes one message: heading, header lines, body, attachments.
func (w *mailWalker) message(h header, body io.Reader, depth int) error {
	b := w.j.b
	if err := b.heading(w.level+1, w.header(h.Get("Subject"))); err != nil {
		return err
	}
	for _, k := range []string{"From", "To", "Cc", "Date"} {
		if v := w.header(h.Get(k)); v != "" {
			if err := b.line(k + ": " + v); err != nil {
				return err
			}
		}
	}
	b.end()
	var attachments []string
	if err := w.entity(h, body, depth, &attachments); err != nil {
		return err
	}
	if len(attachments) > 0 {
		return b.para("Attachments: " + strings.Join(attachments, ", "))
	}
	return nil
}

// entity writes one MIME entity's content, collecting attachment names.
func (w *mailWalker) entity(h header, body io.Reader, depth int, attachments *[]string) error {
	if w.parts++; w.parts > maxMailParts {
		return nil
	}
	ct, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || ct == "" {
		ct, params = "text/plain", map[string]string{}
	}
	disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	name := dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	name = w.header(name)
	isText := ct == "text/plain" || ct == "text/html" || ct == "text/markdown"
	if disp == "attachment" || (name != "" && disp != "inline" && !strings.HasPrefix(ct, "multipart/") && ct != "message/rfc822") {
		if name == "" {
			name = ct
		}
		*attachments = append(*attachments, name)
		return nil
	}
	switch {
	case strings.HasPrefix(ct, "multipart/"):
		if depth >= maxMailDepth {
			return nil
		}
		return w.multipart(ct, params["boundary"], transferDecode(h, body), depth, attachments)
	case ct == "message/rfc822":
		if depth >= maxMailDepth {
			return nil
		}
		m, err := mail.ReadMessage(transferDecode(h, body))
		if err != nil {
			return nil // an unreadable attached message is not worth failing the mail
		}
		w.level++
		defer func() { w.level-- }()
		return w.message(m.Header, m.Body, depth+1)
	case isText:
		data, _ := io.ReadAll(transferDecode(h, body)) // keep what decodes
		s, err := decodeCharset(data, params["charset"])
		if err != nil {
			return nil // binary data labelled as text
		}
		if ct == "text/html" {
			_, err := htmlInto(w.j.b, []byte(s))
			return err
		}
		return w.j.b.raw(s)
	}
	return nil
}

// multipart writes the parts of a multipart entity: of an alternative the
// plain text version (else HTML, else the last), of anything else all.
func (w *mailWalker) multipart(ct, boundary string, body io.Reader, depth int, attachments *[]string) error {
	if boundary == "" {
		return nil
	}
	mr := multipart.NewReader(body, boundary)
	type part struct {
		h    header
		ct   string
		data []byte
	}
	var alts []part
	for {
		p, err := mr.NextPart()
		if err != nil {
			break // io.EOF, or a malformed rest that is skipped
		}
		if ct != "multipart/alternative" {
			if err := w.entity(p.Header, p, depth+1, attachments); err != nil {
				return err
			}
			continue
		}
		data, _ := io.ReadAll(p)
		pct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		alts = append(alts, part{p.Header, pct, data})
	}
	if len(alts) == 0 {
		return nil
	}
	best := alts[len(alts)-1]
	for _, want := range []string{"text/html", "text/plain"} {
		for _, a := range alts {
			if a.ct == want {
				best = a
			}
		}
	}
	return w.entity(best.h, bytes.NewReader(best.data), depth+1, attachments)
}

// header decodes RFC 2047 encoded words; undecodable text is kept as is.
func (w *mailWalker) header(v string) string {
	if s, err := w.dec.DecodeHeader(v); err == nil {
		v = s
	}
	return collapseSpace(clean(v))
}

// transferDecode undoes a Content-Transfer-Encoding. multipart.Reader
// already undoes quoted-printable and then drops the header.
func transferDecode(h header, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding"))) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &base64Filter{r: r})
	}
	return r
}

// base64Filter drops what a base64 body may hold besides the alphabet
// (spaces, stray characters), so one bad line does not end decoding.
type base64Filter struct{ r io.Reader }

func (f *base64Filter) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		k := 0
		for _, c := range p[:n] {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
				p[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// charsetReader converts a named charset to UTF-8 for mime.WordDecoder.
func charsetReader(name string, r io.Reader) (io.Reader, error) {
	e := lookupCharset(strings.ToLower(name))
	if e == nil {
		return nil, errors.New("unknown charset " + name)
	}
	return e.NewDecoder().Reader(r), nil
}
