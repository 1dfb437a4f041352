package extract

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
)

// errTruncated stops a parser once the body reached MaxTextRunes; Extract
// treats it as success and marks the Text as truncated.
var errTruncated = errors.New("text limit reached")

// block kinds, for the separator the next block needs.
const (
	kindNone = iota
	kindPara
	kindLine
)

// builder accumulates the body of one Text: blocks separated by blank lines,
// lines of a table or list separated by single newlines, a rune budget and
// page spans. Every write checks the context now and then, so a walker
// stops soon after a timeout.
type builder struct {
	ctx       context.Context
	sb        strings.Builder
	runes     int // runes in sb
	max       int // rune budget
	last      int // kind of the last block written
	truncated bool
	writes    int

	pages       []hs.Page
	pageOpen    bool // the last page receives text
	pagePending bool // the last page has no text yet
}

func newBuilder(ctx context.Context, maxRunes int) *builder {
	return &builder{ctx: ctx, max: maxRunes}
}

// para writes s as a paragraph. s may hold single line breaks.
func (b *builder) para(s string) error {
	return b.block(kindPara, strings.TrimSpace(clean(s)))
}

// line writes s as one line of a group (a table row, a list item, a header
// line): directly below the previous line, or after a blank line when the
// previous block was a paragraph. Leading spaces (list indentation) stay.
func (b *builder) line(s string) error {
	s = strings.TrimRight(clean(s), " \t\n")
	if strings.TrimSpace(s) == "" {
		s = ""
	}
	return b.block(kindLine, strings.TrimLeft(s, "\n"))
}

// heading writes a Markdown heading line of the given level (clamped to
// 1..6). Line breaks inside s become spaces.
func (b *builder) heading(level int, s string) error {
	s = collapseSpace(clean(s))
	if s == "" {
		return b.check()
	}
	level = min(max(level, 1), 6)
	return b.block(kindPara, strings.Repeat("#", level)+" "+s)
}

// end closes a group of lines, so the next line starts after a blank line.
func (b *builder) end() {
	if b.last == kindLine {
		b.last = kindPara
	}
}

// raw writes text that already has its own paragraph structure, such as a
// plain text file, as one block.
func (b *builder) raw(s string) error {
	return b.block(kindPara, strings.Trim(clean(s), "\n"))
}

func (b *builder) block(kind int, s string) error {
	if err := b.check(); err != nil {
		return err
	}
	if s == "" {
		return nil
	}
	if b.runes > 0 {
		sep := "\n\n"
		if kind == kindLine && b.last == kindLine {
			sep = "\n"
		}
		if err := b.write(sep); err != nil {
			return err
		}
	}
	if b.pagePending {
		b.pages[len(b.pages)-1].Start = b.runes
		b.pagePending = false
	}
	b.last = kind
	return b.write(s)
}

// write appends s within the rune budget.
func (b *builder) write(s string) error {
	n := utf8.RuneCountInString(s)
	if b.runes+n <= b.max {
		b.sb.WriteString(s)
		b.runes += n
		b.closePage()
		return nil
	}
	room := b.max - b.runes
	for i := range s {
		if room == 0 {
			b.sb.WriteString(s[:i])
			break
		}
		room--
	}
	b.runes = b.max
	b.truncated = true
	b.closePage()
	return errTruncated
}

// check reports errTruncated once the budget is spent and the context's
// error every 64 calls.
func (b *builder) check() error {
	if b.truncated {
		return errTruncated
	}
	b.writes++
	if b.writes%64 == 0 {
		return b.ctx.Err()
	}
	return nil
}

// startPage begins page n: its span starts where its first text lands.
func (b *builder) startPage(n int) {
	b.pages = append(b.pages, hs.Page{Number: n, Start: b.runes, End: b.runes})
	b.pageOpen = true
	b.pagePending = true
}

// closePage moves the open page's end to the current offset.
func (b *builder) closePage() {
	if b.pageOpen {
		b.pages[len(b.pages)-1].End = b.runes
	}
}

// endPage ends the current page; text written after it belongs to no page
// until the next startPage.
func (b *builder) endPage() {
	b.pageOpen = false
	b.pagePending = false
}

func (b *builder) String() string { return b.sb.String() }

// clean makes s valid UTF-8 (invalid bytes become U+FFFD, so nothing is
// dropped silently), turns CR LF, CR, form feeds and Unicode line separators
// into LF, and drops other control characters and byte order marks.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexFunc(s, needsClean) < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n', r == '\t':
			return r
		case r == '\r', r == '\f', r == '\v', r == '\u2028', r == '\u2029', r == '\u0085':
			return '\n'
		case unicode.IsControl(r), r == '\uFEFF':
			return -1
		}
		return r
	}, s)
}

func needsClean(r rune) bool {
	return (unicode.IsControl(r) && r != '\n' && r != '\t') || r == '\uFEFF' || r == '\u2028' || r == '\u2029'
}

// collapseSpace joins the words of s with single spaces.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sink receives blocks: the builder itself, or a blockBuffer holding a
// slide until its title is known.
type sink interface {
	para(s string) error
	line(s string) error
	heading(level int, s string) error
	end()
}

// blockBuffer records blocks to replay into a builder later, within its
// own rune budget.
type blockBuffer struct {
	blocks []bufferedBlock
	runes  int
	max    int
}

type bufferedBlock struct {
	kind  int // kindPara, kindLine, or kindNone: a heading when level > 0, else an end
	level int
	text  string
}

func (bb *blockBuffer) add(kind, level int, s string) error {
	if bb.runes > bb.max {
		return errTruncated
	}
	bb.runes += utf8.RuneCountInString(s)
	bb.blocks = append(bb.blocks, bufferedBlock{kind: kind, level: level, text: s})
	return nil
}

func (bb *blockBuffer) para(s string) error { return bb.add(kindPara, 0, s) }
func (bb *blockBuffer) line(s string) error { return bb.add(kindLine, 0, s) }
func (bb *blockBuffer) heading(level int, s string) error {
	return bb.add(kindNone, level, s)
}
func (bb *blockBuffer) end() { bb.blocks = append(bb.blocks, bufferedBlock{kind: kindNone}) }

// slide writes slide n as "## Slide n: title" followed by its blocks, and
// records it as page n. A bb that ran out of budget is replayed all the
// same: the builder then reports errTruncated itself.
func (b *builder) slide(n int, title string, bb *blockBuffer) error {
	b.startPage(n)
	defer b.endPage()
	h := "Slide " + strconv.Itoa(n)
	if title = collapseSpace(clean(title)); title != "" {
		h += ": " + title
	}
	if err := b.heading(2, h); err != nil {
		return err
	}
	for _, bl := range bb.blocks {
		var err error
		switch {
		case bl.kind == kindPara:
			err = b.para(bl.text)
		case bl.kind == kindLine:
			err = b.line(bl.text)
		case bl.level > 0:
			err = b.heading(bl.level, bl.text)
		default:
			b.end()
		}
		if err != nil {
			return err
		}
	}
	b.end()
	return nil
}
