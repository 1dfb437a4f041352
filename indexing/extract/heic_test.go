package extract_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"github.com/hybrid-search/hybridsearch/indexing/extract/ocrtest"
)

// HEIC photos of text, encoded at run time with libheif's heif-enc from
// the OCR tests' pages, are decoded with libheif's decoder and read.
func TestHEICOCR(t *testing.T) {
	m := ocrFiles(t)
	ocrtest.HEIFDecoder(t)
	two := ocrtest.HEIC(t, m.en, m.de)
	x := &extract.Extractor{}

	t.Run("one image", func(t *testing.T) {
		for _, tt := range []struct {
			name, mime string
			png        []byte
			words      string
			want       []string
		}{
			{"IMG_0001.HEIC", "image/heic", m.en, m.enWords, []string{"invoice", "bicycle", "wardrobe"}},
			{"rechnung.heif", "application/octet-stream", m.de, m.deWords, []string{"Rechnung", "Fahrrad", "Schrank"}},
			{"IMG_0002.heic", "", m.ja, m.jaWords, []string{"請求書", "引き出し"}},
		} {
			heic := ocrtest.HEIC(t, tt.png)
			_, err := x.Extract(context.Background(), tt.name, tt.mime, bytes.NewReader(heic))
			if !errors.Is(err, hs.ErrNeedsOCR) {
				t.Fatalf("%s: Extract = %v, want ErrNeedsOCR (recognition runs on the OCR lane)", tt.name, err)
			}
			text, err := x.ExtractOCR(context.Background(), tt.name, tt.mime, bytes.NewReader(heic))
			if err != nil {
				t.Fatalf("%s: ExtractOCR: %v", tt.name, err)
			}
			if text.Extractor != "ocr" || len(text.Pages) != 1 || !text.Pages[0].OCR || text.Pages[0].Number != 1 {
				t.Errorf("%s: Extractor %q, pages %+v; want ocr, one recognised page 1", tt.name, text.Extractor, text.Pages)
			}
			for _, w := range tt.want {
				if !strings.Contains(text.Body, w) {
					t.Errorf("%s: body %q lacks %q", tt.name, text.Body, w)
				}
			}
			png, err := x.ExtractOCR(context.Background(), "page.png", "image/png", bytes.NewReader(tt.png))
			if err != nil {
				t.Fatalf("the same page as PNG: %v", err)
			}
			t.Logf("%s (%d bytes): word accuracy %.2f (the same page as PNG, %d bytes: %.2f); read %q", tt.name, len(heic),
				ocrtest.WordAccuracy(tt.words, text.Body), len(tt.png), ocrtest.WordAccuracy(tt.words, png.Body), text.Body)
		}
	})

	t.Run("two images", func(t *testing.T) {
		text, err := x.ExtractOCR(context.Background(), "burst.heic", "image/heic", bytes.NewReader(two))
		if err != nil {
			t.Fatalf("ExtractOCR: %v", err)
		}
		if text.Extractor != "ocr" || len(text.Pages) != 2 || !text.Pages[0].OCR || !text.Pages[1].OCR {
			t.Fatalf("Extractor %q, pages %+v; want ocr, two recognised pages", text.Extractor, text.Pages)
		}
		for _, w := range []struct {
			word string
			page int
		}{{"bicycle", 1}, {"wardrobe", 1}, {"Fahrrad", 2}, {"Schrank", 2}} {
			if p := pageOf(text, w.word); p != w.page {
				t.Errorf("%q on page %d, want %d; body %q", w.word, p, w.page, text.Body)
			}
		}
		runes := []rune(text.Body)
		t.Logf("two-image HEIC (%d bytes): word accuracy %.2f (image 1, English), %.2f (image 2, German); read %q", len(two),
			ocrtest.WordAccuracy(m.enWords, string(runes[text.Pages[0].Start:text.Pages[0].End])),
			ocrtest.WordAccuracy(m.deWords, string(runes[text.Pages[1].Start:text.Pages[1].End])), text.Body)

		capped := &extract.Extractor{OCR: extract.OCR{MaxPages: 1}}
		text, err = capped.ExtractOCR(context.Background(), "burst.heic", "image/heic", bytes.NewReader(two))
		if err != nil {
			t.Fatalf("one-page cap: %v", err)
		}
		if len(text.Pages) != 1 || !strings.HasSuffix(text.Extractor, extract.TruncatedSuffix) || !strings.Contains(text.Body, "bicycle") {
			t.Errorf("one-page cap: Extractor %q, pages %+v, body %q; want the first image only, truncated", text.Extractor, text.Pages, text.Body)
		}
	})
}

// A grid photo (tiles of one picture, as iPhones save them) is one page.
func TestHEICGridOCR(t *testing.T) {
	m := ocrFiles(t)
	ocrtest.HEIFDecoder(t)
	grid := ocrtest.HEICGrid(t, m.en, m.de)
	text, err := (&extract.Extractor{}).ExtractOCR(context.Background(), "IMG_0005.HEIC", "image/heic", bytes.NewReader(grid))
	if err != nil {
		t.Fatalf("ExtractOCR: %v", err)
	}
	if text.Extractor != "ocr" || len(text.Pages) != 1 || !text.Pages[0].OCR {
		t.Errorf("Extractor %q, pages %+v; want ocr, one recognised page", text.Extractor, text.Pages)
	}
	for _, w := range []string{"bicycle", "wardrobe", "Fahrrad", "Schrank"} {
		if !strings.Contains(text.Body, w) {
			t.Errorf("body %q lacks %q", text.Body, w)
		}
	}
	t.Logf("2×1 grid HEIC (%d bytes): word accuracy %.2f; read %q", len(grid),
		ocrtest.WordAccuracy(m.enWords+" "+m.deWords, text.Body), text.Body)
}

// A corrupt or truncated HEIC fails with libheif's reason, within the
// page timeout even if the decoder were to hang.
func TestHEICCorrupt(t *testing.T) {
	m := ocrFiles(t)
	ocrtest.HEIFDecoder(t)
	photo := ocrtest.HEIC(t, m.en)
	garbage := append(slices.Clone(photo[:32]), bytes.Repeat([]byte{0xa5, 0x3c, 0x00, 0xff}, 2000)...)
	x := &extract.Extractor{OCR: extract.OCR{PageTimeout: 30 * time.Second}}
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"truncated.heic", photo[:len(photo)/2]},
		{"header-only.heic", photo[:32]},
		{"garbage.heic", garbage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := x.ExtractOCR(context.Background(), tt.name, "image/heic", bytes.NewReader(tt.data))
			msg := hs.ErrorMessage(err)
			if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(msg, "corrupt HEIC image: ") || strings.HasSuffix(msg, ": failed") {
				t.Errorf("ExtractOCR = %v, want EINVALID corrupt HEIC image: <libheif's reason>", err)
			}
			t.Logf("%s (%d bytes): %q after %s", tt.name, len(tt.data), msg, time.Since(start).Round(time.Millisecond))
		})
	}
}

// decoderScript writes an executable shell script named name into dir.
func decoderScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A decoder that hangs is stopped at the page timeout; one that fails for
// want of arguments or writes nothing is the machine's fault, retried
// (EUNAVAILABLE), not the file's.
func TestHEICDecoderFailures(t *testing.T) {
	ocrtest.Need(t)
	dir := t.TempDir()
	heic := []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic")
	for _, tt := range []struct {
		name, script string
		kind         string
		want         string
	}{
		{"hangs", "exec sleep 60", hs.EINVALID, "HEIC image: decoding timed out after 300ms"},
		{"usage", "echo 'Usage: heif-dec [options] <input-image> [output-image]' >&2; exit 5", hs.EUNAVAILABLE, "failed (exit status 5): Usage: heif-dec"},
		{"writes-nothing", "echo 'could not write image' >&2; exit 0", hs.EUNAVAILABLE, "wrote no image: could not write image"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dec := decoderScript(t, dir, tt.name, tt.script)
			x := &extract.Extractor{OCR: extract.OCR{HEIFDecoder: dec, PageTimeout: 300 * time.Millisecond}}
			start := time.Now()
			_, err := x.ExtractOCR(context.Background(), "IMG_0002.heic", "image/heic", bytes.NewReader(heic))
			if hs.ErrorKind(err) != tt.kind || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ExtractOCR = %v (%s), want %s …%s", err, hs.ErrorKind(err), tt.kind, tt.want)
			}
			t.Logf("%s: %v after %s", tt.name, err, time.Since(start).Round(time.Millisecond))
		})
	}
}

// The decoder is found under the names Debian's libheif-examples ships:
// heif-dec preferred (Debian 13, libheif 1.18.0 on, with heif-convert a
// link to it), heif-convert alone (Debian 12, libheif 1.15.1). Without
// either, a HEIC fails at once with the package to install, and the
// rest of OCR goes on.
func TestHEICDecoderNames(t *testing.T) {
	m := ocrFiles(t)
	dec := ocrtest.HEIFDecoder(t)
	photo := ocrtest.HEIC(t, m.en)
	link := func(t *testing.T, dir, name, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// pathWith is a PATH holding tesseract and the given decoder names.
	pathWith := func(t *testing.T, names map[string]string) string {
		dir := t.TempDir()
		link(t, dir, "tesseract", m.tools.Tesseract)
		for name, target := range names {
			link(t, dir, name, target)
		}
		return dir
	}
	wrong := decoderScript(t, t.TempDir(), "wrong", "echo 'heif-convert ran although heif-dec is installed' >&2; exit 1")

	for _, tt := range []struct {
		name  string
		names map[string]string
	}{
		{"heif-dec and heif-convert", map[string]string{"heif-dec": dec, "heif-convert": wrong}},
		{"heif-convert only", map[string]string{"heif-convert": dec}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", pathWith(t, tt.names))
			text, err := (&extract.Extractor{}).ExtractOCR(context.Background(), "IMG_0003.heic", "image/heic", bytes.NewReader(photo))
			if err != nil || !strings.Contains(text.Body, "bicycle") {
				t.Errorf("ExtractOCR = %q, %v; want the page read", text.Body, err)
			}
		})
	}

	t.Run("none", func(t *testing.T) {
		t.Setenv("PATH", pathWith(t, nil))
		x := &extract.Extractor{}
		if _, err := x.OCRStatus(); err != nil {
			t.Errorf("OCRStatus without a HEIC decoder = %v, want OCR available", err)
		}
		for _, ocr := range []bool{false, true} {
			extractFn := x.Extract
			if ocr {
				extractFn = x.ExtractOCR
			}
			_, err := extractFn(context.Background(), "IMG_0004.heic", "image/heic", bytes.NewReader(photo))
			msg := hs.ErrorMessage(err)
			if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(msg, "no HEIC decoder (install libheif-examples") {
				t.Errorf("OCR lane %v: %v, want EINVALID no HEIC decoder (install libheif-examples …)", ocr, err)
			}
			t.Logf("OCR lane %v: %q", ocr, msg)
		}
		if text, err := x.ExtractOCR(context.Background(), "invoice.png", "image/png", bytes.NewReader(m.en)); err != nil || !strings.Contains(text.Body, "bicycle") {
			t.Errorf("PNG without a HEIC decoder: %q, %v", text.Body, err)
		}
	})
}
