package extract_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"github.com/hybrid-search/hybridsearch/indexing/extract/ocrtest"
)

// ocrMaterial is made once per test binary: three photos of text (English,
// German, Japanese) and a page printed with a text layer.
type ocrMaterial struct {
	tools         ocrtest.Tools
	en, de, ja    []byte // PNG
	textPDF       []byte
	enWords       string
	deWords       string
	jaWords       string
	textPageWords string
}

var (
	materialOnce sync.Once
	material     ocrMaterial
)

func ocrFiles(t *testing.T) *ocrMaterial {
	t.Helper()
	tools := ocrtest.Need(t)
	materialOnce.Do(func() {
		m := &material
		m.tools = tools
		m.enWords = "The invoice for the bicycle is in the wardrobe"
		m.deWords = "Die Rechnung für das Fahrrad liegt im Schrank"
		m.jaWords = "請求書は机の引き出しにあります"
		m.textPageWords = "Quarterly report of the lighthouse keepers"
		m.en = tools.PNG(t, ocrtest.PageHTML(m.enWords), 900, 160)
		m.de = tools.PNG(t, ocrtest.PageHTML(m.deWords), 900, 160)
		m.ja = tools.PNG(t, ocrtest.PageHTML(m.jaWords), 900, 160)
		m.textPDF = tools.TextPDF(t, ocrtest.PageHTML(m.textPageWords))
	})
	if material.en == nil {
		t.Fatal("OCR material was not made (see the first test's failure)")
	}
	return &material
}

func TestOCRImages(t *testing.T) {
	m := ocrFiles(t)
	x := &extract.Extractor{}
	if _, err := x.OCRStatus(); err != nil {
		t.Fatalf("OCRStatus: %v", err)
	}
	for _, tt := range []struct {
		name, mime string
		data       []byte
		want       []string
	}{
		{"invoice.png", "image/png", m.en, []string{"invoice", "bicycle", "wardrobe"}},
		{"rechnung.png", "image/png", m.de, []string{"Rechnung", "Fahrrad", "Schrank"}},
		{"seikyu.png", "", m.ja, []string{"請求書", "引き出し"}},
		{"invoice.webp", "image/webp", m.tools.Image(t, ocrtest.PageHTML(m.enWords), 900, 160, "webp"), []string{"invoice", "wardrobe"}},
		{"rechnung.jpg", "image/jpeg", m.tools.Image(t, ocrtest.PageHTML(m.deWords), 900, 160, "jpeg"), []string{"Rechnung", "Schrank"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := x.Extract(context.Background(), tt.name, tt.mime, bytes.NewReader(tt.data))
			if !errors.Is(err, hs.ErrNeedsOCR) {
				t.Fatalf("Extract = %v, want ErrNeedsOCR (recognition runs on the OCR lane)", err)
			}
			text, err := x.ExtractOCR(context.Background(), tt.name, tt.mime, bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("ExtractOCR: %v", err)
			}
			if text.Extractor != "ocr" || len(text.Pages) != 1 || !text.Pages[0].OCR || text.Pages[0].Number != 1 {
				t.Errorf("Extractor %q, pages %+v; want ocr, one recognised page 1", text.Extractor, text.Pages)
			}
			for _, w := range tt.want {
				if !strings.Contains(text.Body, w) {
					t.Errorf("body %q lacks %q", text.Body, w)
				}
			}
		})
	}
}

func TestOCRScannedAndMixedPDF(t *testing.T) {
	m := ocrFiles(t)
	x := &extract.Extractor{}
	scan := m.tools.ScanPDF(t, m.en, m.de)
	mixed := m.tools.Join(t, m.textPDF, m.tools.ScanPDF(t, m.ja))

	text, err := x.ExtractOCR(context.Background(), "scan.pdf", "application/pdf", bytes.NewReader(scan))
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	if text.Extractor != "pdftotext+ocr" || len(text.Pages) != 2 || !text.Pages[0].OCR || !text.Pages[1].OCR {
		t.Fatalf("scan: Extractor %q, pages %+v; want pdftotext+ocr, 2 recognised pages", text.Extractor, text.Pages)
	}
	if p := pageOf(text, "bicycle"); p != 1 {
		t.Errorf("scan: \"bicycle\" on page %d, want 1; body %q", p, text.Body)
	}
	if p := pageOf(text, "Fahrrad"); p != 2 {
		t.Errorf("scan: \"Fahrrad\" on page %d, want 2; body %q", p, text.Body)
	}

	if _, err := x.Extract(context.Background(), "mixed.pdf", "application/pdf", bytes.NewReader(mixed)); !errors.Is(err, hs.ErrNeedsOCR) {
		t.Fatalf("mixed: Extract = %v, want ErrNeedsOCR", err)
	}
	text, err = x.ExtractOCR(context.Background(), "mixed.pdf", "application/pdf", bytes.NewReader(mixed))
	if err != nil {
		t.Fatalf("mixed: %v", err)
	}
	var ocr []bool
	for _, p := range text.Pages {
		ocr = append(ocr, p.OCR)
	}
	if len(ocr) < 2 || ocr[0] || !ocr[len(ocr)-1] {
		t.Fatalf("mixed: recognised pages %v, want the printed page as text and the scanned one recognised; pages %+v", ocr, text.Pages)
	}
	if p := pageOf(text, "lighthouse"); p != 1 {
		t.Errorf("mixed: \"lighthouse\" on page %d, want 1", p)
	}
	if p := pageOf(text, "請求書"); p != len(ocr) {
		t.Errorf("mixed: \"請求書\" on page %d, want %d; body %q", p, len(ocr), text.Body)
	}

	// A text-only PDF never goes to the OCR lane.
	if text, err := x.Extract(context.Background(), "text.pdf", "application/pdf", bytes.NewReader(m.textPDF)); err != nil || !strings.Contains(text.Body, "lighthouse") {
		t.Errorf("text pdf: %q, %v", text.Body, err)
	}
}

// A 500-page scan is recognised up to the page cap and marked truncated;
// a corrupt image fails with the reason; a page that outlives its timeout
// stays empty.
func TestOCRLimits(t *testing.T) {
	m := ocrFiles(t)
	tiny := m.tools.PNG(t, ocrtest.PageHTML("page"), 200, 60)
	pages := make([][]byte, 500)
	for i := range pages {
		pages[i] = tiny
	}
	big := m.tools.ScanPDF(t, pages...)
	x := &extract.Extractor{OCR: extract.OCR{MaxPages: 3}}
	start := time.Now()
	text, err := x.ExtractOCR(context.Background(), "big.pdf", "application/pdf", bytes.NewReader(big))
	if err != nil {
		t.Fatalf("500-page scan: %v", err)
	}
	recognised := 0
	for _, p := range text.Pages {
		if p.OCR {
			recognised++
		}
	}
	if recognised != 3 || !strings.HasSuffix(text.Extractor, extract.TruncatedSuffix) {
		t.Errorf("500-page scan: %d pages recognised, extractor %q; want 3 and truncated", recognised, text.Extractor)
	}
	t.Logf("500-page scan with a 3-page cap took %s", time.Since(start).Round(time.Millisecond))

	corrupt := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0xff}, 300)...)
	_, err = x.ExtractOCR(context.Background(), "broken.png", "image/png", bytes.NewReader(corrupt))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "corrupt image") {
		t.Errorf("corrupt image: %v, want EINVALID corrupt image", err)
	}

	slow := &extract.Extractor{OCR: extract.OCR{PageTimeout: time.Millisecond}}
	_, err = slow.ExtractOCR(context.Background(), "scan.pdf", "application/pdf", bytes.NewReader(m.tools.ScanPDF(t, m.en)))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "OCR failed on all 1 pages") {
		t.Errorf("page timeout: %v, want EINVALID OCR failed on all pages", err)
	}

	off := &extract.Extractor{OCR: extract.OCR{Tesseract: "/nonexistent/tesseract"}}
	if _, err := off.OCRStatus(); err == nil || !strings.HasPrefix(err.Error(), "OCR unavailable: ") {
		t.Errorf("OCRStatus without tesseract = %v, want OCR unavailable: <reason>", err)
	}
	_, err = off.Extract(context.Background(), "invoice.png", "image/png", bytes.NewReader(m.en))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "OCR unavailable") {
		t.Errorf("image without OCR: %v, want EINVALID OCR unavailable", err)
	}
	// A scanned PDF without OCR is indexed for what text it has; one with
	// no text at all fails, saying what is missing.
	mixed := m.tools.Join(t, m.textPDF, big)
	if text, err := off.Extract(context.Background(), "mixed.pdf", "application/pdf", bytes.NewReader(mixed)); err != nil || !strings.Contains(text.Body, "lighthouse") {
		t.Errorf("mixed pdf without OCR: %q, %v; want its printed page", text.Body, err)
	}
	_, err = off.Extract(context.Background(), "scan.pdf", "application/pdf", bytes.NewReader(big))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "image-only pdf: OCR unavailable: tesseract not found (install tesseract-ocr)") {
		t.Errorf("scan without OCR: %v, want EINVALID naming tesseract", err)
	}
}

// TestOCRScannedPDFSaysWhatIsMissing: an image-only PDF that cannot be
// recognised fails with EINVALID naming the missing tool and its package
// (the file's state shows it) instead of "no text to index"; a PDF of
// blank pages and one with OCR turned off still have no text to index.
func TestOCRScannedPDFSaysWhatIsMissing(t *testing.T) {
	m := ocrFiles(t)
	scan := m.tools.ScanPDF(t, m.en)
	noRasteriser := &extract.Extractor{OCR: extract.OCR{PDFToPPM: "/nonexistent/pdftoppm"}}
	_, err := noRasteriser.Extract(context.Background(), "scan.pdf", "application/pdf", bytes.NewReader(scan))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "image-only pdf needs pdftoppm") || !strings.Contains(err.Error(), "install poppler-utils") {
		t.Errorf("scan without pdftoppm: %v, want EINVALID naming pdftoppm and poppler-utils", err)
	}
	blank := pdfFixture(t, "", false, []string{})
	for _, x := range []*extract.Extractor{noRasteriser, {OCR: extract.OCR{Tesseract: "/nonexistent/tesseract"}}} {
		if text, err := x.Extract(context.Background(), "blank.pdf", "application/pdf", bytes.NewReader(blank)); err != nil || strings.TrimSpace(text.Body) != "" {
			t.Errorf("blank pdf: %q, %v; want no text and no error", text.Body, err)
		}
	}
	if text, err := (&extract.Extractor{OCR: extract.OCR{Off: true}}).Extract(context.Background(), "scan.pdf", "application/pdf", bytes.NewReader(scan)); err != nil || strings.TrimSpace(text.Body) != "" {
		t.Errorf("scan with OCR off: %q, %v; want no text and no error, as before", text.Body, err)
	}
}

// pageOf is the page holding word, or 0.
func pageOf(t hs.Text, word string) int {
	i := strings.Index(t.Body, word)
	if i < 0 {
		return 0
	}
	r := len([]rune(t.Body[:i]))
	for _, p := range t.Pages {
		if p.Start <= r && r < p.End {
			return p.Number
		}
	}
	return 0
}
