package extract_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// entry is one file of a zip fixture.
type entry struct {
	name, data string
	stored     bool // no compression (ODF and EPUB want "mimetype" stored)
}

// mustZip builds a zip archive of the entries, in order.
func mustZip(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		method := zip.Deflate
		if e.stored {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const xmlHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

// docxFixture builds a DOCX whose body is the given WordprocessingML. Its
// styles are those of a German Word: style ids "berschrift1" and so on,
// English names "heading 1".
func docxFixture(tb testing.TB, title, body string) []byte {
	tb.Helper()
	return mustZip(tb,
		entry{name: "[Content_Types].xml", data: xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		entry{name: "_rels/.rels", data: xmlHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`},
		entry{name: "docProps/core.xml", data: xmlHead + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + title + `</dc:title><dc:creator>Jürgen</dc:creator></cp:coreProperties>`},
		entry{name: "word/_rels/document.xml.rels", data: xmlHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>`},
		entry{name: "word/styles.xml", data: xmlHead + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
			`<w:style w:type="paragraph" w:styleId="Standard"><w:name w:val="Normal"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:basedOn w:val="Standard"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Kapitel"/><w:basedOn w:val="berschrift2"/></w:style>` +
			`</w:styles>`},
		entry{name: "word/footnotes.xml", data: xmlHead + `<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
			`<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:t>SEPARATOR</w:t></w:r></w:p></w:footnote>` +
			`<w:footnote w:id="1"><w:p><w:r><w:t>Eine Fußnote.</w:t></w:r></w:p></w:footnote></w:footnotes>`},
		entry{name: "word/document.xml", data: xmlHead + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>` + body + `</w:body></w:document>`},
	)
}

// wp is a Word paragraph of one run, with an optional style.
func wp(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// odfFixture builds an OpenDocument file of the given media type whose
// office:body holds body.
func odfFixture(tb testing.TB, mediaType, title, body string) []byte {
	tb.Helper()
	ns := `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"`
	return mustZip(tb,
		entry{name: "mimetype", data: mediaType, stored: true},
		entry{name: "META-INF/manifest.xml", data: xmlHead + `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>`},
		entry{name: "meta.xml", data: xmlHead + `<office:document-meta ` + ns + `><office:meta><dc:title>` + title + `</dc:title></office:meta></office:document-meta>`},
		entry{name: "content.xml", data: xmlHead + `<office:document-content ` + ns + `><office:body>` + body + `</office:body></office:document-content>`},
	)
}

// pptxSlide is one slide of a PPTX fixture.
type pptxSlide struct {
	title string
	body  []string // paragraphs of the body placeholder
	table [][]string
	notes string
}

// pptxFixture builds a PPTX whose slide files are numbered in reverse, so
// only the presentation's slide list gives the right order.
func pptxFixture(tb testing.TB, title string, slides ...pptxSlide) []byte {
	tb.Helper()
	const nsDecl = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	const relsNS = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`
	entries := []entry{
		{name: "[Content_Types].xml", data: xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{name: "_rels/.rels", data: xmlHead + `<Relationships ` + relsNS + `><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/></Relationships>`},
		{name: "docProps/core.xml", data: xmlHead + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + title + `</dc:title></cp:coreProperties>`},
	}
	var ids, rels strings.Builder
	for i, s := range slides {
		file := fmt.Sprintf("slide%d.xml", len(slides)-i)
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 256+i, 10+i)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/%s"/>`, 10+i, file)
		var sp strings.Builder
		if s.title != "" {
			sp.WriteString(`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + s.title + `</a:t></a:r></a:p></p:txBody></p:sp>`)
		}
		if len(s.body) > 0 {
			sp.WriteString(`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Body"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody>`)
			for _, b := range s.body {
				sp.WriteString(`<a:p><a:r><a:t>` + b + `</a:t></a:r></a:p>`)
			}
			sp.WriteString(`</p:txBody></p:sp>`)
		}
		if len(s.table) > 0 {
			sp.WriteString(`<p:graphicFrame><a:graphic><a:graphicData><a:tbl>`)
			for _, row := range s.table {
				sp.WriteString(`<a:tr>`)
				for _, c := range row {
					sp.WriteString(`<a:tc><a:txBody><a:p><a:r><a:t>` + c + `</a:t></a:r></a:p></a:txBody></a:tc>`)
				}
				sp.WriteString(`</a:tr>`)
			}
			sp.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
		}
		sp.WriteString(`<p:sp><p:nvSpPr><p:cNvPr id="4" name="Num"/><p:cNvSpPr/><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:fld type="slidenum"><a:t>99</a:t></a:fld></a:p></p:txBody></p:sp>`)
		entries = append(entries, entry{name: "ppt/slides/" + file, data: xmlHead + `<p:sld ` + nsDecl + `><p:cSld><p:spTree>` + sp.String() + `</p:spTree></p:cSld></p:sld>`})
		if s.notes != "" {
			notes := fmt.Sprintf("notesSlide%d.xml", i+1)
			entries = append(entries,
				entry{name: "ppt/slides/_rels/" + file + ".rels", data: xmlHead + `<Relationships ` + relsNS + `><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/` + notes + `"/></Relationships>`},
				entry{name: "ppt/notesSlides/" + notes, data: xmlHead + `<p:notes ` + nsDecl + `><p:cSld><p:spTree><p:sp><p:nvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr></p:sp><p:sp><p:nvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + s.notes + `</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>`})
		}
	}
	entries = append(entries,
		entry{name: "ppt/presentation.xml", data: xmlHead + `<p:presentation ` + nsDecl + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`},
		entry{name: "ppt/_rels/presentation.xml.rels", data: xmlHead + `<Relationships ` + relsNS + `>` + rels.String() + `</Relationships>`},
	)
	return mustZip(tb, entries...)
}

// xlsxFixture builds a workbook with excelize: sheet name -> rows.
func xlsxFixture(tb testing.TB, title string, sheets []string, rows map[string][][]any) []byte {
	tb.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				tb.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			tb.Fatal(err)
		}
		for r, row := range rows[name] {
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := f.SetDocProps(&excelize.DocProperties{Title: title}); err != nil {
		tb.Fatal(err)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// epubFixture builds an EPUB with the chapters (XHTML bodies) in spine
// order; the manifest lists them in reverse.
func epubFixture(tb testing.TB, title string, chapters ...string) []byte {
	tb.Helper()
	var manifest, spine strings.Builder
	entries := []entry{
		{name: "mimetype", data: "application/epub+zip", stored: true},
		{name: "META-INF/container.xml", data: xmlHead + `<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
	}
	for i := len(chapters) - 1; i >= 0; i-- {
		fmt.Fprintf(&manifest, `<item id="c%d" href="text/ch%%20%d.xhtml" media-type="application/xhtml+xml"/>`, i, i)
	}
	manifest.WriteString(`<item id="css" href="style.css" media-type="text/css"/>`)
	for i, c := range chapters {
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i)
		entries = append(entries, entry{name: fmt.Sprintf("OEBPS/text/ch %d.xhtml", i), data: xmlHead +
			`<html xmlns="http://www.w3.org/1999/xhtml"><head><title>ignored</title></head><body>` + c + `</body></html>`})
	}
	entries = append(entries, entry{name: "OEBPS/content.opf", data: xmlHead +
		`<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + title + `</dc:title></metadata>` +
		`<manifest>` + manifest.String() + `</manifest><spine>` + spine.String() + `</spine></package>`})
	return mustZip(tb, entries...)
}
