package extract_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"

	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

// pdfFixture writes a small PDF by hand: one page per element of pages,
// one text line per string. Lines that fit Windows-1252 use Helvetica;
// others (Japanese) use a Type0 font whose ToUnicode map gives the text
// back. encrypted adds a standard security handler whose user password
// is not empty, so no reader can open it without one.
func pdfFixture(tb testing.TB, title string, encrypted bool, pages ...[]string) []byte {
	tb.Helper()
	cids := map[rune]int{}
	var order []rune
	for _, p := range pages {
		for _, l := range p {
			if _, err := charmap.Windows1252.NewEncoder().String(l); err == nil {
				continue
			}
			for _, r := range l {
				if _, ok := cids[r]; !ok {
					order = append(order, r)
					cids[r] = len(order)
				}
			}
		}
	}
	var cmap strings.Builder
	cmap.WriteString("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n")
	for i := 0; i < len(order); i += 100 {
		chunk := order[i:min(i+100, len(order))]
		fmt.Fprintf(&cmap, "%d beginbfchar\n", len(chunk))
		for _, r := range chunk {
			fmt.Fprintf(&cmap, "<%04X> <%s>\n", cids[r], utf16Hex(string(r)))
		}
		cmap.WriteString("endbfchar\n")
	}
	cmap.WriteString("endcmap CMapName currentdict /CMap defineresource pop end end\n")

	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"", // pages, below
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /KozMinPr6N-Regular /Encoding /Identity-H /DescendantFonts [5 0 R] /ToUnicode 6 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /KozMinPr6N-Regular /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 >>",
		stream(cmap.String()),
		"<< /Title <" + utf16Hex("\uFEFF"+title) + "> /Producer (extract test) >>",
	}
	var kids []string
	for _, p := range pages {
		var c strings.Builder
		c.WriteString("BT 72 760 Td 16 TL\n")
		for _, l := range p {
			if enc, err := charmap.Windows1252.NewEncoder().String(l); err == nil {
				fmt.Fprintf(&c, "/F1 12 Tf (%s) Tj T*\n", escapePDF(enc))
				continue
			}
			c.WriteString("/F2 12 Tf <")
			for _, r := range l {
				fmt.Fprintf(&c, "%04X", cids[r])
			}
			c.WriteString("> Tj T*\n")
		}
		c.WriteString("ET")
		objs = append(objs, stream(c.String()))
		content := len(objs)
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", content))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	trailerExtra := ""
	if encrypted {
		objs = append(objs, "<< /Filter /Standard /V 1 /R 2 /O <"+strings.Repeat("ab", 32)+"> /U <"+strings.Repeat("cd", 32)+"> /P -4 >>")
		trailerExtra = fmt.Sprintf(" /Encrypt %d 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]", len(objs))
	}

	return extract.RawPDF(objs, "/Root 1 0 R /Info 7 0 R"+trailerExtra)
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

func utf16Hex(s string) string {
	var sb strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&sb, "%04X", u)
	}
	return sb.String()
}

func escapePDF(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}
