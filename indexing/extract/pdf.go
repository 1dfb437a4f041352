package extract

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// pdf extracts a PDF page by page with poppler's pdftotext, recording each
// page's span. Encrypted and corrupt files are EINVALID, and so is every
// PDF when pdftotext is missing or does not run: the error names the
// package to install. (A pure-Go parser used to stand in for a missing
// poppler; it read no PDF that poppler could not and fewer that it could,
// and poppler-utils is in the image.)
func (j *job) pdf() error {
	if !bytes.Contains(j.data[:min(len(j.data), 1024)], []byte("%PDF-")) {
		return j.invalid("corrupt pdf: no %%PDF header")
	}
	if j.pdftotext == "" {
		return j.invalid("pdf needs pdftotext, which is not installed (install poppler-utils)")
	}
	j.extractor = "pdftotext"
	return j.pdfPoppler()
}

// errPopplerStart says pdftotext could not be run at all.
var errPopplerStart = errors.New("pdftotext did not start")

// pdfPoppler runs pdftotext on a temporary copy of the file and splits its
// output into pages at form feeds. pdfinfo, when there is one, supplies
// Title.
func (j *job) pdfPoppler() error {
	tmp, err := os.CreateTemp("", "extract-*.pdf")
	if err != nil {
		return hs.WrapError(hs.EUNAVAILABLE, err, "extract: pdf temp file")
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(j.data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return hs.WrapError(hs.EUNAVAILABLE, err, "extract: pdf temp file")
	}
	// UTF-8 holds at most 4 bytes per rune; what is past the budget is
	// dropped while pdftotext runs on (the timeout still bounds it).
	out := &capWriter{max: 4*j.lim.maxRunes + 4}
	if err := j.poppler(out, j.pdftotext, "-enc", "UTF-8", "-eol", "unix", tmp.Name(), "-"); err != nil {
		if errors.Is(err, errPopplerStart) {
			return j.invalid("pdf needs a pdftotext that runs (install poppler-utils): %v", err)
		}
		return err
	}
	if j.pdfinfo != "" {
		info := &capWriter{max: 64 << 10}
		if j.poppler(info, j.pdfinfo, "-enc", "UTF-8", tmp.Name()) == nil {
			j.title = pdfInfoTitle(info.buf.String())
		}
	}
	pages := strings.Split(out.buf.String(), "\f")
	if len(pages) > 1 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1] // pdftotext ends every page with a form feed
	}
	recognised := make([]bool, len(pages))
	capped := false
	if j.rec != nil && j.rec.tools.pdftoppm != "" && !out.over {
		if scanned := j.scannedPages(tmp.Name(), pages); slices.Contains(scanned, true) {
			// Scanned pages are recognised on the OCR lane, not here.
			if !j.ocr {
				return needsOCR(j.name)
			}
			if capped, err = j.ocrPages(tmp.Name(), pages, scanned, recognised); err != nil {
				return err
			}
			j.extractor += "+ocr"
		}
	} else if !out.over && !slices.ContainsFunc(pages, hasText) {
		if err := j.unrecognisable(tmp.Name()); err != nil {
			return err
		}
	}
	for i, p := range pages {
		if err := j.page(i+1, p, recognised[i]); err != nil {
			return err
		}
	}
	if out.over || capped {
		return errTruncated
	}
	return nil
}

// poppler runs a poppler tool under the job's context, writing its output
// to out. A failure becomes EINVALID with poppler's own reason.
func (j *job) poppler(out *capWriter, name string, args ...string) error {
	stderr := &capWriter{max: 4 << 10}
	cmd := exec.CommandContext(j.ctx, name, args...)
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if cerr := j.ctx.Err(); cerr != nil {
		return cerr
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("%w: %s: %w", errPopplerStart, name, err)
	}
	reason := popplerReason(stderr.buf.String())
	if strings.Contains(strings.ToLower(reason), "password") || exit.ExitCode() == 3 {
		return j.invalid("encrypted pdf: %s", reason)
	}
	return j.invalid("corrupt pdf: %s", reason)
}

// popplerReason picks the most telling line of poppler's error output.
func popplerReason(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.Contains(l, "Error") {
			return l
		}
	}
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return "pdftotext failed"
}

// pdfInfoTitle reads the Title line of pdfinfo's output.
func pdfInfoTitle(info string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(line, "Title:"); ok {
			return strings.TrimSpace(clean(v))
		}
	}
	return ""
}

// capWriter keeps the first max bytes written to it and discards the rest,
// so a child process never blocks or dies on a full pipe.
type capWriter struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room < len(p) {
		w.over = true
		w.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return w.buf.Write(p)
}
