package analysis

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Identifiers returns the identifiers in text, normalised (NFKC, lowercase,
// ß → "ss", whitespace collapsed to one space) for verbatim matching with
// ContainsIdentifier, in order of appearance, without repeats.
//
// Single-token identifiers are maximal runs of non-CJK letters and digits
// joined by ".", "-" or "_" (and "," between digits) that
//   - contain a digit, and
//   - contain a letter (D40, RFC5323, ISO-9001, PII-2024-0042, v2.3.1,
//     COVID-19), except ordinals such as 1st, 2nd, 23rd, 4th, or
//   - are all digits with a "." or at least two separators (75.1725, 1.2.3,
//     2024-01-15), but not with "," (1,000.50 is an amount, not a code).
//
// They are 2 to 64 runes long. Three multi-token forms are returned as well,
// in addition to their parts:
//   - <number> <ACRONYM> <section>: "30 CFR 75.1725", "42 U.S.C. 1983";
//   - <ACRONYM> <number>: "ISO 9001", "RFC 5323" (not for a few capitalised
//     function words such as "PAGE 3" or "THE 2");
//   - § <number> <Abbrev>: "§ 823 BGB", "§ 3a UWG" (German statutes).
//
// An ACRONYM is 2–6 capital letters, each optionally followed by a dot; a
// section is digits joined by "." or "-". The parts may be separated by
// any whitespace, including line breaks. Lowercase forms ("30 cfr 75.1725")
// are not recognised as multi-token identifiers; their numeric part still is.
func Identifiers(text string) []string {
	ms := findIdentifiers(text)
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		if !slices.Contains(out, m.text) {
			out = append(out, m.text)
		}
	}
	return out
}

// idMatch is one identifier found in a text.
type idMatch struct {
	text       string // normalised
	start, end int    // rune offsets in the original text
}

var (
	reNumActSection = regexp.MustCompile(`\d{1,5}\s+(?:\p{Lu}\.?){2,6}\s+\d+(?:[.\-]\d+)*`)
	reActNumber     = regexp.MustCompile(`(?:\p{Lu}\.?){2,6}\s+\d+(?:[.\-]\d+)*`)
	reStatute       = regexp.MustCompile(`§{1,2}\s*\d+[a-z]?\s+\p{Lu}\p{L}{1,7}`)
)

// notActs are capitalised words that look like acronyms before a number
// but name no standard: "PAGE 3", "TOP 10", "SEITE 4".
var notActs = []string{
	"AND", "ARE", "AT", "BY", "FIG", "FOR", "IN", "IS", "NO", "NR", "OF", "ON",
	"OR", "PAGE", "PART", "SEE", "STEP", "TAB", "THE", "TO", "TOP", "WAS",
	"ABS", "AM", "AUF", "DAS", "DER", "DIE", "IM", "MIT", "SEITE", "TEIL", "UND", "VON",
}

func findIdentifiers(text string) []idMatch {
	nt := normalize(text, false)
	var out []idMatch
	add := func(start, end int) {
		out = append(out, idMatch{
			text:  canonical(string(nt.runes[start:end])),
			start: nt.from[start],
			end:   nt.to[end-1],
		})
	}
	multi := multiTokenSpans(nt.runes)
	for _, sp := range multi {
		add(sp[0], sp[1])
	}
	r := nt.runes
	for i := 0; i < len(r); {
		if !isIDRune(r[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(r) {
			if isIDRune(r[j]) {
				j++
				continue
			}
			if j+1 < len(r) && isIDRune(r[j+1]) && joins(r[j-1], r[j], r[j+1]) {
				j += 2
				continue
			}
			break
		}
		if isSingleID(r[i:j]) {
			add(i, j)
		}
		i = j
	}
	slices.SortStableFunc(out, func(a, b idMatch) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	return out
}

// isIDRune reports whether r can be part of an identifier: a digit, or a
// letter of a script written with spaces.
func isIDRune(r rune) bool {
	return unicode.IsDigit(r) || (unicode.IsLetter(r) && !isCJK(r))
}

// joins reports whether sep, between prev and next, joins them into one
// identifier.
func joins(prev, sep, next rune) bool {
	switch sep {
	case '.', '-', '_':
		return true
	case ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}

func isSingleID(r []rune) bool {
	if len(r) < 2 || len(r) > 64 {
		return false
	}
	var letters, digits, seps int
	dot, comma := false, false
	for _, c := range r {
		switch {
		case unicode.IsDigit(c):
			digits++
		case unicode.IsLetter(c):
			letters++
		default:
			seps++
			dot = dot || c == '.'
			comma = comma || c == ','
		}
	}
	switch {
	case digits == 0:
		return false
	case letters > 0:
		return !isOrdinal(r)
	default:
		return !comma && (dot || seps >= 2)
	}
}

// isOrdinal reports whether r is an English ordinal such as "21st".
func isOrdinal(r []rune) bool {
	n := len(r)
	if n < 3 {
		return false
	}
	for _, c := range r[:n-2] {
		if !unicode.IsDigit(c) {
			return false
		}
	}
	switch strings.ToLower(string(r[n-2:])) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// multiTokenSpans returns the rune spans of multi-token identifiers in r
// (NFKC, not lowercased), the three forms Identifiers documents.
func multiTokenSpans(r []rune) [][2]int {
	s := string(r)
	var spans [][2]int
	overlaps := func(a, b int) bool {
		for _, sp := range spans {
			if a < sp[1] && sp[0] < b {
				return true
			}
		}
		return false
	}
	for _, re := range []*regexp.Regexp{reNumActSection, reStatute, reActNumber} {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			a, b := loc[0], loc[1]
			if !bounded(s, a, b) || overlaps(a, b) {
				continue
			}
			m := s[a:b]
			if re == reActNumber && slices.Contains(notActs, strings.ReplaceAll(strings.Fields(m)[0], ".", "")) {
				continue
			}
			if re == reStatute && upperCount(m[strings.LastIndexFunc(m, unicode.IsSpace):]) < 2 {
				continue
			}
			spans = append(spans, [2]int{a, b})
		}
	}
	for i, sp := range spans {
		spans[i] = [2]int{utf8.RuneCountInString(s[:sp[0]]), utf8.RuneCountInString(s[:sp[1]])}
	}
	return spans
}

func upperCount(s string) int {
	n := 0
	for _, c := range s {
		if unicode.IsUpper(c) {
			n++
		}
	}
	return n
}

// bounded reports whether s[a:b] stands on its own: no letter or digit
// right before or after it, and no separator that continues it into a
// longer number ("75.1725" is not an identifier inside "75.1725.3").
func bounded(s string, a, b int) bool {
	if a > 0 {
		prev, n := utf8.DecodeLastRuneInString(s[:a])
		if isAlnum(prev) {
			return false
		}
		if before, _ := utf8.DecodeLastRuneInString(s[:a-n]); a-n > 0 && isJoiner(prev) && unicode.IsDigit(before) {
			return false
		}
	}
	if b < len(s) {
		next, n := utf8.DecodeRuneInString(s[b:])
		if isAlnum(next) {
			return false
		}
		if after, _ := utf8.DecodeRuneInString(s[b+n:]); b+n < len(s) && isJoiner(next) && unicode.IsDigit(after) {
			return false
		}
	}
	return true
}

func isJoiner(r rune) bool {
	return r == '.' || r == '-' || r == '_' || r == ','
}

// canonical returns s folded and with whitespace runs collapsed to a space.
func canonical(s string) string {
	return strings.Join(strings.Fields(Fold(s)), " ")
}

// ContainsIdentifier reports whether chunkText contains the identifier id
// verbatim, ignoring case, NFKC differences and the amount of whitespace
// between its parts, and only as a whole: "d40" is in "Form D40." and in
// "D40-Formular", not in "D400"; "75.1725" is not in "75.1725.3" or
// "1975.1725"; "pii-2024" is not in "PII-2024-0042". An empty id is never
// contained.
func ContainsIdentifier(chunkText, id string) bool {
	id = canonical(id)
	if id == "" {
		return false
	}
	t := canonical(chunkText)
	for off := 0; off < len(t); {
		k := strings.Index(t[off:], id)
		if k < 0 {
			return false
		}
		a := off + k
		if bounded(t, a, a+len(id)) {
			return true
		}
		_, n := utf8.DecodeRuneInString(t[a:])
		off = a + n
	}
	return false
}
