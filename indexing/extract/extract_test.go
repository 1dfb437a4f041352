package extract_test

import (
	"bytes"
	"context"
	"testing"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

// mustExtract extracts data and fails the test on error.
func mustExtract(tb testing.TB, x *extract.Extractor, name, mime string, data []byte) hs.Text {
	tb.Helper()
	got, err := x.Extract(context.Background(), name, mime, bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("Extract(%s) error: %v", name, err)
	}
	checkText(tb, got)
	return got
}

// checkText checks the output contract every Text must meet.
func checkText(tb testing.TB, got hs.Text) {
	tb.Helper()
	if !utf8.ValidString(got.Body) {
		tb.Errorf("Body is not valid UTF-8: %q", got.Body)
	}
	n := utf8.RuneCountInString(got.Body)
	for i, p := range got.Pages {
		if p.Start < 0 || p.End < p.Start || p.End > n || (i > 0 && p.Start < got.Pages[i-1].End) || p.Number != i+1 {
			tb.Errorf("bad page %d: %+v (body has %d runes, pages %+v)", i, p, n, got.Pages)
		}
	}
}

// pageText returns the text of page p.
func pageText(t hs.Text, p hs.Page) string {
	r := []rune(t.Body)
	return string(r[p.Start:p.End])
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		mime      string
		data      []byte
		want      string // the whole Body
		wantTitle string
		wantPages int
	}{
		{
			name: "plain text UTF-8",
			file: "notes.txt", mime: "text/plain",
			data: []byte("Grüße aus Köln\r\n\r\n日本語のテキスト\r\n"),
			want: "Grüße aus Köln\n\n日本語のテキスト",
		},
		{
			name: "plain text Latin-1",
			file: "alt.txt", mime: "text/plain",
			data: []byte("Gr\xfc\xdfe aus K\xf6ln, sch\xf6ne Gr\xfc\xdfe an M\xfcller und \xc4rzte\n"),
			want: "Grüße aus Köln, schöne Grüße an Müller und Ärzte",
		},
		{
			name: "plain text UTF-16 with BOM",
			file: "utf16.txt", mime: "text/plain",
			data: mustEncode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "Grüße 日本語"),
			want: "Grüße 日本語",
		},
		{
			name: "plain text UTF-16 without BOM",
			file: "utf16.txt", mime: "text/plain",
			data: mustEncode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "Hello, plain ASCII in UTF-16 with Grüße"),
			want: "Hello, plain ASCII in UTF-16 with Grüße",
		},
		{
			name: "plain text Shift_JIS detected",
			file: "sjis.txt", mime: "text/plain",
			data: mustEncode(t, japanese.ShiftJIS, "これは日本語のテキストです。東京都は日本の首都です。ひらがなとカタカナと漢字を使います。"),
			want: "これは日本語のテキストです。東京都は日本の首都です。ひらがなとカタカナと漢字を使います。",
		},
		{
			name: "markdown with front matter",
			file: "readme.md", mime: "text/markdown",
			data:      []byte("---\ntitle: \"Mein Titel: ü\"\ntags: [a]\n---\n# Kopf\n\nText über 日本\n"),
			want:      "# Kopf\n\nText über 日本",
			wantTitle: "Mein Titel: ü",
		},
		{
			name: "html",
			file: "page.html", mime: "text/html; charset=utf-8",
			data: []byte(`<!DOCTYPE html><html><head><title>Seite ü</title><style>p{color:red}</style><script>var x = 1</script></head>
<body><nav><a href="/">Menü</a></nav><h1>Haupt</h1><p>Ein   <b>fetter</b>
Absatz.</p><div>Block<br>Zeile</div><ol><li>eins<ul><li>unter</li></ul></li><li>zwei</li></ol>
<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>東京</td></tr></table><h3>Code</h3><pre>  code
   block</pre><p hidden>versteckt</p><p>Ende</p></body></html>`),
			want:      "# Haupt\n\nEin fetter Absatz.\n\nBlock\nZeile\n\n1. eins\n  - unter\n2. zwei\n\nA | B\n1 | 東京\n\n### Code\n\n  code\n   block\n\nEnde",
			wantTitle: "Seite ü",
		},
		{
			name: "html in a legacy charset",
			file: "alt.htm", mime: "text/html",
			data:      []byte("<html><head><meta charset=\"iso-8859-1\"><title>K\xf6ln</title></head><body><p>Gr\xfc\xdfe</p></body></html>"),
			want:      "Grüße",
			wantTitle: "Köln",
		},
		{
			name: "docx",
			file: "bericht.docx", mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			data: docxFixture(t, "Bericht ü", wp("berschrift1", "Überschrift")+wp("", "Grüße aus Köln")+wp("Kapitel", "Kapitel zwei")+
				`<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>Direkt</w:t></w:r></w:p>`+
				`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>Punkt eins</w:t></w:r></w:p>`+
				`<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr><w:r><w:t>Punkt</w:t></w:r><w:r><w:tab/><w:t>zwei</w:t></w:r></w:p>`+
				`<w:tbl><w:tr><w:tc>`+wp("", "Name")+`</w:tc><w:tc>`+wp("", "Wert")+`</w:tc></w:tr><w:tr><w:tc>`+wp("", "日本")+`</w:tc><w:tc>`+wp("", "東京")+wp("", "大阪")+`</w:tc></w:tr></w:tbl>`+
				`<w:p><w:r><w:t xml:space="preserve">Alt </w:t></w:r><w:del><w:r><w:delText>gelöscht</w:delText></w:r></w:del>`+
				`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r>`+
				`<w:r><mc:AlternateContent><mc:Choice><w:drawing><w:txbxContent>`+wp("", "Textbox")+`</w:txbxContent></w:drawing></mc:Choice>`+
				`<mc:Fallback><w:pict><w:txbxContent>`+wp("", "Textbox")+`</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r>`+
				`<w:r><w:t>neu</w:t><w:br/><w:t>Zeile</w:t></w:r></w:p>`),
			want:      "# Überschrift\n\nGrüße aus Köln\n\n## Kapitel zwei\n\n### Direkt\n\n- Punkt eins\n  - Punkt zwei\n\nName | Wert\n日本 | 東京 大阪\n\nTextbox\n\nAlt neu\nZeile\n\nEine Fußnote.",
			wantTitle: "Bericht ü",
		},
		{
			name: "odt with nested spans",
			file: "text.odt", mime: "application/vnd.oasis.opendocument.text",
			data: odfFixture(t, "application/vnd.oasis.opendocument.text", "ODT Titel", `<office:text><text:sequence-decls><text:sequence-decl text:name="Table"/></text:sequence-decls>`+
				`<text:h text:outline-level="1">Einleitung</text:h><text:p>Das ist <text:span>ein <text:span>ver<text:span>schach</text:span>telter</text:span></text:span> Satz<text:s text:c="3"/>mit <text:a>Umlauten</text:a>: äöü.<text:line-break/>Neue Zeile.</text:p>`+
				`<text:h text:outline-level="2">日本語</text:h><text:list><text:list-item><text:p>erstens</text:p></text:list-item><text:list-item><text:p>zweitens</text:p><text:list><text:list-item><text:p>tief</text:p></text:list-item></text:list></text:list-item></text:list>`+
				`<table:table table:name="T"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell table:number-columns-repeated="3"/><table:table-cell><text:p>b</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16000"/></table:table-row>`+
				`<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16000"/></table:table-row></table:table>`+
				`<text:p>Schluss<office:annotation><text:p>Kommentar</text:p></office:annotation></text:p></office:text>`),
			want:      "# Einleitung\n\nDas ist ein verschachtelter Satz   mit Umlauten: äöü.\nNeue Zeile.\n\n## 日本語\n\n- erstens\n- zweitens\n  - tief\n\na |  |  |  | b\n\nSchluss",
			wantTitle: "ODT Titel",
		},
		{
			name: "ods with repeated cells",
			file: "tabelle.ods", mime: "application/vnd.oasis.opendocument.spreadsheet",
			data: odfFixture(t, "application/vnd.oasis.opendocument.spreadsheet", "", `<office:spreadsheet><table:table table:name="Preise"><table:table-row><table:table-cell><text:p>Äpfel</text:p></table:table-cell><table:table-cell office:value="3"><text:p>3</text:p></table:table-cell></table:table-row>`+
				`<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>`+
				`<table:table table:name="表"><table:table-row><table:table-cell table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`),
			want: "## Sheet: Preise\n\nÄpfel | 3\n\n## Sheet: 表\n\nx | x",
		},
		{
			name: "odp with slide titles",
			file: "vortrag.odp", mime: "application/vnd.oasis.opendocument.presentation",
			data: odfFixture(t, "application/vnd.oasis.opendocument.presentation", "Vortrag", `<office:presentation><draw:page draw:name="page1"><draw:frame presentation:class="title"><draw:text-box><text:p>Willkommen</text:p></draw:text-box></draw:frame>`+
				`<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Punkt ä</text:p></text:list-item></text:list></draw:text-box></draw:frame>`+
				`<presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Sprechernotiz</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>`+
				`<draw:page><draw:frame><draw:text-box><text:p>ohne Titel 日本</text:p></draw:text-box></draw:frame></draw:page></office:presentation>`),
			want:      "## Slide 1: Willkommen\n\n- Punkt ä\n\nSprechernotiz\n\n## Slide 2\n\nohne Titel 日本",
			wantTitle: "Vortrag",
			wantPages: 2,
		},
		{
			name: "pptx in presentation order",
			file: "deck.pptx", mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
			data: pptxFixture(t, "Deck", pptxSlide{title: "Erste Folie", body: []string{"Grüße", "zweiter Punkt"}, notes: "Notizen hier"},
				pptxSlide{title: "日本語", table: [][]string{{"a", "b"}, {"c", ""}}}),
			want:      "## Slide 1: Erste Folie\n\nGrüße\n\nzweiter Punkt\n\nNotizen hier\n\n## Slide 2: 日本語\n\na | b\nc",
			wantTitle: "Deck",
			wantPages: 2,
		},
		{
			name: "xlsx",
			file: "daten.xlsx", mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
			data: xlsxFixture(t, "Tabelle", []string{"Daten", "Zweites"}, map[string][][]any{
				"Daten":   {{"Name", "Wert"}, {"Müller", 42}, {"東京", 3.5}},
				"Zweites": {{nil, "leer links"}},
			}),
			want:      "## Sheet: Daten\n\nName | Wert\nMüller | 42\n東京 | 3.5\n\n## Sheet: Zweites\n\n| leer links",
			wantTitle: "Tabelle",
		},
		{
			name: "epub in spine order",
			file: "buch.epub", mime: "application/epub+zip",
			data: epubFixture(t, "Das Buch", "<h1>Kapitel 1</h1><p>Es war einmal ein König.</p>",
				"<h2>Kapitel 2</h2><p>日本語の本文。</p><ul><li>eins</li><li>zwei</li></ul>"),
			want:      "# Kapitel 1\n\nEs war einmal ein König.\n\n## Kapitel 2\n\n日本語の本文。\n\n- eins\n- zwei",
			wantTitle: "Das Buch",
		},
		{
			name: "rtf",
			file: "brief.rtf", mime: "application/rtf",
			data: []byte(`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Arial;}{\f1\fcharset128 MS Mincho;}}{\colortbl;\red0\green0\blue0;}` +
				`{\info{\title RTF Titel \'fc}{\author Ich}}{\*\generator Foo 1.0;}{\stylesheet{\s1 heading 1;}}` +
				`\pard\outlinelevel0 \'dcberschrift\par\pard Gr\'fc\'dfe aus K\'f6ln \u26085?\u26412?\line zweite {\b fette} Zeile\par` +
				`{\f1 \'93\'fa\'96\'7b}\par{\field{\*\fldinst HYPERLINK "x"}{\fldrslt Link}}\par{\pict\pngblip 89504e47}` +
				`\trowd\intbl A\cell B\cell\row\pard Ende\par}`),
			want:      "# Überschrift\n\nGrüße aus Köln 日本\nzweite fette Zeile\n\n日本\n\nLink\n\nA | B\n\nEnde",
			wantTitle: "RTF Titel ü",
		},
		{
			name: "csv with semicolons",
			file: "liste.csv", mime: "text/csv",
			data: []byte("name;stadt;note\nMüller;\"Köln; Innenstadt\";\n田中;東京;\"mehr\nzeilen\"\n"),
			want: "name | stadt | note\nMüller | Köln; Innenstadt\n田中 | 東京 | mehr zeilen",
		},
		{
			name: "tsv",
			file: "liste.tsv", mime: "text/tab-separated-values",
			data: []byte("a\tb\n1\t2\n"),
			want: "a | b\n1 | 2",
		},
		{
			name: "json",
			file: "daten.json", mime: "application/json",
			data: []byte(`{"title":"Grüße","n":3,"tags":["日本","b"],"nested":{"k":"v","ok":true,"none":null}}`),
			want: "title: Grüße\nn: 3\ntags:\n日本\nb\n\nnested:\nk: v",
		},
		{
			name: "xml with declared encoding",
			file: "daten.xml", mime: "application/xml",
			data: []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><root><a>Gr` + "\xfc" + `n</a><b>text &amp; more<![CDATA[ cdata ]]>&nbsp;</b><!-- comment --><?pi x?></root>`),
			want: "Grün\ntext & more cdata",
		},
		{
			name: "eml",
			file: "mail.eml", mime: "message/rfc822",
			data: []byte("From: =?UTF-8?B?SsO8cmdlbg==?= <j@example.org>\r\nTo: b@example.org\r\nSubject: =?ISO-8859-1?Q?Gr=FC=DFe?= aus =?UTF-8?B?5p2x5Lqs?=\r\nDate: Mon, 1 Jan 2024 10:00:00 +0100\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n" +
				"--XX\r\nContent-Type: multipart/alternative; boundary=YY\r\n\r\n" +
				"--YY\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<p>HTML version</p>\r\n" +
				"--YY\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nHallo J=FCrgen,\r\nsch=F6ne Gr=FC=DFe, das ist eine lange Zeile, die umbro=\r\nchen wurde.\r\n--YY--\r\n" +
				"--XX\r\nContent-Type: application/pdf; name=\"bericht.pdf\"\r\nContent-Disposition: attachment; filename=\"=?UTF-8?Q?B=C3=BCcher.pdf?=\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n" +
				"--XX\r\nContent-Type: message/rfc822\r\n\r\nSubject: Weitergeleitet\r\nFrom: c@example.org\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\nPGgxPuaXpeacrOiqnjwvaDE+PHA+\r\nSGFsbG88L3A+\r\n--XX--\r\n"),
			want:      "# Grüße aus 東京\n\nFrom: Jürgen <j@example.org>\nTo: b@example.org\nDate: Mon, 1 Jan 2024 10:00:00 +0100\n\nHallo Jürgen,\nschöne Grüße, das ist eine lange Zeile, die umbrochen wurde.\n\n## Weitergeleitet\n\nFrom: c@example.org\n\n# 日本語\n\nHallo\n\nAttachments: Bücher.pdf",
			wantTitle: "Grüße aus 東京",
		},
	}
	x := &extract.Extractor{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustExtract(t, x, tt.file, tt.mime, tt.data)
			if got.Body != tt.want {
				t.Errorf("Body =\n%s\n--- want ---\n%s", got.Body, tt.want)
			}
			if got.Title != tt.wantTitle {
				t.Errorf("Title = %q, want %q", got.Title, tt.wantTitle)
			}
			if len(got.Pages) != tt.wantPages {
				t.Errorf("Pages = %+v, want %d pages", got.Pages, tt.wantPages)
			}
			if got.Extractor == "" {
				t.Errorf("Extractor is empty")
			}
		})
	}
}

// mustEncode encodes s in e.
func mustEncode(tb testing.TB, e encoding.Encoding, s string) []byte {
	tb.Helper()
	out, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
