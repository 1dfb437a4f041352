package extract_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

// pdfExtractors are the PDF paths to test: poppler's pdftotext, when it
// is installed (scripts/install-deps installs poppler-utils).
func pdfExtractors(t *testing.T) []struct {
	name string
	x    *extract.Extractor
} {
	t.Helper()
	path, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	return []struct {
		name string
		x    *extract.Extractor
	}{{"pdftotext", &extract.Extractor{PDFToText: path}}}
}

func TestPDF(t *testing.T) {
	data := pdfFixture(t, "Prüfbericht 東京", false,
		[]string{"Grüße aus Köln", "zweite Zeile"},
		[]string{},
		[]string{"日本語のテキスト", "Seite drei"})
	wantPages := []string{"Grüße aus Köln\nzweite Zeile", "", "日本語のテキスト\nSeite drei"}
	for _, e := range pdfExtractors(t) {
		t.Run(e.name, func(t *testing.T) {
			got := mustExtract(t, e.x, "bericht.pdf", "application/pdf", data)
			if got.Extractor != e.name {
				t.Errorf("Extractor = %q, want %q", got.Extractor, e.name)
			}
			if got.Title != "Prüfbericht 東京" {
				t.Errorf("Title = %q, want %q", got.Title, "Prüfbericht 東京")
			}
			if len(got.Pages) != len(wantPages) {
				t.Fatalf("Pages = %+v, want %d pages; body:\n%s", got.Pages, len(wantPages), got.Body)
			}
			for i, want := range wantPages {
				if p := strings.TrimSpace(pageText(got, got.Pages[i])); p != want {
					t.Errorf("page %d = %q, want %q", i+1, p, want)
				}
			}
		})
	}
}

func TestPDFTitleWithoutPdfinfo(t *testing.T) {
	path, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext not installed")
	}
	link := filepath.Join(t.TempDir(), "pdftotext") // no pdfinfo beside it
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	got := mustExtract(t, &extract.Extractor{PDFToText: link}, "a.pdf", "application/pdf", pdfFixture(t, "Grüße", false, []string{"x"}))
	if got.Title != "Grüße" || got.Extractor != "pdftotext" {
		t.Errorf("Extract = title %q by %q, want Grüße by pdftotext", got.Title, got.Extractor)
	}
}

func TestPDFErrors(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		wantMsg string
	}{
		{"garbage", []byte("this is not a PDF at all, just some words"), "corrupt pdf"},
		{"truncated", pdfFixture(t, "x", false, []string{"text"})[:200], "corrupt pdf"},
		{"encrypted", pdfFixture(t, "x", true, []string{"geheim"}), "encrypted pdf"},
	}
	for _, e := range pdfExtractors(t) {
		for _, tt := range tests {
			t.Run(e.name+"/"+tt.name, func(t *testing.T) {
				got, err := e.x.Extract(context.Background(), "x.pdf", "application/pdf", bytes.NewReader(tt.data))
				if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("Extract = %q, %v; want EINVALID %q", got.Body, err, tt.wantMsg)
				}
			})
		}
	}
}

// TestPDFWithoutPoppler: without a pdftotext that runs, every PDF fails
// with EINVALID naming the package to install (the file's state shows
// it), instead of being read by a weaker parser or skipped.
func TestPDFWithoutPoppler(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "pdftotext")
	if err := os.WriteFile(notExec, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/nonexistent/pdftotext", notExec} {
		got, err := (&extract.Extractor{PDFToText: path}).Extract(context.Background(), "a.pdf", "application/pdf", bytes.NewReader(pdfFixture(t, "", false, []string{"Grüße"})))
		if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "needs") || !strings.Contains(err.Error(), "pdftotext") || !strings.Contains(err.Error(), "install poppler-utils") {
			t.Errorf("PDFToText %s: Extract = %q, %v; want EINVALID saying it needs pdftotext from poppler-utils", path, got.Body, err)
		}
	}
}
