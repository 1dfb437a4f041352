package extract

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// csv extracts delimited text: one line per row, cells joined by " | ".
// The delimiter (comma, semicolon or tab) is guessed from the first lines.
// Text the CSV reader cannot parse is kept as plain text.
func (j *job) csv() error {
	s, err := j.text()
	if err != nil {
		return err
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = guessDelimiter(s)
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return err
			}
			// Keep the rest as text rather than lose it.
			off := min(int(r.InputOffset()), len(s))
			return j.b.raw(s[off:])
		}
		for i, c := range rec {
			rec[i] = collapseSpace(c)
		}
		if err := j.b.line(joinCells(rec)); err != nil {
			return err
		}
	}
}

// guessDelimiter picks the delimiter that occurs most, outside quotes, in
// the first few lines.
func guessDelimiter(s string) rune {
	counts := map[rune]int{',': 0, ';': 0, '\t': 0}
	quoted, lines := false, 0
scan:
	for _, r := range s[:min(len(s), 8<<10)] {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '\n':
			if lines++; lines == 5 {
				break scan
			}
		default:
			if _, ok := counts[r]; ok {
				counts[r]++
			}
		}
	}
	best := ','
	for _, d := range []rune{';', '\t'} {
		if counts[d] > counts[best] {
			best = d
		}
	}
	return best
}
