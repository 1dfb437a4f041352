package extract

import (
	"bytes"
	"context"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	hs "github.com/hybrid-search/hybridsearch"
)

// streamMin is the size from which plain text and Markdown are extracted
// while they are read: a smaller file is read whole and parsed as before.
// Read whole, a 100 MB text file would be held three times over (the
// bytes, their string, the cleaned copy); streamed, only the text kept
// (at most MaxTextRunes) and one block are.
const streamMin = 8 << 20

// streamBlock is how much a stream reads, decodes and cleans at a time.
const streamBlock = 1 << 20

// streamText extracts a large plain text or Markdown file while reading
// it. head is what Extract read already (streamMin bytes); r has the rest.
// The charset and the binary check come from the first sampleLen bytes,
// as decodeText decides them; blocks are then decoded, cleaned and
// appended until the text reaches MaxTextRunes (reading stops there: the
// Text is truncated) or r ends. An input over MaxInputBytes that is not
// truncated first is ETOOLARGE.
func (x *Extractor) streamText(ctx context.Context, name string, f format, head []byte, r io.Reader, lim limits) (hs.Text, error) {
	j := &job{ctx: ctx, name: name, format: f, lim: lim, b: newBuilder(ctx, lim.maxRunes), extractor: string(f)}
	var dec encoding.Encoding
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		head = head[3:]
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		dec = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	}
	sample := head[:min(len(head), sampleLen)]
	if dec == nil {
		dec = utf16Guess(sample)
	}
	if dec == nil {
		if p := controlPercent(sample); p > maxControlPercent {
			return hs.Text{}, j.invalid("%v", notTextError{p})
		}
		if !utf8.Valid(sample) && !mostlyUTF8(sample) {
			dec = detectCharset(sample)
		}
	}
	read := &countingReader{r: io.MultiReader(bytes.NewReader(head), r)}
	var src io.Reader = read
	if dec != nil {
		src = transform.NewReader(read, dec.NewDecoder())
	}
	buf := make([]byte, streamBlock)
	var carry []byte
	first := true
	for {
		if err := ctx.Err(); err != nil {
			return hs.Text{}, hs.WrapError(hs.EUNAVAILABLE, err, "extract "+name+": stopped")
		}
		n, rerr := io.ReadFull(src, buf[len(carry):])
		copy(buf, carry)
		block := buf[:len(carry)+n]
		carry = carry[:0]
		if rerr == nil {
			// Keep an incomplete rune, or a CR whose LF may follow, for
			// the next block.
			cut := len(block)
			for i := len(block) - 1; i >= max(0, len(block)-utf8.UTFMax); i-- {
				if utf8.RuneStart(block[i]) {
					if !utf8.FullRune(block[i:]) {
						cut = i
					}
					break
				}
			}
			if cut > 0 && block[cut-1] == '\r' {
				cut--
			}
			carry = append(carry, block[cut:]...)
			block = block[:cut]
		}
		if read.n > lim.maxInput {
			return hs.Text{}, tooLarge(name, lim.maxInput)
		}
		s := clean(string(block))
		if first {
			if dec != nil {
				if p := controlRunes(s[:min(len(s), sampleLen)]); p > maxControlPercent {
					return hs.Text{}, j.invalid("%v", notTextError{p})
				}
			}
			s = strings.TrimLeft(s, "\n")
			if f == fmtMarkdown {
				if front, body, ok := frontMatter(s); ok {
					j.title = frontMatterTitle(front)
					s = strings.TrimLeft(body, "\n")
				}
			}
			first = false
		}
		if err := j.b.write(s); err != nil {
			j.extractor += TruncatedSuffix
			break
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return hs.Text{}, readError(name, rerr)
		}
	}
	return hs.Text{Body: strings.TrimRight(j.b.String(), "\n"), Title: j.title, Extractor: j.extractor}, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
