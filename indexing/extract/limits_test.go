package extract_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

// zipBomb builds a zip-based file whose entry name expands from a few
// kilobytes of zeros to size bytes.
func zipBomb(tb testing.TB, name string, size int) []byte {
	tb.Helper()
	return mustZip(tb, entry{name: "[Content_Types].xml", data: "<Types/>"}, entry{name: name, data: strings.Repeat("\x00", size)})
}

// lyingZip builds a DOCX whose document entry declares 100 bytes but
// inflates to size bytes.
func lyingZip(tb testing.TB, size int) []byte {
	tb.Helper()
	body := `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + strings.Repeat(" ", size) + `</w:body></w:document>`
	var deflated bytes.Buffer
	zw := zip.NewWriter(&deflated)
	w, _ := zw.Create("x")
	_, _ = w.Write([]byte(body))
	_ = zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(deflated.Bytes()), int64(deflated.Len()))
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := zr.File[0].OpenRaw()
	if err != nil {
		tb.Fatal(err)
	}
	compressed, _ := io.ReadAll(raw)

	var buf bytes.Buffer
	zw = zip.NewWriter(&buf)
	rw, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE([]byte(body)), CompressedSize64: uint64(len(compressed)), UncompressedSize64: 100})
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = rw.Write(compressed)
	_ = zw.Close()
	return buf.Bytes()
}

func TestExtractErrors(t *testing.T) {
	manyEntries := make([]entry, 30)
	for i := range manyEntries {
		manyEntries[i] = entry{name: fmt.Sprintf("word/part%d.xml", i), data: "<x/>"}
	}
	tests := []struct {
		name     string
		x        *extract.Extractor
		file     string
		mime     string
		data     []byte
		wantKind string
		wantMsg  string
	}{
		{"zip bomb docx", &extract.Extractor{}, "bomb.docx", "", zipBomb(t, "word/document.xml", 2<<20), hs.EINVALID, "zip bomb: entry word/document.xml expands"},
		{"zip bomb xlsx", &extract.Extractor{}, "bomb.xlsx", "", zipBomb(t, "xl/worksheets/sheet1.xml", 2<<20), hs.EINVALID, "zip bomb: entry xl/worksheets/sheet1.xml expands"},
		{"zip bomb odt", &extract.Extractor{}, "bomb.odt", "", zipBomb(t, "content.xml", 2<<20), hs.EINVALID, "zip bomb"},
		{"zip bomb epub", &extract.Extractor{}, "bomb.epub", "", zipBomb(t, "OEBPS/ch1.xhtml", 2<<20), hs.EINVALID, "zip bomb"},
		{"zip total over limit", &extract.Extractor{MaxZipTotal: 1000}, "a.docx", "", docxFixture(t, "t", wp("", strings.Repeat("text ", 300))), hs.EINVALID, "zip bomb: entries declare over 1000 bytes"},
		{"zip header lies about size", &extract.Extractor{}, "lies.docx", "", lyingZip(t, 64<<10), hs.EINVALID, "word/document.xml"},
		{"too many zip entries", &extract.Extractor{MaxZipEntries: 20}, "many.docx", "", mustZip(t, manyEntries...), hs.EINVALID, "zip bomb: 30 entries (limit 20)"},
		{"ole container", &extract.Extractor{}, "old.docx", "", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), hs.EINVALID, "OLE container"},
		{"encrypted odt", &extract.Extractor{}, "secret.odt", "", mustZip(t, entry{name: "mimetype", data: "application/vnd.oasis.opendocument.text", stored: true},
			entry{name: "META-INF/manifest.xml", data: `<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`},
			entry{name: "content.xml", data: "\x8f\x01binary"}), hs.EINVALID, "encrypted odt"},
		{"corrupt zip", &extract.Extractor{}, "broken.docx", "", []byte("PK\x03\x04 this is not really a zip"), hs.EINVALID, "corrupt zip"},
		{"docx without document", &extract.Extractor{}, "empty.docx", "", mustZip(t, entry{name: "a.txt", data: "x"}), hs.EINVALID, "no word/document.xml"},
		{"malformed docx xml", &extract.Extractor{}, "bad.docx", "", mustZip(t, entry{name: "word/document.xml", data: "<w:document><w:body><w:p>"}), hs.EINVALID, "corrupt word/document.xml"},
		{"corrupt xlsx", &extract.Extractor{}, "bad.xlsx", "", mustZip(t, entry{name: "xl/workbook.xml", data: "<workbook"}), hs.EINVALID, "corrupt xlsx"},
		{"binary as text", &extract.Extractor{}, "data.txt", "text/plain", binaryGarbage(4096), hs.EINVALID, "not text:"},
		{"binary as csv", &extract.Extractor{}, "data.csv", "text/csv", binaryGarbage(4096), hs.EINVALID, "not text:"},
		{"unsupported type", &extract.Extractor{}, "clip.mp4", "video/mp4", []byte("\x00\x00\x00\x18ftypmp42...."), hs.EINVALID, "unsupported type video/mp4"},
		{"unsupported sniffed", &extract.Extractor{}, "blob", "application/octet-stream", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00"), hs.EINVALID, "unsupported type application/octet-stream"},
		{"unknown zip", &extract.Extractor{}, "blob", "", mustZip(t, entry{name: "a.bin", data: "x"}), hs.EINVALID, "unsupported type"},
		{"json too deep", &extract.Extractor{}, "deep.json", "application/json", []byte(strings.Repeat("[", 5000)), hs.EINVALID, "json nested deeper than 1000"},
		{"corrupt json", &extract.Extractor{}, "bad.json", "application/json", []byte(`{"a": tru`), hs.EINVALID, "corrupt json"},
		{"xml too deep", &extract.Extractor{}, "deep.xml", "text/xml", []byte(strings.Repeat("<a>", 5000)), hs.EINVALID, "xml nested deeper than 1000"},
		{"rtf without header", &extract.Extractor{}, "x.rtf", "application/rtf", []byte("plain words"), hs.EINVALID, `no {\rtf header`},
		{"rtf too deep", &extract.Extractor{}, "x.rtf", "application/rtf", []byte(`{\rtf1` + strings.Repeat("{", 1000)), hs.EINVALID, "groups nested deeper"},
		{"eml without header", &extract.Extractor{}, "x.eml", "message/rfc822", []byte("\x00\x01not a mail"), hs.EINVALID, "corrupt eml"},
		{"too large", &extract.Extractor{MaxInputBytes: 10}, "big.txt", "text/plain", []byte("more than ten bytes"), hs.ETOOLARGE, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := tt.x.Extract(context.Background(), tt.file, tt.mime, bytes.NewReader(tt.data))
			if hs.ErrorKind(err) != tt.wantKind || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Extract = %q, %v; want %s %q", got.Body, err, tt.wantKind, tt.wantMsg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Extract took %v", d)
			}
		})
	}
}

// binaryGarbage returns n bytes of deterministic pseudo-random data.
func binaryGarbage(n int) []byte {
	out := make([]byte, n)
	x := uint32(2463534242)
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = byte(x)
	}
	return out
}

func TestUnsupportedIsSkippable(t *testing.T) {
	_, err := (&extract.Extractor{}).Extract(context.Background(), "movie.mp4", "video/mp4", strings.NewReader("...."))
	if !errors.Is(err, extract.ErrUnsupported) {
		t.Errorf("Extract(mp4) = %v, want ErrUnsupported", err)
	}
	_, err = (&extract.Extractor{}).Extract(context.Background(), "x.txt", "text/plain", strings.NewReader("\x00\x01\x02\x03"))
	if err == nil || errors.Is(err, extract.ErrUnsupported) {
		t.Errorf("Extract(binary text) = %v, want a non-skip EINVALID", err)
	}
}

// endlessReader yields zeros forever and counts them.
type endlessReader struct{ n int64 }

func (r *endlessReader) Read(p []byte) (int, error) {
	clear(p)
	r.n += int64(len(p))
	return len(p), nil
}

func TestTooLargeStopsReading(t *testing.T) {
	r := &endlessReader{}
	x := &extract.Extractor{MaxInputBytes: 1 << 20}
	_, err := x.Extract(context.Background(), "huge.txt", "text/plain", r)
	if hs.ErrorKind(err) != hs.ETOOLARGE {
		t.Fatalf("Extract = %v, want ETOOLARGE", err)
	}
	if r.n > 1<<20+64<<10 {
		t.Errorf("read %d bytes, want about the limit (%d)", r.n, 1<<20)
	}
	// A reader that knows its size is refused before any read.
	big := bytes.NewReader(make([]byte, 2<<20))
	if _, err := x.Extract(context.Background(), "big.txt", "text/plain", big); hs.ErrorKind(err) != hs.ETOOLARGE || big.Len() != 2<<20 {
		t.Errorf("Extract(sized reader) = %v after reading %d bytes, want ETOOLARGE and no read", err, 2<<20-big.Len())
	}
}

func TestEmptyFile(t *testing.T) {
	for _, tt := range []struct{ file, mime string }{
		{"empty.txt", "text/plain"}, {"empty.pdf", "application/pdf"}, {"empty.docx", ""}, {"noname", ""},
	} {
		got, err := (&extract.Extractor{}).Extract(context.Background(), tt.file, tt.mime, strings.NewReader(""))
		if err != nil || got.Body != "" {
			t.Errorf("Extract(%s) = %q, %v; want empty body, no error", tt.file, got.Body, err)
		}
	}
}

func TestInvalidUTF8Repaired(t *testing.T) {
	data := []byte("Grüße \xff\xfe aus Köln, schöne Grüße, \xc3 schön")
	got := mustExtract(t, &extract.Extractor{}, "x.txt", "text/plain", data)
	want := "Grüße \uFFFD aus Köln, schöne Grüße, \uFFFD schön"
	if got.Body != want {
		t.Errorf("Body = %q, want %q", got.Body, want)
	}
	// The same repair holds for formats that carry text inside markup.
	got = mustExtract(t, &extract.Extractor{}, "x.json", "application/json", []byte("[\"K\xf6ln\"]"))
	if got.Body != "K\uFFFDln" {
		t.Errorf("JSON Body = %q, want %q", got.Body, "K\uFFFDln")
	}
}

func TestMaxTextRunes(t *testing.T) {
	x := &extract.Extractor{MaxTextRunes: 10}
	tests := []struct {
		name, file, mime string
		data             []byte
		want             string
	}{
		{"text", "x.txt", "text/plain", []byte("äöüäöüäöüäöü more"), "äöüäöüäöüä"},
		{"docx", "x.docx", "", docxFixture(t, "", wp("", "eins zwei")+wp("", "drei vier")), "eins zwei\n"},
		{"pptx", "x.pptx", "", pptxFixture(t, "", pptxSlide{title: "ein langer Titel"}), "## Slide 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustExtract(t, x, tt.file, tt.mime, tt.data)
			if got.Body != tt.want || !strings.HasSuffix(got.Extractor, extract.TruncatedSuffix) {
				t.Errorf("Extract = %q by %q, want %q by *%s", got.Body, got.Extractor, tt.want, extract.TruncatedSuffix)
			}
			if n := utf8.RuneCountInString(got.Body); n > 10 {
				t.Errorf("Body has %d runes, want at most 10", n)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&extract.Extractor{}).Extract(ctx, "x.txt", "text/plain", strings.NewReader("hello"))
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
		t.Errorf("Extract(canceled) = %v, want EUNAVAILABLE wrapping context.Canceled", err)
	}
}

// failingReader fails after its data.
type failingReader struct{ data io.Reader }

func (r failingReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("connection reset")
	}
	return n, err
}

func TestReadError(t *testing.T) {
	_, err := (&extract.Extractor{}).Extract(context.Background(), "x.txt", "text/plain", failingReader{strings.NewReader("partial")})
	if hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Extract(failing reader) = %v, want EUNAVAILABLE", err)
	}
}

func TestDispatch(t *testing.T) {
	docx := docxFixture(t, "", wp("", "docx text"))
	tests := []struct {
		name, file, mime string
		data             []byte
		wantExtractor    string
	}{
		{"mime wins over extension", "notes.txt", "text/html", []byte("<p>x</p>"), "html"},
		{"extension refines text/plain", "notes.md", "text/plain", []byte("# x"), "markdown"},
		{"extension refines octet-stream", "a.docx", "application/octet-stream", docx, "docx"},
		{"extension refines zip", "a.docx", "application/zip", docx, "docx"},
		{"mime with parameters", "x", "text/csv; charset=utf-8", []byte("a,b"), "csv"},
		{"unknown text subtype", "x.vcf", "text/vcard", []byte("BEGIN:VCARD"), "text"},
		{"sniffed html", "noname", "", []byte("<!DOCTYPE html><html><body><p>x</p></body></html>"), "html"},
		{"sniffed pdf", "noname", "application/octet-stream", pdfFixture(t, "", false, []string{"x"}), ""},
		{"sniffed docx", "noname", "", docx, "docx"},
		{"sniffed odt", "noname", "", odfFixture(t, "application/vnd.oasis.opendocument.text", "", "<office:text><text:p>x</text:p></office:text>"), "odt"},
		{"sniffed text", "noname", "", []byte("just some words"), "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustExtract(t, &extract.Extractor{}, tt.file, tt.mime, tt.data)
			if tt.wantExtractor != "" && got.Extractor != tt.wantExtractor {
				t.Errorf("Extractor = %q, want %q", got.Extractor, tt.wantExtractor)
			}
			if got.Body == "" {
				t.Errorf("Body is empty")
			}
		})
	}
}

func TestSupported(t *testing.T) {
	tests := []struct {
		file, mime string
		want       bool
	}{
		{"a.docx", "", true},
		{"a.DOCX", "application/octet-stream", true},
		{"a", "application/vnd.oasis.opendocument.spreadsheet", true},
		{"a", "text/x-python", true},
		{"mail.eml", "", true},
		{"a.png", "image/png", true}, // text recognised by OCR
		{"a.gif", "image/gif", false},
		{"a", "", false},
		{"a.zip", "application/zip", false},
	}
	for _, tt := range tests {
		if got := extract.Supported(tt.file, tt.mime); got != tt.want {
			t.Errorf("Supported(%q, %q) = %v, want %v", tt.file, tt.mime, got, tt.want)
		}
	}
}
