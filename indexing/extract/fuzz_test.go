package extract_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

// FuzzExtract feeds arbitrary bytes to the parsers: whatever comes in,
// Extract must not panic, must return valid UTF-8 with sane page spans,
// and may only fail with EINVALID.
func FuzzExtract(f *testing.F) {
	f.Add("a.docx", docxFixture(f, "t", wp("berschrift1", "Kopf")+wp("", "Grüße")))
	f.Add("a.odt", odfFixture(f, "application/vnd.oasis.opendocument.text", "t", `<office:text><text:h text:outline-level="1">K</text:h><text:p>ä<text:span>ö</text:span></text:p></office:text>`))
	f.Add("a.pptx", pptxFixture(f, "t", pptxSlide{title: "T", body: []string{"b"}}))
	f.Add("a.html", []byte("<h1>x</h1><p>y<ul><li>z</ul><table><tr><td>1"))
	f.Add("a.rtf", []byte(`{\rtf1\ansi{\fonttbl{\f0\fcharset128 x;}}\f0 \'93\'fa\u26085?\par\intbl a\cell\row}`))
	f.Add("a.json", []byte(`{"a":[1,"b",{"c":null}]}`))
	f.Add("a.csv", []byte("a;b\n\"c;d\";e\n"))
	f.Add("a.xml", []byte(`<?xml version="1.0"?><a>x<b>y</b></a>`))
	f.Add("a.eml", []byte("Subject: x\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n"))
	f.Add("a.pdf", pdfFixture(f, "t", false, []string{"Grüße"}, []string{"日本"}))
	f.Add("a.md", []byte("---\ntitle: x\n---\n# y"))
	f.Add("a.txt", []byte("Gr\xfc\xdfe"))
	x := fuzzExtractor()
	f.Fuzz(func(t *testing.T, name string, data []byte) { checkExtract(t, x, name, data) })
}

// fuzzExtractor is the extractor the fuzz targets feed: bounded text and
// time; PDFs go to pdftotext when it is installed. OCR is off: handing a
// scanned file to the OCR lane (ErrNeedsOCR) is not a parser's failure.
func fuzzExtractor() *extract.Extractor {
	return &extract.Extractor{MaxTextRunes: 1 << 16, Timeout: 5 * time.Second, OCR: extract.OCR{Off: true}}
}

// checkExtract extracts data as name and checks what every fuzz target
// checks: no panic, EINVALID only, valid UTF-8 with sane page spans.
func checkExtract(t *testing.T, x *extract.Extractor, name string, data []byte) {
	t.Helper()
	got, err := x.Extract(context.Background(), name, "", bytes.NewReader(data))
	if err != nil {
		if k := hs.ErrorKind(err); k != hs.EINVALID {
			t.Fatalf("Extract(%s) = %v, kind %s; want EINVALID", name, err, k)
		}
		return
	}
	checkText(t, got)
}
