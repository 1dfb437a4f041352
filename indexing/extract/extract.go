package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Defaults for the limits of an Extractor whose fields are zero.
const (
	DefaultMaxInputBytes = 100 << 20
	DefaultMaxTextRunes  = 20_000_000
	DefaultMaxZipEntries = 10_000
	DefaultMaxZipTotal   = 512 << 20
	DefaultMaxZipRatio   = 100
	DefaultTimeout       = 60 * time.Second
)

// TruncatedSuffix ends Text.Extractor when Body was cut at MaxTextRunes
// ("docx+truncated"). The note lives there rather than in Body so that it
// is never indexed as if it were the document's text.
const TruncatedSuffix = "+truncated"

// ErrUnsupported is the cause of the EINVALID error Extract returns for a
// format it does not know; test it with errors.Is to record a file as
// skipped rather than failed.
var ErrUnsupported = errors.New("unsupported format")

// Extractor turns files into text. Its zero value is ready to use with the
// defaults above; set fields before the first call and not after. It is
// safe for concurrent use.
type Extractor struct {
	// MaxInputBytes bounds the input; a larger one fails with ETOOLARGE
	// after reading at most this many bytes plus one. 0 means the default.
	MaxInputBytes int64
	// MaxTextRunes bounds Body: text past it is dropped, parsing stops and
	// Extractor gets TruncatedSuffix. 0 means the default.
	MaxTextRunes int
	// MaxZipEntries bounds the entries of a zip-based file. 0 means the default.
	MaxZipEntries int
	// MaxZipTotal bounds the bytes all entries of a zip-based file expand
	// to, as declared and as actually read. 0 means the default.
	MaxZipTotal int64
	// MaxZipRatio bounds how much one entry may expand (uncompressed over
	// compressed size); entries under 1 MiB are exempt. 0 means the default.
	MaxZipRatio float64
	// Timeout bounds the parsing of one file (not the reading of r); on
	// expiry Extract fails with EINVALID "timed out". 0 means the default.
	Timeout time.Duration
	// PDFToText is the path of poppler's pdftotext. "" means look it up in
	// PATH on first use. When it is not found (or the path does not exist)
	// every PDF fails with EINVALID saying to install poppler-utils.
	// pdfinfo (titles) and pdfimages (telling scanned pages from blank
	// ones) are looked up beside it, then in PATH.
	PDFToText string
	// OCR configures text recognition (ExtractOCR); its zero value
	// recognises with the tools found in PATH.
	OCR OCR

	ocr       ocrSetup
	once      sync.Once
	pdftotext string // resolved path, "" when absent
	pdfinfo   string // pdfinfo next to it or in PATH, "" when absent
	pdfimages string // the same for pdfimages

	// hook, if non-nil, runs at the start of every parse, inside the
	// timeout and panic guard; tests use it to panic or block.
	hook func(ctx context.Context)
	// exited, if non-nil, runs when a parse's goroutine ends, also after
	// a timeout; tests use it to see that an abandoned parse stops.
	exited func()
}

// limits are an Extractor's limits with defaults applied.
type limits struct {
	maxInput   int64
	maxRunes   int
	zipEntries int
	zipTotal   int64
	zipRatio   float64
	timeout    time.Duration
}

func (x *Extractor) limits() limits {
	l := limits{
		maxInput:   x.MaxInputBytes,
		maxRunes:   x.MaxTextRunes,
		zipEntries: x.MaxZipEntries,
		zipTotal:   x.MaxZipTotal,
		zipRatio:   x.MaxZipRatio,
		timeout:    x.Timeout,
	}
	if l.maxInput <= 0 {
		l.maxInput = DefaultMaxInputBytes
	}
	if l.maxRunes <= 0 {
		l.maxRunes = DefaultMaxTextRunes
	}
	if l.zipEntries <= 0 {
		l.zipEntries = DefaultMaxZipEntries
	}
	if l.zipTotal <= 0 {
		l.zipTotal = DefaultMaxZipTotal
	}
	if l.zipRatio <= 0 {
		l.zipRatio = DefaultMaxZipRatio
	}
	if l.timeout <= 0 {
		l.timeout = DefaultTimeout
	}
	return l
}

// Supported reports whether mime or the extension of name names a format
// Extract knows. Extract may still recognise other files by their content.
func Supported(name, mime string) bool {
	return formatFor(name, mime) != fmtUnknown
}

// sniffLen is how much of the input content sniffing looks at.
const sniffLen = 3072

// Extract reads the file name of the given MIME type from r and returns its
// text. The format comes from mime, else the extension of name, else (when
// mime is empty or generic, like application/octet-stream) the content.
// An empty file gives an empty Body and no error, whatever its type. Errors:
// EINVALID for an unsupported format (wrapping ErrUnsupported), a corrupt,
// encrypted or hostile file, binary data declared as text, or a parse that
// outlived Timeout; ETOOLARGE for an input over MaxInputBytes;
// EUNAVAILABLE when reading r fails or ctx ends. Extract does not close r.
func (x *Extractor) Extract(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	return x.extract(ctx, name, mime, r, false)
}

// extract is Extract, recognising text in images and scanned pages when
// ocr is set (ExtractOCR).
func (x *Extractor) extract(ctx context.Context, name, mime string, r io.Reader, ocr bool) (hs.Text, error) {
	lim := x.limits()
	if s, ok := r.(interface{ Size() int64 }); ok && s.Size() > lim.maxInput {
		return hs.Text{}, tooLarge(name, lim.maxInput)
	}
	f := formatFor(name, mime)
	data, err := readLimited(ctx, r, sniffLen)
	if err != nil {
		return hs.Text{}, readError(name, err)
	}
	if len(data) == 0 {
		if f == fmtUnknown {
			return hs.Text{Extractor: "empty"}, nil
		}
		return hs.Text{Extractor: string(f)}, nil
	}
	if f == fmtUnknown && genericTypes[mediaType(mime)] {
		f = sniff(data)
	}
	if f == fmtUnknown {
		return hs.Text{}, unsupported(name, mime)
	}
	if len(data) == sniffLen && (f == fmtText || f == fmtMarkdown) && lim.maxInput > streamMin {
		more, err := readLimited(ctx, r, streamMin-sniffLen)
		if err != nil {
			return hs.Text{}, readError(name, err)
		}
		data = append(data, more...)
		if len(data) == streamMin {
			return x.streamText(ctx, name, f, data, r, lim)
		}
	}
	if len(data) == sniffLen {
		rest, err := readLimited(ctx, r, lim.maxInput+1-sniffLen)
		if err != nil {
			return hs.Text{}, readError(name, err)
		}
		data = append(data, rest...)
	}
	if int64(len(data)) > lim.maxInput {
		return hs.Text{}, tooLarge(name, lim.maxInput)
	}
	if f == fmtZip {
		if f = sniffZip(data); f == fmtUnknown {
			return hs.Text{}, unsupported(name, mime)
		}
	}
	return x.run(ctx, name, f, data, lim, ocr)
}

// run parses data under the timeout and turns a panic into EINVALID. On a
// timeout it returns at once and the result is dropped; every parser
// looks at its context between steps, and the tools it runs are killed
// with it, so the abandoned parse stops soon after.
func (x *Extractor) run(ctx context.Context, name string, f format, data []byte, lim limits, ocr bool) (hs.Text, error) {
	if ocr && (f == fmtPDF || f == fmtImage) {
		_, _, lim.timeout, _ = x.ocrLimits() // recognition takes longer than parsing
	}
	pctx, cancel := context.WithTimeout(ctx, lim.timeout)
	defer cancel()
	// Every format reads the poppler paths below, so every call passes the
	// once barrier (cheap after the first), not only PDFs.
	x.once.Do(x.findPoppler)
	j := &job{ctx: pctx, name: name, format: f, data: data, lim: lim, b: newBuilder(pctx, lim.maxRunes),
		extractor: string(f), pdftotext: x.pdftotext, pdfinfo: x.pdfinfo, pdfimages: x.pdfimages, ocr: ocr}
	if f == fmtPDF || f == fmtImage {
		j.rec = x.newRecognizer()
		if j.rec == nil {
			_, j.ocrErr = x.OCRStatus()
		}
		defer j.rec.close()
	}
	done := make(chan error, 1)
	go func() {
		if x.exited != nil {
			defer x.exited()
		}
		defer func() {
			if p := recover(); p != nil {
				done <- hs.WrapError(hs.EINVALID,
					fmt.Errorf("panic: %v\n%s", p, debug.Stack()),
					fmt.Sprintf("extract %s: %s parser crashed", name, f))
			}
		}()
		if x.hook != nil {
			x.hook(pctx)
		}
		done <- j.parse()
	}()
	var err error
	select {
	case err = <-done:
	case <-pctx.Done():
		err = pctx.Err()
	}
	switch {
	case ctx.Err() != nil:
		return hs.Text{}, hs.WrapError(hs.EUNAVAILABLE, ctx.Err(),
			fmt.Sprintf("extract %s: stopped", name))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return hs.Text{}, hs.Errorf(hs.EINVALID, "extract %s: timed out after %s", name, seconds(lim.timeout))
	case errors.Is(err, errTruncated):
		j.extractor += TruncatedSuffix
	case err != nil && hs.ErrorKind(err) == hs.EINTERNAL:
		return hs.Text{}, hs.WrapError(hs.EINVALID, err,
			fmt.Sprintf("extract %s: corrupt %s", name, f))
	case err != nil:
		return hs.Text{}, err
	}
	return hs.Text{Body: j.b.String(), Pages: j.b.pages, Title: j.title, Extractor: j.extractor}, nil
}

// findPoppler resolves PDFToText, and pdfinfo and pdfimages beside it or
// in PATH.
func (x *Extractor) findPoppler() {
	p := x.PDFToText
	if p == "" {
		p, _ = exec.LookPath("pdftotext")
	}
	if p == "" {
		return
	}
	if !isFile(p) {
		return
	}
	x.pdftotext = p
	beside := func(name string) string {
		if p := filepath.Join(filepath.Dir(x.pdftotext), name); isFile(p) {
			return p
		}
		p, _ := exec.LookPath(name)
		return p
	}
	x.pdfinfo, x.pdfimages = beside("pdfinfo"), beside("pdfimages")
}

// isFile reports whether path names something other than a directory.
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// readLimited reads up to n bytes of r, stopping early at EOF or when ctx
// ends.
func readLimited(ctx context.Context, r io.Reader, n int64) ([]byte, error) {
	var buf []byte
	if n > 0 && n <= sniffLen {
		buf = make([]byte, 0, n)
	}
	chunk := make([]byte, 32<<10)
	for int64(len(buf)) < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		want := min(int64(len(chunk)), n-int64(len(buf)))
		m, err := r.Read(chunk[:want])
		buf = append(buf, chunk[:m]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// seconds formats whole seconds as "60s" rather than "1m0s".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

func tooLarge(name string, limit int64) error {
	return hs.Errorf(hs.ETOOLARGE, "extract %s: too large: over %d bytes", name, limit)
}

func unsupported(name, mime string) error {
	if mime == "" {
		mime = "(none)"
	}
	return &hs.Error{Kind: hs.EINVALID, Err: ErrUnsupported,
		Message: fmt.Sprintf("extract %s: unsupported type %s", name, mime)}
}

func readError(name string, err error) error {
	return hs.WrapError(hs.EUNAVAILABLE, err, fmt.Sprintf("extract %s: read", name))
}
