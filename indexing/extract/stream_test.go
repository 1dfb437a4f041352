package extract

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// bigInput repeats unit until it is over n bytes.
func bigInput(unit string, n int) []byte {
	return []byte(strings.Repeat(unit, n/len(unit)+1))
}

// TestStreamTextMatchesWholeRead: a large text file extracted while read
// gives the text reading it whole gives, whatever falls on a block edge
// (CR LF pairs, multi-byte characters), in UTF-8, Latin-1 and UTF-16.
func TestStreamTextMatchesWholeRead(t *testing.T) {
	// 7 bytes before the CR LF pair and the 3-byte character, so both
	// cross the 1 MiB block edges somewhere.
	unit := "Ölpumpe line\r\nmore — text über 日本.\r\n\r\n"
	utf8Data := bigInput(unit, 3*streamMin)
	latin, err := charmap.Windows1252.NewEncoder().Bytes(bigInput("Ölpumpe café crème\r\n\r\nbrûlée line two\r\n", 3*streamMin))
	if err != nil {
		t.Fatal(err)
	}
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes(bigInput(unit, streamMin))
	if err != nil {
		t.Fatal(err)
	}
	md := append([]byte("---\ntitle: \"Pump log\"\n---\n# Pumps\n\n"), utf8Data...)
	for _, tt := range []struct {
		name, file string
		data       []byte
	}{
		{"utf-8", "a.txt", utf8Data},
		{"latin-1", "b.txt", latin},
		{"utf-16", "c.txt", utf16},
		{"markdown", "d.md", md},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := &Extractor{MaxTextRunes: 50 << 20, MaxInputBytes: 200 << 20}
			got, err := x.Extract(context.Background(), tt.file, "", bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("Extract = %v", err)
			}
			want, err := x.run(context.Background(), tt.file, formatFor(tt.file, ""), tt.data, x.limits(), false)
			if err != nil {
				t.Fatalf("whole read = %v", err)
			}
			if got.Body != want.Body || got.Title != want.Title || got.Extractor != want.Extractor {
				i := 0
				for i < min(len(got.Body), len(want.Body)) && got.Body[i] == want.Body[i] {
					i++
				}
				t.Errorf("streamed text differs at byte %d of %d/%d: %q vs %q; title %q/%q, extractor %q/%q", i, len(got.Body), len(want.Body),
					got.Body[i:min(i+40, len(got.Body))], want.Body[i:min(i+40, len(want.Body))], got.Title, want.Title, got.Extractor, want.Extractor)
			}
		})
	}
}

// countReads counts the bytes read from r.
type countReads struct {
	r io.Reader
	n int
}

func (c *countReads) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestStreamTextStopsAtTheCap: a text file far over MaxTextRunes is read
// only as far as the text kept needs, and marked truncated.
func TestStreamTextStopsAtTheCap(t *testing.T) {
	x := &Extractor{MaxTextRunes: 1 << 20}
	r := &countReads{r: bytes.NewReader(bigInput("plain words here.\n", 90<<20))}
	got, err := x.Extract(context.Background(), "big.txt", "text/plain", r)
	if err != nil {
		t.Fatalf("Extract = %v", err)
	}
	if got.Extractor != "text"+TruncatedSuffix || len(got.Body) != 1<<20 {
		t.Errorf("extractor %q, %d bytes of text; want text+truncated, 1 MiB", got.Extractor, len(got.Body))
	}
	if r.n > streamMin+2*streamBlock {
		t.Errorf("read %d bytes of the file for 1 MiB of text", r.n)
	}
}

// TestStreamTextRefuses: a large binary file sent as text fails as
// "not text", and one over MaxInputBytes as too large.
func TestStreamTextRefuses(t *testing.T) {
	bin := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 2*streamMin/8)
	if _, err := (&Extractor{}).Extract(context.Background(), "x.txt", "text/plain", bytes.NewReader(bin)); err == nil || !strings.Contains(err.Error(), "not text") {
		t.Errorf("binary as text = %v, want not text", err)
	}
	x := &Extractor{MaxInputBytes: 10 << 20, MaxTextRunes: 50 << 20}
	if _, err := x.Extract(context.Background(), "x.txt", "text/plain", bytes.NewReader(bigInput("words\n", 12<<20))); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("over MaxInputBytes = %v, want too large", err)
	}
}
