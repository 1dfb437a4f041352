package extract

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// sampleLen is how much of a text file the binary check and charset
// detection look at.
const sampleLen = 64 << 10

// maxControlPercent is the share of control bytes above which data is not
// text.
const maxControlPercent = 1.0

// notTextError says data looks binary.
type notTextError struct{ percent float64 }

func (e notTextError) Error() string {
	return fmt.Sprintf("not text: %.0f%% control bytes", e.percent)
}

// decodeText returns data as UTF-8. It honours byte order marks (UTF-8,
// UTF-16), recognises BOM-less UTF-16 by its zero bytes, keeps UTF-8 (bad
// bytes in mostly-UTF-8 data are left for clean to mark with U+FFFD) and
// otherwise decodes the charset chardet detects, Windows-1252 when unsure.
// Data with too many control bytes gives a notTextError.
func decodeText(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), data)
	}
	sample := data[:min(len(data), sampleLen)]
	if e := utf16Guess(sample); e != nil {
		s, _ := decodeWith(e, data)
		if p := controlRunes(s[:min(len(s), sampleLen)]); p > maxControlPercent {
			return "", notTextError{p}
		}
		return s, nil
	}
	if p := controlPercent(sample); p > maxControlPercent {
		return "", notTextError{p}
	}
	if utf8.Valid(data) || mostlyUTF8(sample) {
		return string(data), nil
	}
	return decodeWith(detectCharset(sample), data)
}

// decodeCharset decodes data in the named charset; an unknown or empty
// name falls back to decodeText's detection.
func decodeCharset(data []byte, name string) (string, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || name == "utf-8" || name == "utf8" || name == "us-ascii" {
		return decodeText(data)
	}
	e := lookupCharset(name)
	if e == nil {
		return decodeText(data)
	}
	return decodeWith(e, data)
}

func decodeWith(e encoding.Encoding, data []byte) (string, error) {
	out, err := e.NewDecoder().Bytes(data)
	if err != nil {
		// Decoders only fail on bytes they cannot map; Windows-1252 maps
		// every byte.
		out, _ = charmap.Windows1252.NewDecoder().Bytes(data)
	}
	return string(out), nil
}

// lookupCharset finds an encoding by WHATWG or IANA name; Latin-1 is read
// as its superset Windows-1252, as browsers do.
func lookupCharset(name string) encoding.Encoding {
	if e, err := htmlindex.Get(name); err == nil {
		return e
	}
	if e, err := ianaindex.IANA.Encoding(name); err == nil && e != nil {
		return e
	}
	return nil
}

// detectCharset guesses the charset of non-UTF-8 text.
func detectCharset(sample []byte) encoding.Encoding {
	res, err := chardet.NewTextDetector().DetectBest(sample)
	if err != nil || res.Confidence < 30 || strings.HasPrefix(strings.ToLower(res.Charset), "utf-") {
		return charmap.Windows1252
	}
	if e := lookupCharset(res.Charset); e != nil {
		return e
	}
	return charmap.Windows1252
}

// utf16Guess recognises BOM-less UTF-16 by mostly-ASCII text's zero high
// bytes.
func utf16Guess(sample []byte) encoding.Encoding {
	n := len(sample) / 2
	if n < 2 {
		return nil
	}
	var even, odd int
	for i := 0; i+1 < len(sample); i += 2 {
		if sample[i] == 0 {
			even++
		}
		if sample[i+1] == 0 {
			odd++
		}
	}
	switch {
	case odd*10 > n*4 && even*20 < n:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case even*10 > n*4 && odd*20 < n:
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return nil
}

// controlPercent is the share of bytes in sample that no text file holds:
// C0 controls other than tab, line feed, vertical tab, form feed, carriage
// return and escape (colour codes in logs), plus DEL.
func controlPercent(sample []byte) float64 {
	if len(sample) == 0 {
		return 0
	}
	var n int
	for _, c := range sample {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b) || c == 0x7f {
			n++
		}
	}
	return float64(n) * 100 / float64(len(sample))
}

// controlRunes is controlPercent for decoded text.
func controlRunes(s string) float64 {
	var n, all int
	for _, r := range s {
		all++
		if r < 0x20 && r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r' && r != 0x1b || r == 0x7f {
			n++
		}
	}
	if all == 0 {
		return 0
	}
	return float64(n) * 100 / float64(all)
}

// mostlyUTF8 reports whether sample holds more valid multi-byte UTF-8
// sequences than invalid bytes: UTF-8 with a few broken bytes rather than a
// legacy charset.
func mostlyUTF8(sample []byte) bool {
	var multi, bad int
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRune(sample[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if len(sample)-i < utf8.UTFMax && !utf8.FullRune(sample[i:]) {
				size = len(sample) - i // cut at the sample's end
			} else {
				bad++
			}
		case size > 1:
			multi++
		}
		i += size
	}
	return multi > bad
}

// codePage maps a Windows code page number to its encoding, nil if unknown.
func codePage(n int) encoding.Encoding {
	switch n {
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 852:
		return charmap.CodePage852
	case 866:
		return charmap.CodePage866
	case 874:
		return charmap.Windows874
	case 932:
		return japanese.ShiftJIS
	case 936:
		return simplifiedchinese.GBK
	case 949:
		return korean.EUCKR
	case 950:
		return traditionalchinese.Big5
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1252:
		return charmap.Windows1252
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 1258:
		return charmap.Windows1258
	case 10000:
		return charmap.Macintosh
	}
	return nil
}

// fontCharset maps an RTF \fcharset number to its encoding; nil means the
// document's ANSI code page.
func fontCharset(n int) encoding.Encoding {
	switch n {
	case 128:
		return japanese.ShiftJIS
	case 129:
		return korean.EUCKR
	case 134:
		return simplifiedchinese.GBK
	case 136:
		return traditionalchinese.Big5
	case 161:
		return charmap.Windows1253
	case 162:
		return charmap.Windows1254
	case 163:
		return charmap.Windows1258
	case 177:
		return charmap.Windows1255
	case 178:
		return charmap.Windows1256
	case 186:
		return charmap.Windows1257
	case 204:
		return charmap.Windows1251
	case 222:
		return charmap.Windows874
	case 238:
		return charmap.Windows1250
	}
	return nil
}
