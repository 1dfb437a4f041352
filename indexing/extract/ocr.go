package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	hs "github.com/hybrid-search/hybridsearch"
)

// Defaults of OCR's zero fields.
const (
	DefaultOCRPageTimeout = 2 * time.Minute
	DefaultOCRMaxPages    = 500
	DefaultOCRTimeout     = 2 * time.Hour
	DefaultOCRDPI         = 150
)

// DefaultOCRLanguages are always recognised, besides OCR.Languages, when
// their tesseract data is installed.
var DefaultOCRLanguages = []string{"eng", "deu", "jpn"}

// OCR configures text recognition with tesseract: images, and the pages
// of a PDF without a text layer (rasterised with poppler's pdftoppm).
type OCR struct {
	// Off turns recognition off: images are unsupported and PDF pages
	// without text stay empty.
	Off bool
	// Tesseract and PDFToPPM are the tools' paths; "" looks them up in
	// PATH (pdftoppm beside pdftotext first). HEIFDecoder is libheif's
	// decoder, which HEIC photos are decoded with; "" looks up heif-dec,
	// then heif-convert (see heifDecoderNames). Without it HEIC photos
	// fail, saying which package to install.
	Tesseract, PDFToPPM, HEIFDecoder string
	// Languages are tesseract language codes recognised besides
	// DefaultOCRLanguages; those not installed are left out and named by
	// OCRStatus. Change them later with SetOCRLanguages.
	Languages []string
	// PageTimeout bounds the recognition of one page (rasterising
	// included); a page that outlives it stays empty. MaxPages caps the
	// pages recognised in one file; those past it stay empty and the
	// Text is marked truncated. Timeout bounds a whole file's extraction
	// when it recognises text (instead of Extractor.Timeout). DPI is the
	// rasterising resolution.
	PageTimeout time.Duration
	MaxPages    int
	Timeout     time.Duration
	DPI         int
}

// ocrTools are the resolved OCR tools; err says why OCR is unavailable.
type ocrTools struct {
	tesseract, pdftoppm, heif string
	pdfimages                 string   // lists a PDF's images; "" treats every page without text as scanned
	installed                 []string // tesseract --list-langs
	err                       error
}

// ocrSetup resolves the tools once.
type ocrSetup struct {
	once  sync.Once
	tools ocrTools
	mu    sync.Mutex
	langs []string // from SetOCRLanguages; nil means OCR.Languages
}

// errNeedsOCR ends an Extract call whose file needs recognition; the
// caller runs ExtractOCR for it on the OCR lane.
func needsOCR(name string) error {
	return hs.WrapError(hs.EUNAVAILABLE, hs.ErrNeedsOCR,
		fmt.Sprintf("extract %s: needs OCR", name))
}

// ExtractOCR is Extract that also recognises text in images and in the
// pages of a PDF that have no text layer, each page within
// OCR.PageTimeout and the whole file within OCR.Timeout. Recognised pages
// are marked (Page.OCR) and Text.Extractor ends in "+ocr" ("ocr" for an
// image). Extract, given such a file, fails with an error that wraps
// hs.ErrNeedsOCR instead, so recognition can run apart from
// other work; it does so only when OCR is available (OCRStatus).
func (x *Extractor) ExtractOCR(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	return x.extract(ctx, name, mime, r, true)
}

// SetOCRLanguages replaces OCR.Languages; safe while extractions run.
func (x *Extractor) SetOCRLanguages(langs []string) {
	x.ocr.mu.Lock()
	defer x.ocr.mu.Unlock()
	x.ocr.langs = slices.Clone(langs)
	if x.ocr.langs == nil {
		x.ocr.langs = []string{}
	}
}

// OCRStatus returns the languages recognised, and an error that starts
// with "OCR unavailable: " when recognition cannot run, or names the
// requested languages that are not installed.
func (x *Extractor) OCRStatus() ([]string, error) {
	t := x.ocrTools()
	if t.err != nil {
		return nil, t.err
	}
	langs, missing := x.ocrLangs(t)
	if len(langs) == 0 {
		return nil, hs.Errorf(hs.EUNAVAILABLE, "OCR unavailable: no tesseract language data installed for %s", strings.Join(missing, ", ")).WithCode(hs.ComponentOCRNoLanguages)
	}
	if len(missing) > 0 {
		// A note, not a failure: the other languages are recognised.
		return langs, &hs.ComponentNote{Code: hs.ComponentOCRLanguagesMissing, Detail: missing,
			Message: fmt.Sprintf("OCR languages not installed (install tesseract-ocr-<code>): %s; recognising %s", strings.Join(missing, ", "), strings.Join(langs, "+"))}
	}
	return langs, nil
}

func (x *Extractor) ocrTools() ocrTools {
	x.ocr.once.Do(func() { x.ocr.tools = x.findOCR() })
	return x.ocr.tools
}

// heifDecoderNames are the names libheif's decoder is installed under,
// the current one first. libheif 1.18.0 renamed heif-convert to heif-dec
// and installs heif-convert as a symbolic link to it
// (strukturag/libheif, examples/CMakeLists.txt at v1.18.0, v1.19.8 and
// v1.23.1). Debian 13's libheif-examples (1.23.6-2~deb13u1; 1.19.8 at
// release) ships /usr/bin/heif-dec and /usr/bin/heif-convert -> heif-dec;
// Debian 12's (1.15.1-1+deb12u1, the Docker image's) only heif-convert.
var heifDecoderNames = []string{"heif-dec", "heif-convert"}

// findOCR resolves tesseract, pdftoppm and libheif's decoder and lists
// the installed languages.
func (x *Extractor) findOCR() ocrTools {
	if x.OCR.Off {
		return ocrTools{err: hs.Errorf(hs.EUNAVAILABLE, "OCR unavailable: turned off").WithCode(hs.ComponentOCROff)}
	}
	var t ocrTools
	look := func(set, name string) string {
		if set != "" {
			if st, err := os.Stat(set); err == nil && !st.IsDir() {
				return set
			}
			return ""
		}
		p, _ := exec.LookPath(name)
		return p
	}
	t.tesseract = look(x.OCR.Tesseract, "tesseract")
	if t.tesseract == "" {
		t.err = hs.Errorf(hs.EUNAVAILABLE, "OCR unavailable: tesseract not found (install tesseract-ocr)").WithCode(hs.ComponentOCRUnavailable)
		return t
	}
	t.pdftoppm = x.OCR.PDFToPPM
	if t.pdftoppm == "" {
		x.once.Do(x.findPoppler)
		if x.pdftotext != "" {
			if p := filepath.Join(filepath.Dir(x.pdftotext), "pdftoppm"); look(p, "") != "" {
				t.pdftoppm = p
			}
		}
	}
	t.pdftoppm = look(t.pdftoppm, "pdftoppm")
	if t.pdftoppm != "" {
		t.pdfimages = look(filepath.Join(filepath.Dir(t.pdftoppm), "pdfimages"), "")
	}
	if x.OCR.HEIFDecoder != "" {
		t.heif = look(x.OCR.HEIFDecoder, "")
	} else {
		for _, n := range heifDecoderNames {
			if t.heif = look("", n); t.heif != "" {
				break
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, t.tesseract, "--list-langs").CombinedOutput()
	if err != nil {
		t.err = hs.Errorf(hs.EUNAVAILABLE, "OCR unavailable: tesseract --list-langs: %v", err).WithCode(hs.ComponentOCRUnavailable)
		return t
	}
	for i, line := range strings.Split(string(out), "\n") {
		if l := strings.TrimSpace(line); i > 0 && l != "" && l != "osd" && !strings.Contains(l, " ") {
			t.installed = append(t.installed, l)
		}
	}
	return t
}

// ocrLangs returns the installed languages to recognise and the requested
// ones that are missing.
func (x *Extractor) ocrLangs(t ocrTools) (langs, missing []string) {
	x.ocr.mu.Lock()
	extra := x.ocr.langs
	if extra == nil {
		extra = x.OCR.Languages
	}
	x.ocr.mu.Unlock()
	for _, l := range append(slices.Clone(DefaultOCRLanguages), extra...) {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || slices.Contains(langs, l) || slices.Contains(missing, l):
		case slices.Contains(t.installed, l):
			langs = append(langs, l)
		default:
			missing = append(missing, l)
		}
	}
	return langs, missing
}

// ocrLimits are OCR's limits with defaults applied.
func (x *Extractor) ocrLimits() (pageTimeout time.Duration, maxPages int, timeout time.Duration, dpi int) {
	pageTimeout, maxPages, timeout, dpi = x.OCR.PageTimeout, x.OCR.MaxPages, x.OCR.Timeout, x.OCR.DPI
	if pageTimeout <= 0 {
		pageTimeout = DefaultOCRPageTimeout
	}
	if maxPages <= 0 {
		maxPages = DefaultOCRMaxPages
	}
	if timeout <= 0 {
		timeout = DefaultOCRTimeout
	}
	if dpi <= 0 {
		dpi = DefaultOCRDPI
	}
	return
}

// recognizer is what one job needs to recognise text.
type recognizer struct {
	tools       ocrTools
	langs       string // "eng+deu+jpn"
	pageTimeout time.Duration
	maxPages    int
	dpi         int
	dir         string // temporary files, made on first use
}

// newRecognizer returns the job's recognizer, or nil when OCR is
// unavailable.
func (x *Extractor) newRecognizer() *recognizer {
	t := x.ocrTools()
	if t.err != nil {
		return nil
	}
	langs, _ := x.ocrLangs(t)
	if len(langs) == 0 {
		return nil
	}
	pt, mp, _, dpi := x.ocrLimits()
	return &recognizer{tools: t, langs: strings.Join(langs, "+"), pageTimeout: pt, maxPages: mp, dpi: dpi}
}

// ocrUnavailable is the error for an image when recognition cannot run.
func (j *job) ocrUnavailable() error {
	reason := "OCR unavailable"
	if j.ocrErr != nil {
		reason = hs.ErrorMessage(j.ocrErr)
	}
	return j.invalid("image: %s", reason)
}

// tempDir returns the job's directory for temporary files.
func (rc *recognizer) tempDir() (string, error) {
	if rc.dir == "" {
		d, err := os.MkdirTemp("", "extract-ocr-*")
		if err != nil {
			return "", hs.WrapError(hs.EUNAVAILABLE, err, "extract: OCR temp dir")
		}
		rc.dir = d
	}
	return rc.dir, nil
}

func (rc *recognizer) close() {
	if rc != nil && rc.dir != "" {
		os.RemoveAll(rc.dir)
	}
}

// image recognises the text of an image file: one page, one per page of
// a multi-page TIFF, or one per image of a HEIC holding several. A HEIC
// without a decoder fails at once, before it waits for the OCR lane.
func (j *job) image() error {
	if j.rec == nil {
		return j.ocrUnavailable()
	}
	heic := isHEIF(j.data)
	if heic && j.rec.tools.heif == "" {
		return j.invalid("HEIC image: no HEIC decoder (install libheif-examples for heif-dec or heif-convert)")
	}
	if !j.ocr {
		return needsOCR(j.name)
	}
	defer j.rec.close()
	dir, err := j.rec.tempDir()
	if err != nil {
		return err
	}
	src := filepath.Join(dir, "image")
	if err := os.WriteFile(src, j.data, 0o600); err != nil {
		return hs.WrapError(hs.EUNAVAILABLE, err, "extract: OCR temp file")
	}
	srcs := []string{src}
	if heic {
		if srcs, err = j.decodeHEIF(src, filepath.Join(dir, "heic")); err != nil {
			return err
		}
	}
	j.extractor = "ocr"
	n := 0
	for i, src := range srcs {
		if n >= j.rec.maxPages {
			return errTruncated
		}
		what := "image"
		if len(srcs) > 1 {
			what = fmt.Sprintf("HEIC image %d of %d", i+1, len(srcs))
		}
		pctx, cancel := context.WithTimeout(j.ctx, j.rec.pageTimeout)
		out := &capWriter{max: 4*j.lim.maxRunes + 4}
		err := j.tesseract(pctx, out, src)
		cancel()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && j.ctx.Err() == nil {
				return j.invalid("%s: recognition timed out after %s", what, seconds(j.rec.pageTimeout))
			}
			return err
		}
		pages := strings.Split(out.buf.String(), "\f")
		if len(pages) > 1 && strings.TrimSpace(pages[len(pages)-1]) == "" {
			pages = pages[:len(pages)-1]
		}
		for _, p := range pages {
			if n >= j.rec.maxPages {
				return errTruncated
			}
			n++
			if err := j.page(n, joinCJK(p), true); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeHEIF decodes the HEIC at src with libheif's decoder into PNGs
// named after base, within the page timeout, and returns them in order:
// base.png for one image, base-1.png, base-2.png, … when the file holds
// several top-level images (a grid, as iPhones write, is one image).
//
// The invocation "--quiet <input> <output.png>" suits every version
// Debian ships: libheif 1.15.1's heif-convert requires both file names,
// 1.18.0's heif-dec also takes "-o FILE" or derives the output name
// (strukturag/libheif, examples/heif_convert.cc at v1.15.1,
// examples/heif_dec.cc at v1.19.8 and v1.23.1). Their exit status is 1
// when the file cannot be read or decoded (the file's fault), 5 for bad
// arguments and, from 1.18.0, 10 when the input cannot be opened (ours);
// they exit 0 after printing their help for an unknown option and after
// "could not write image", so success is judged by the images written.
func (j *job) decodeHEIF(src, base string) ([]string, error) {
	ctx, cancel := context.WithTimeout(j.ctx, j.rec.pageTimeout)
	defer cancel()
	dec := j.rec.tools.heif
	stderr, err := j.run(ctx, &capWriter{max: 4 << 10}, dec, "--quiet", src, base+".png")
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded) && j.ctx.Err() == nil:
		return nil, j.invalid("HEIC image: decoding timed out after %s", seconds(j.rec.pageTimeout))
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return nil, j.invalid("corrupt HEIC image: %s", toolReason(stderr))
	case errors.As(err, &exit):
		return nil, hs.Errorf(hs.EUNAVAILABLE, "extract %s: %s failed (exit status %d): %s",
			j.name, filepath.Base(dec), exit.ExitCode(), toolReason(stderr))
	default:
		return nil, err
	}
	if _, err := os.Stat(base + ".png"); err == nil {
		return []string{base + ".png"}, nil
	}
	var imgs []string
	for i := 1; ; i++ {
		p := fmt.Sprintf("%s-%d.png", base, i)
		if _, err := os.Stat(p); err != nil {
			break
		}
		imgs = append(imgs, p)
	}
	if len(imgs) == 0 {
		return nil, hs.Errorf(hs.EUNAVAILABLE, "extract %s: %s wrote no image: %s",
			j.name, filepath.Base(dec), toolReason(stderr))
	}
	return imgs, nil
}

// page writes page n's text, marking it recognised when ocr is set.
func (j *job) page(n int, text string, ocr bool) error {
	j.b.startPage(n)
	if ocr {
		j.b.pages[len(j.b.pages)-1].OCR = true
	}
	err := j.b.raw(text)
	j.b.endPage()
	return err
}

// scannedPages returns which of the PDF's pages (text by pdftotext) are
// scanned: no text layer, and an image on the page (a blank page is left
// alone). Without pdfimages every page without text counts.
func (j *job) scannedPages(file string, pages []string) []bool {
	scanned := make([]bool, len(pages))
	some := false
	for i, p := range pages {
		scanned[i] = !hasText(p)
		some = some || scanned[i]
	}
	if !some {
		return scanned
	}
	withImage, ok := j.pagesWithImages(file, j.rec.tools.pdfimages)
	if !ok {
		return scanned // the rasteriser will say what is wrong, page by page
	}
	for i := range scanned {
		scanned[i] = scanned[i] && withImage[i+1]
	}
	return scanned
}

// pagesWithImages returns the pages (numbered from 1) on which pdfimages
// lists an image, and false when it cannot tell: no pdfimages, or it
// failed.
func (j *job) pagesWithImages(file, pdfimages string) (map[int]bool, bool) {
	if pdfimages == "" {
		return nil, false
	}
	out := &capWriter{max: 4 << 20}
	if err := j.tool(j.ctx, out, "pdf", pdfimages, "-list", file); err != nil || out.over {
		return nil, false
	}
	withImage := map[int]bool{}
	for line := range strings.SplitSeq(out.buf.String(), "\n") {
		var page int
		if _, err := fmt.Sscan(line, &page); err == nil {
			withImage[page] = true
		}
	}
	return withImage, true
}

// unrecognisable returns the error for a PDF without text whose pages
// cannot be recognised because a tool is missing: EINVALID naming the
// tool and its package, so that the file's state tells the admin what to
// install rather than "no text to index". It returns nil when OCR is
// turned off (the admin's choice: the pages stay empty) and when pdfimages
// finds no image (a blank PDF has nothing to recognise).
func (j *job) unrecognisable(file string) error {
	if hs.ErrorCode(j.ocrErr) == hs.ComponentOCROff {
		return nil
	}
	if withImage, ok := j.pagesWithImages(file, j.pdfimages); ok && len(withImage) == 0 {
		return nil
	}
	if j.rec != nil { // tesseract is there, the rasteriser is not
		return j.invalid("image-only pdf needs pdftoppm to be recognised (install poppler-utils)")
	}
	reason := "OCR unavailable"
	if j.ocrErr != nil {
		reason = hs.ErrorMessage(j.ocrErr)
	}
	return j.invalid("image-only pdf: %s", reason)
}

// ocrPages recognises the pages of the PDF at file marked in scanned, up
// to the page cap, each within the page timeout, filling them in and
// marking them in recognised. It reports whether pages were left out by
// the cap; a page whose recognition fails stays empty.
func (j *job) ocrPages(file string, pages []string, scanned, recognised []bool) (capped bool, err error) {
	dir, err := j.rec.tempDir()
	if err != nil {
		return false, err
	}
	done, failed := 0, 0
	var lastErr error
	for i := range pages {
		if !scanned[i] {
			continue
		}
		if done == j.rec.maxPages {
			capped = true
			break
		}
		done++
		text, err := j.ocrPage(file, dir, i+1)
		if j.ctx.Err() != nil {
			return false, j.ctx.Err()
		}
		if err != nil {
			failed++
			lastErr = err
			continue
		}
		pages[i], recognised[i] = text, true
	}
	if failed > 0 && failed == done {
		return false, j.invalid("OCR failed on all %d pages without text: %s", failed, hs.ErrorMessage(lastErr))
	}
	return capped, nil
}

// ocrPage rasterises page n of file and recognises it.
func (j *job) ocrPage(file, dir string, n int) (string, error) {
	ctx, cancel := context.WithTimeout(j.ctx, j.rec.pageTimeout)
	defer cancel()
	prefix := filepath.Join(dir, "page")
	num := fmt.Sprint(n)
	err := j.tool(ctx, &capWriter{max: 4 << 10}, "pdf page", j.rec.tools.pdftoppm,
		"-f", num, "-l", num, "-r", fmt.Sprint(j.rec.dpi), "-gray", "-png", "-singlefile", file, prefix)
	if err != nil {
		return "", fmt.Errorf("page %d: %w", n, err)
	}
	defer os.Remove(prefix + ".png")
	out := &capWriter{max: 4*j.lim.maxRunes + 4}
	if err := j.tesseract(ctx, out, prefix+".png"); err != nil {
		return "", fmt.Errorf("page %d: %w", n, err)
	}
	return joinCJK(strings.TrimRight(out.buf.String(), "\f\n ")), nil
}

// joinCJK removes the spaces tesseract puts between Chinese or Japanese
// characters ("請求 書 は" for "請求書は"), which the text never had.
func joinCJK(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		if r == ' ' && i > 0 && i+1 < len(rs) && isCJK(rs[i-1]) && isCJK(rs[i+1]) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isCJK reports whether r is a Han, kana or full-width character.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}

// tesseract recognises the image at src, writing the text to out. Page
// segmentation mode 4 (one column of text of varying sizes) reads photos
// of text and single-column scans more reliably than the automatic mode
// 3, which drops the edges of short lines; a two-column page is read
// across its columns.
// OMP_THREAD_LIMIT=1 keeps one recognition to one core: the OCR lane's
// worker count is the parallelism.
func (j *job) tesseract(ctx context.Context, out *capWriter, src string) error {
	return j.tool(ctx, out, "image", j.rec.tools.tesseract, src, "stdout", "-l", j.rec.langs, "--psm", "4")
}

// tool runs an OCR tool under ctx. A failure is EINVALID with the tool's
// own reason about what ("image", "pdf page"); a timeout returns ctx's
// error.
func (j *job) tool(ctx context.Context, out *capWriter, what, name string, args ...string) error {
	stderr, err := j.run(ctx, out, name, args...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return j.invalid("corrupt %s: %s", what, toolReason(stderr))
	}
	return err
}

// run runs an OCR tool under ctx, writing its output to out, and returns
// its error output (the first 4 KiB), with a *exec.ExitError when it
// failed; or ctx's error when ctx ended, EUNAVAILABLE when it could not
// run.
func (j *job) run(ctx context.Context, out *capWriter, name string, args ...string) (string, error) {
	stderr := &capWriter{max: 4 << 10}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return stderr.buf.String(), nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return "", hs.WrapError(hs.EUNAVAILABLE, err, fmt.Sprintf("extract %s: run %s", j.name, filepath.Base(name)))
	}
	return stderr.buf.String(), err
}

// toolReason picks the most telling line of a tool's error output.
func toolReason(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.Contains(strings.ToLower(l), "error") {
			return l
		}
	}
	if l := strings.TrimSpace(lines[0]); l != "" {
		return l
	}
	return "failed"
}

// hasText reports whether a page's text layer holds at least three
// letters or digits; pages with less are scanned (or blank) pages.
func hasText(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if n++; n >= 3 {
				return true
			}
		}
	}
	return false
}

// isHEIF reports whether data is an ISO-BMFF HEIF/HEIC image.
func isHEIF(data []byte) bool {
	if len(data) < 12 || !bytes.Equal(data[4:8], []byte("ftyp")) {
		return false
	}
	switch string(data[8:12]) {
	case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1":
		return true
	}
	return false
}
