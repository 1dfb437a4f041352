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
	"encoding/binary"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// HEICGrid makes a HEIC whose primary image is a grid of the images
// stacked top to bottom, as phones save photos (an iPhone's is a grid of
// 512×512 tiles). The images must be PNGs of one size. heif-enc writes
// grids only from libheif 1.19.0 on (--cut-tiles; Debian 12 has
// 1.15.1), so the tiles are encoded as separate images by heif-enc and
// joined here: a "grid" item referring to them by "dimg" becomes the
// primary item and the tiles are hidden (the grid's data as libheif
// reads it: ImageGrid::parse in libheif/heif_context.cc, v1.15.1).
func HEICGrid(tb testing.TB, tiles ...[]byte) []byte {
	tb.Helper()
	file := HEIC(tb, tiles...)
	g, err := gridOf(file, len(tiles), pngHeight(tiles[0]), pngWidth(tiles[0]))
	if err != nil {
		tb.Fatalf("make a grid of heif-enc's output: %v", err)
	}
	return g
}

func pngWidth(p []byte) uint32  { return be.Uint32(p[16:]) }
func pngHeight(p []byte) uint32 { return be.Uint32(p[20:]) }

var be = binary.BigEndian

// isoBox is an ISO-BMFF box: its type and its content after the header.
type isoBox struct {
	typ  string
	body []byte
}

// parseBoxes splits b into the boxes it holds.
func parseBoxes(b []byte) ([]isoBox, error) {
	var out []isoBox
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, fmt.Errorf("short box header")
		}
		n := be.Uint32(b)
		if n < 8 || int(n) > len(b) {
			return nil, fmt.Errorf("box %q of size %d", b[4:8], n)
		}
		out = append(out, isoBox{string(b[4:8]), b[8:n]})
		b = b[n:]
	}
	return out, nil
}

// boxBytes is the box of type typ holding the parts.
func boxBytes(typ string, parts ...[]byte) []byte {
	n := 8
	for _, p := range parts {
		n += len(p)
	}
	out := be.AppendUint32(nil, uint32(n))
	out = append(out, typ...)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// gridOf rewrites the heif-enc output file (items 1…n, each a w×h tile;
// iloc version 0 with 4-byte offsets, lengths and base offsets; no iref)
// so that item n+1, a grid of n rows and one column, is the primary item.
func gridOf(file []byte, n int, h, w uint32) ([]byte, error) {
	top, err := parseBoxes(file)
	if err != nil {
		return nil, err
	}
	if len(top) != 3 || top[0].typ != "ftyp" || top[1].typ != "meta" || top[2].typ != "mdat" {
		return nil, fmt.Errorf("want ftyp, meta, mdat; have %v", top)
	}
	metaBody := top[1].body
	kids, err := parseBoxes(metaBody[4:])
	if err != nil {
		return nil, err
	}
	grid := uint16(n + 1)
	// The grid's descriptor: version 0, 16-bit sizes, rows-1, columns-1.
	desc := []byte{0, 0, byte(n - 1), 0}
	desc = be.AppendUint16(desc, uint16(w))
	desc = be.AppendUint16(desc, uint16(h*uint32(n)))

	var iloc isoBox
	var out [][]byte
	ilocAt := -1
	for _, k := range kids {
		switch k.typ {
		case "pitm":
			k.body = be.AppendUint16([]byte{0, 0, 0, 0}, grid)
		case "iloc":
			iloc, ilocAt = k, len(out)
			continue // written below, once the offsets are known
		case "iinf":
			if k.body[0] != 0 || int(be.Uint16(k.body[4:])) != n {
				return nil, fmt.Errorf("iinf version %d with %d items, want 0 and %d", k.body[0], be.Uint16(k.body[4:]), n)
			}
			infes, err := parseBoxes(k.body[6:])
			if err != nil {
				return nil, err
			}
			body := be.AppendUint16([]byte{0, 0, 0, 0}, uint16(n+1))
			for _, e := range infes {
				e.body = append([]byte(nil), e.body...)
				e.body[3] |= 1 // hidden: a tile, not a picture of its own
				body = append(body, boxBytes("infe", e.body)...)
			}
			infe := be.AppendUint16([]byte{2, 0, 0, 0}, grid)
			infe = append(infe, 0, 0, 'g', 'r', 'i', 'd', 0)
			k.body = append(body, boxBytes("infe", infe)...)
		case "iprp":
			props, err := parseBoxes(k.body)
			if err != nil || len(props) != 2 || props[0].typ != "ipco" || props[1].typ != "ipma" {
				return nil, fmt.Errorf("iprp: want ipco, ipma (%v)", err)
			}
			ipco, err := parseBoxes(props[0].body)
			if err != nil {
				return nil, err
			}
			ispe := be.AppendUint32(be.AppendUint32([]byte{0, 0, 0, 0}, w), h*uint32(n))
			ipcoBody := append(append([]byte(nil), props[0].body...), boxBytes("ispe", ispe)...)
			ipma := props[1].body
			if ipma[0] != 0 || ipma[3]&1 != 0 || int(be.Uint32(ipma[4:])) != n {
				return nil, fmt.Errorf("ipma version %d flags %d with %d items, want 0, 0 and %d", ipma[0], ipma[3], be.Uint32(ipma[4:]), n)
			}
			ipmaBody := be.AppendUint32(append([]byte(nil), ipma[:4]...), uint32(n+1))
			ipmaBody = append(ipmaBody, ipma[8:]...)
			ipmaBody = be.AppendUint16(ipmaBody, grid)
			ipmaBody = append(ipmaBody, 1, byte(len(ipco)+1))
			k.body = append(boxBytes("ipco", ipcoBody), boxBytes("ipma", ipmaBody)...)
		}
		out = append(out, boxBytes(k.typ, k.body))
	}
	// iref: the grid's tiles, top to bottom.
	dimg := be.AppendUint16(be.AppendUint16(nil, grid), uint16(n))
	for i := 1; i <= n; i++ {
		dimg = be.AppendUint16(dimg, uint16(i))
	}
	out = append(out, boxBytes("iref", []byte{0, 0, 0, 0}, boxBytes("dimg", dimg)))

	// iloc, with every base offset moved by what meta grew, and the grid's
	// descriptor appended to mdat.
	b := iloc.body
	if ilocAt < 0 || len(b) < 8 || b[0] != 0 || b[4] != 0x44 || b[5] != 0x40 || int(be.Uint16(b[6:])) != n {
		return nil, fmt.Errorf("iloc version %d sizes %x %x with %d items, want 0, 44 40 and %d", b[0], b[4], b[5], be.Uint16(b[6:]), n)
	}
	ilocLen := 8 + len(b) + 2 + 2 + 4 + 2 + 8
	metaLen := 8 + 4 + ilocLen
	for _, o := range out {
		metaLen += len(o)
	}
	delta := uint32(metaLen - (8 + len(metaBody)))
	body := be.AppendUint16(append([]byte(nil), b[:6]...), uint16(n+1))
	rest := b[8:]
	for range n {
		if len(rest) < 10 || len(rest) < 10+8*int(be.Uint16(rest[8:])) {
			return nil, fmt.Errorf("short iloc")
		}
		extents := int(be.Uint16(rest[8:]))
		item := append([]byte(nil), rest[:10+8*extents]...)
		be.PutUint32(item[4:], be.Uint32(item[4:])+delta)
		body = append(body, item...)
		rest = rest[10+8*extents:]
	}
	mdatStart := uint32(len(top[0].body)+8) + uint32(metaLen)
	descAt := mdatStart + 8 + uint32(len(top[2].body))
	body = be.AppendUint16(body, grid)
	body = append(body, 0, 0)
	body = be.AppendUint32(body, descAt)
	body = append(body, 0, 1)
	body = be.AppendUint32(be.AppendUint32(body, 0), uint32(len(desc)))

	metaKids := append(append(slices.Clone(out[:ilocAt]), boxBytes("iloc", body)), out[ilocAt:]...)
	meta := boxBytes("meta", append([][]byte{metaBody[:4]}, metaKids...)...)
	if len(meta) != metaLen {
		return nil, fmt.Errorf("meta is %d bytes, reckoned %d", len(meta), metaLen)
	}
	res := boxBytes("ftyp", top[0].body)
	res = append(res, meta...)
	return append(res, boxBytes("mdat", top[2].body, desc)...), nil
}
