package extract_test

import "testing"

// One fuzz target per format family, the file name fixed so the fuzzer
// spends its time inside one parser (FuzzExtract also mutates the name).
// Each checks what FuzzExtract checks: no panic, EINVALID only, valid
// UTF-8 with sane page spans.
//
// Run the PDF, OOXML, ODF and EPUB targets with -fuzzminimizetime 0
// (no minimising; 1s still leaves most of a 30 s run to it): their seeds
// are kilobytes, and the fuzzer minimises each input that finds new
// coverage for up to 60 s by default, with a pass quadratic in the
// input's length (golang/go#48820), so a 30 s run without the flag does
// a few execs and then minimises until it ends. That was the stall
// seen here; no parse was slow (every input found ran in under 0.2 s),
// but triaging it found PDFs whose cycles loop the PDF library forever,
// now stopped (TestPDFCyclesStop).

func fuzzFamily(f *testing.F, names []string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	x := fuzzExtractor()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range names {
			checkExtract(t, x, name, data)
		}
	})
}

func FuzzExtractPDF(f *testing.F) {
	fuzzFamily(f, []string{"a.pdf"}, pdfFixture(f, "t", false, []string{"Grüße"}, []string{"日本"}), pdfFixture(f, "", true, []string{"x"}))
}

// Office Open XML: one zip container, three parsers.
func FuzzExtractOOXML(f *testing.F) {
	fuzzFamily(f, []string{"a.docx", "a.pptx", "a.xlsx"},
		docxFixture(f, "t", wp("berschrift1", "Kopf")+wp("", "Grüße")),
		pptxFixture(f, "t", pptxSlide{title: "T", body: []string{"b"}, table: [][]string{{"1", "2"}}, notes: "n"}),
		xlsxFixture(f, "t", []string{"S"}, map[string][][]any{"S": {{"a", 1.5}, {"b", true}}}))
}

func FuzzExtractODF(f *testing.F) {
	fuzzFamily(f, []string{"a.odt", "a.ods", "a.odp"},
		odfFixture(f, "application/vnd.oasis.opendocument.text", "t", `<office:text><text:h text:outline-level="1">K</text:h><text:p>ä<text:span>ö</text:span></text:p></office:text>`),
		odfFixture(f, "application/vnd.oasis.opendocument.spreadsheet", "t", `<office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell table:number-columns-repeated="3"><text:p>x</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`))
}

func FuzzExtractEPUB(f *testing.F) {
	fuzzFamily(f, []string{"a.epub"}, epubFixture(f, "t", "<h1>One</h1><p>Grüße</p>", "<p>two</p>"))
}

func FuzzExtractMarkup(f *testing.F) {
	fuzzFamily(f, []string{"a.html", "a.xml"},
		[]byte("<h1>x</h1><p>y<ul><li>z</ul><table><tr><td>1"), []byte(`<?xml version="1.0"?><a>x<b>y</b><![CDATA[z]]></a>`),
		[]byte(`<html><head><meta charset="windows-1252"><title>T</title><script>x</script></head><body>caf\xe9</body></html>`))
}

func FuzzExtractRTF(f *testing.F) {
	fuzzFamily(f, []string{"a.rtf"}, []byte(`{\rtf1\ansi{\fonttbl{\f0\fcharset128 x;}}\f0 \'93\'fa\u26085?\par\intbl a\cell\row}`), []byte(`{\rtf1{\*\bin3 abc}{\pict\bin5 }}`))
}

func FuzzExtractEML(f *testing.F) {
	fuzzFamily(f, []string{"a.eml"},
		[]byte("Subject: x\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n"),
		[]byte("Subject: =?iso-8859-1?Q?Gr=FC=DFe?=\r\nContent-Type: text/html; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>Gr=FC=DFe</p>\r\n"))
}

// Plain text and the formats read as text with structure.
func FuzzExtractText(f *testing.F) {
	fuzzFamily(f, []string{"a.txt", "a.md", "a.csv", "a.json"},
		[]byte("---\ntitle: x\n---\n# y"), []byte("Gr\xfc\xdfe"), []byte("a;b\n\"c;d\";e\n"), []byte(`{"a":[1,"b",{"c":null}]}`), []byte("\xef\xbb\xbf\x00\x00"))
}
