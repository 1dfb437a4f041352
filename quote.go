package hybridsearch

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// QuoteRunes is how many characters of a value Quote shows.
const QuoteRunes = 100

// Quote returns s as a Go-quoted string for an error message, cut to its
// first QuoteRunes characters with "…" and the full length when it is
// longer: a 900 KB query must not make a 900 KB error.
func Quote(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= QuoteRunes {
		return strconv.Quote(s)
	}
	cut, k := s, 0
	for i := range s {
		if k == QuoteRunes {
			cut = s[:i]
			break
		}
		k++
	}
	return strconv.Quote(cut) + "… (" + strconv.Itoa(n) + " characters)"
}

// FormatNumber prints f the way a person writes it: 0.3 rather than
// 0.30000000000000004, 1100000 rather than 1.1e+06, with at most six
// significant digits, and in exponent form only beyond a trillion or below
// a millionth.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "infinity"
	case math.IsInf(f, -1):
		return "-infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e12 || a < 1e-6 {
		return strings.Replace(strconv.FormatFloat(f, 'g', 6, 64), "e+", "e", 1)
	}
	// Round to six significant digits, then print without exponent.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}
