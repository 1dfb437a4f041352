// Package ocrtest makes OCR test material at test time: photos of text
// rendered by headless chromium (any language its fonts cover),
// image-only PDFs made of them with img2pdf, PDFs with a text layer
// printed by chromium, PDFs joined with poppler's pdfunite, and HEIC
// photos encoded with libheif's heif-enc. Nothing binary is committed.
// The tools come from Debian (scripts/install-deps).
package ocrtest

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Tools are the paths of the programs the material is made and read with.
type Tools struct {
	Chromium, Img2PDF, PDFUnite, Tesseract, PDFToPPM string
}

// Need returns the tools, or ends tb: skipped with the missing package
// names, or failed when CI is set (CI installs them: scripts/install-deps).
func Need(tb testing.TB) Tools {
	tb.Helper()
	var t Tools
	var missing []string
	for _, x := range []struct {
		dst       *string
		names     []string
		debianPkg string
	}{
		{&t.Chromium, []string{"chromium", "chromium-browser"}, "chromium"},
		{&t.Img2PDF, []string{"img2pdf"}, "img2pdf"},
		{&t.PDFUnite, []string{"pdfunite"}, "poppler-utils"},
		{&t.PDFToPPM, []string{"pdftoppm"}, "poppler-utils"},
		{&t.Tesseract, []string{"tesseract"}, "tesseract-ocr"},
	} {
		for _, n := range x.names {
			if p, err := exec.LookPath(n); err == nil {
				*x.dst = p
				break
			}
		}
		if *x.dst == "" {
			missing = append(missing, x.debianPkg)
		}
	}
	if len(missing) > 0 {
		lack(tb, missing...)
	}
	return t
}

// lack ends tb for want of the Debian packages: skipped, or failed when
// CI is set (CI installs them: scripts/install-deps).
func lack(tb testing.TB, pkgs ...string) {
	tb.Helper()
	msg := "OCR material needs Debian packages " + strings.Join(pkgs, ", ") + " (scripts/install-deps installs them as root)"
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// HEIFDecoder returns the path of libheif's decoder (heif-dec since
// libheif 1.18.0, heif-convert before), or ends tb as Need does (Debian
// package libheif-examples).
func HEIFDecoder(tb testing.TB) string {
	tb.Helper()
	for _, n := range []string{"heif-dec", "heif-convert"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	lack(tb, "libheif-examples")
	return ""
}

// HEIC encodes the PNG images into one HEIC file, a top-level image
// each, with libheif's heif-enc (Debian libheif-examples; from Debian 13
// on it also needs the encoder plugin libheif-plugin-x265) at its
// default quality, as a phone would save photos.
func HEIC(tb testing.TB, pngs ...[]byte) []byte {
	tb.Helper()
	enc, err := exec.LookPath("heif-enc")
	if err != nil {
		lack(tb, "libheif-examples")
	}
	dir := tb.TempDir()
	var args []string
	for i, p := range pngs {
		name := filepath.Join(dir, fmt.Sprintf("p%d.png", i))
		if err := os.WriteFile(name, p, 0o600); err != nil {
			tb.Fatal(err)
		}
		args = append(args, name)
	}
	out := filepath.Join(dir, "photo.heic")
	run(tb, enc, append([]string{"-o", out}, args...)...)
	return read(tb, out)
}

// PageHTML is a white page with the lines as paragraphs in a large
// sans-serif font (Noto CJK covers Japanese).
func PageHTML(lines ...string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0;padding:16px 24px;background:#fff;color:#000;font:28px/1.3 'DejaVu Sans','Noto Sans CJK JP',sans-serif">`)
	for _, l := range lines {
		fmt.Fprintf(&b, `<p style="margin:0 0 12px 0">%s</p>`, html.EscapeString(l))
	}
	b.WriteString("</body></html>")
	return b.String()
}

// PNG renders page (HTML) to a width×height PNG with chromium.
func (t Tools) PNG(tb testing.TB, page string, width, height int) []byte {
	tb.Helper()
	return t.Image(tb, page, width, height, "png")
}

// viewportGap is what headless chromium's window adds to its viewport.
const viewportGap = 100

// Image renders page (HTML) to a width×height image with chromium, in
// the format its screenshot takes from the extension: png, jpeg or webp.
func (t Tools) Image(tb testing.TB, page string, width, height int, ext string) []byte {
	tb.Helper()
	dir := tb.TempDir()
	src := filepath.Join(dir, "page.html")
	if err := os.WriteFile(src, []byte(page), 0o600); err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, "page."+ext)
	// Headless chromium paints only its viewport, about 90 pixels less
	// than the window is high; the rest of the screenshot stays white.
	t.chromium(tb, dir, "--window-size="+fmt.Sprintf("%d,%d", width, height+viewportGap), "--screenshot="+out, "file://"+src)
	return read(tb, out)
}

// TextPDF prints page (HTML) to a PDF with a text layer.
func (t Tools) TextPDF(tb testing.TB, page string) []byte {
	tb.Helper()
	dir := tb.TempDir()
	src := filepath.Join(dir, "page.html")
	if err := os.WriteFile(src, []byte(page), 0o600); err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, "page.pdf")
	t.chromium(tb, dir, "--no-pdf-header-footer", "--print-to-pdf="+out, "file://"+src)
	return read(tb, out)
}

func (t Tools) chromium(tb testing.TB, dir string, args ...string) {
	tb.Helper()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	run(tb, t.Chromium, args...)
}

// ScanPDF makes an image-only PDF (no text layer) of the images, one per
// page; an image may repeat (a 500-page scan of one tiny page).
func (t Tools) ScanPDF(tb testing.TB, pages ...[]byte) []byte {
	tb.Helper()
	dir := tb.TempDir()
	files := map[*byte]string{}
	var args []string
	for _, p := range pages {
		name, ok := files[&p[0]]
		if !ok {
			name = filepath.Join(dir, fmt.Sprintf("p%d.png", len(files)))
			if err := os.WriteFile(name, p, 0o600); err != nil {
				tb.Fatal(err)
			}
			files[&p[0]] = name
		}
		args = append(args, name)
	}
	out := filepath.Join(dir, "scan.pdf")
	run(tb, t.Img2PDF, append(args, "-o", out)...)
	return read(tb, out)
}

// Join concatenates PDFs with pdfunite.
func (t Tools) Join(tb testing.TB, pdfs ...[]byte) []byte {
	tb.Helper()
	dir := tb.TempDir()
	var args []string
	for i, p := range pdfs {
		name := filepath.Join(dir, fmt.Sprintf("in%d.pdf", i))
		if err := os.WriteFile(name, p, 0o600); err != nil {
			tb.Fatal(err)
		}
		args = append(args, name)
	}
	out := filepath.Join(dir, "joined.pdf")
	run(tb, t.PDFUnite, append(args, out)...)
	return read(tb, out)
}

func run(tb testing.TB, name string, args ...string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s: %v\n%s", filepath.Base(name), err, stderr.Bytes())
	}
}

func read(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// WordAccuracy is the share of want's words (split at spaces; CJK text
// compared rune by rune) found in got, from 0 to 1, ignoring case and
// punctuation.
func WordAccuracy(want, got string) float64 {
	norm := func(s string) []string {
		var words []string
		for _, w := range strings.Fields(strings.ToLower(s)) {
			w = strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(".,;:!?\"'()。、「」", r) })
			if w == "" {
				continue
			}
			if isCJK(w) {
				for _, r := range w {
					if !strings.ContainsRune("。、「」", r) {
						words = append(words, string(r))
					}
				}
				continue
			}
			words = append(words, w)
		}
		return words
	}
	have := map[string]int{}
	for _, w := range norm(got) {
		have[w]++
	}
	ws := norm(want)
	if len(ws) == 0 {
		return 1
	}
	found := 0
	for _, w := range ws {
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	return float64(found) / float64(len(ws))
}

func isCJK(s string) bool {
	for _, r := range s {
		if r >= 0x3000 && r <= 0x9fff || r >= 0xf900 && r <= 0xfaff || r >= 0xff00 && r <= 0xffef {
			return true
		}
	}
	return false
}
