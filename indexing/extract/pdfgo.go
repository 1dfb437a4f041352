package extract

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"

	"github.com/ledongthuc/pdf"
)

// pdfGo extracts with github.com/ledongthuc/pdf, the fallback when
// pdftotext is missing. The library parses the file and its content
// streams; the text state machine here places each shown string, so word
// spaces and line breaks come from positions (LaTeX PDFs kern words apart
// instead of drawing spaces). A page the parser chokes on is left empty;
// an unreadable file is EINVALID.
func (j *job) pdfGo() error {
	src := &pdfSource{ctx: j.ctx, r: bytes.NewReader(j.data), budget: pdfReadBudget(len(j.data))}
	r, err := pdf.NewReader(src, int64(len(j.data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(strings.ToLower(err.Error()), "encrypt") {
			return j.invalid("encrypted pdf: %v", err)
		}
		if errors.Is(err, errPDFBudget) {
			return j.invalid("corrupt pdf: %v", err)
		}
		return j.corrupt(err, "pdf")
	}
	j.title = pdfGoTitle(r)
	n := pdfGoNumPage(r)
	if n <= 0 {
		return j.invalid("corrupt pdf: no pages")
	}
	n = min(n, len(j.data)/32+1) // a page object takes more bytes than that
	for i := 1; i <= n; i++ {
		if err := j.ctx.Err(); err != nil {
			return err
		}
		j.b.startPage(i)
		err := j.b.raw(pdfGoPage(j.ctx, r, i))
		j.b.endPage()
		if err != nil {
			return err
		}
		if src.spent() {
			return j.invalid("corrupt pdf: %v", errPDFBudget)
		}
	}
	return j.ctx.Err()
}

// The library has loops that never look at a context and end only when
// the file's structure does: a /Prev chain of xref sections that points
// back at itself (inside pdf.NewReader, appending to the xref table on
// every turn), a page tree whose /Kids contain an ancestor (Reader.Page),
// an object stream that /Extends itself (recursion). Every turn of them
// reads the file again, so the file is where they are stopped: pdfSource
// panics when the parse's context ends (the timeout, or the job going
// away) or when the parse has read pdfReadBudget bytes, and the panic
// unwinds to a recover (the library's own in NewReader, ours around
// each call). So a hostile PDF costs at most the timeout's CPU and never
// outlives it.

// errPDFBudget stops a parse that has read too much.
var errPDFBudget = errors.New("pdf: read budget exceeded (cyclic structure?)")

// pdfReadBudget is how many bytes a parse of a size-byte file may read,
// each read counted as at least pdfReadMin bytes: a well-formed file is
// read a few times over (the library re-reads an object each time it is
// resolved, and walks the page tree from the root for every page), a
// cycle reads forever. A small file gets 65,536 reads.
func pdfReadBudget(size int) int64 { return 256*int64(size) + 256<<20 }

// pdfReadMin is what one read costs at least against the budget (the
// library's buffer is 4 KiB; a cycle over a short tail reads less).
const pdfReadMin = 4 << 10

// pdfSource is the file as the library reads it: a bytes.Reader that
// panics with the context's error, or errPDFBudget, instead of reading.
type pdfSource struct {
	ctx    context.Context
	r      *bytes.Reader
	read   atomic.Int64
	budget int64
}

func (s *pdfSource) ReadAt(p []byte, off int64) (int, error) {
	if err := s.ctx.Err(); err != nil {
		panic(err)
	}
	if s.read.Add(max(int64(len(p)), pdfReadMin)) > s.budget {
		panic(errPDFBudget)
	}
	return s.r.ReadAt(p, off)
}

// spent reports whether the budget ran out (a page's panic was recovered
// and its text kept; the rest of the file is not read).
func (s *pdfSource) spent() bool { return s.read.Load() > s.budget }

func pdfGoNumPage(r *pdf.Reader) (n int) {
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	return r.NumPage()
}

func pdfGoTitle(r *pdf.Reader) (title string) {
	defer func() {
		if recover() != nil {
			title = ""
		}
	}()
	return strings.TrimSpace(clean(r.Trailer().Key("Info").Key("Title").Text()))
}

// errPDFAbort stops a content stream interpreter from inside its callback.
var errPDFAbort = errors.New("pdf: aborted")

// pdfGoPage returns the text of page i, "" when the page cannot be read.
func pdfGoPage(ctx context.Context, r *pdf.Reader, i int) (text string) {
	t := &pdfText{fonts: map[string]*pdfFont{}}
	defer func() {
		if recover() != nil {
			text = t.sb.String() // keep what came before the fault
		}
	}()
	p := r.Page(i)
	if p.V.IsNull() || p.V.Key("Contents").IsNull() {
		return ""
	}
	t.page = p
	ops := 0
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		if ops++; ops%1024 == 0 && ctx.Err() != nil {
			panic(errPDFAbort)
		}
		args := make([]pdf.Value, stk.Len())
		for k := len(args) - 1; k >= 0; k-- {
			args[k] = stk.Pop()
		}
		t.op(op, args)
	})
	return t.sb.String()
}

// pdfMatrix is a PDF transformation matrix [a b c d e f].
type pdfMatrix [6]float64

var pdfIdentity = pdfMatrix{1, 0, 0, 1, 0, 0}

// mul returns m × n.
func (m pdfMatrix) mul(n pdfMatrix) pdfMatrix {
	return pdfMatrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func pdfTranslate(x, y float64) pdfMatrix { return pdfMatrix{1, 0, 0, 1, x, y} }

// pdfFont is what text placement needs of a font, resolved once per page.
type pdfFont struct {
	enc     pdf.TextEncoding
	first   int
	widths  []float64
	twoByte bool // composite font: two-byte codes
}

// width returns the advance of a glyph code in thousandths of text space.
func (f *pdfFont) width(code int) float64 {
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	if f.twoByte {
		return 1000
	}
	return 500 // fonts without widths (the standard 14): an average glyph
}

// pdfText is the text state of one page's content stream and the text
// laid out so far.
type pdfText struct {
	page  pdf.Page
	fonts map[string]*pdfFont

	tm, tlm                 pdfMatrix
	font                    *pdfFont
	tfs, th, tc, tw, tl, ts float64

	sb        strings.Builder
	started   bool
	lastY     float64
	lastEnd   float64
	lastStart float64
}

func (t *pdfText) op(op string, args []pdf.Value) {
	num := func(i int) float64 {
		if i < len(args) {
			return args[i].Float64()
		}
		return 0
	}
	switch op {
	case "BT":
		t.tm, t.tlm = pdfIdentity, pdfIdentity
		if t.th == 0 {
			t.th = 1
		}
	case "Tf":
		if len(args) == 2 {
			t.font = t.fontNamed(args[0].Name())
			t.tfs = num(1)
		}
	case "Tc":
		t.tc = num(0)
	case "Tw":
		t.tw = num(0)
	case "Tz":
		t.th = num(0) / 100
	case "TL":
		t.tl = num(0)
	case "Ts":
		t.ts = num(0)
	case "Td":
		t.moveLine(num(0), num(1))
	case "TD":
		t.tl = -num(1)
		t.moveLine(num(0), num(1))
	case "Tm":
		if len(args) == 6 {
			t.tlm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}
			t.tm = t.tlm
		}
	case "T*":
		t.moveLine(0, -t.tl)
	case "Tj":
		if len(args) == 1 {
			t.show(args[0].RawString())
		}
	case "'":
		t.moveLine(0, -t.tl)
		if len(args) == 1 {
			t.show(args[0].RawString())
		}
	case "\"":
		if len(args) == 3 {
			t.tw, t.tc = num(0), num(1)
			t.moveLine(0, -t.tl)
			t.show(args[2].RawString())
		}
	case "TJ":
		if len(args) != 1 {
			return
		}
		a := args[0]
		for k := 0; k < a.Len(); k++ {
			v := a.Index(k)
			if v.Kind() == pdf.String {
				t.show(v.RawString())
			} else {
				t.tm = pdfTranslate(-v.Float64()/1000*t.tfs*t.th, 0).mul(t.tm)
			}
		}
	}
}

func (t *pdfText) moveLine(x, y float64) {
	t.tlm = pdfTranslate(x, y).mul(t.tlm)
	t.tm = t.tlm
}

// fontNamed resolves a font resource of the page once.
func (t *pdfText) fontNamed(name string) *pdfFont {
	if f, ok := t.fonts[name]; ok {
		return f
	}
	pf := t.page.Font(name)
	f := &pdfFont{enc: pf.Encoder(), twoByte: pf.V.Key("Subtype").Name() == "Type0"}
	if !f.twoByte {
		f.first = pf.FirstChar()
		f.widths = pf.Widths()
	}
	t.fonts[name] = f
	return f
}

// show places a shown string: a newline before it when the baseline moved,
// a space when it starts clearly right of where the last one ended.
func (t *pdfText) show(s string) {
	f := t.font
	if f == nil {
		f = &pdfFont{}
	}
	text := s
	if f.enc != nil {
		text = f.enc.Decode(s)
	}
	x0, y0 := t.tm[4], t.tm[5]
	fs := math.Abs(t.tfs) * math.Hypot(t.tm[2], t.tm[3])
	if fs == 0 {
		fs = math.Max(math.Abs(t.tfs), 1)
	}
	step := 1
	if f.twoByte {
		step = 2
	}
	for k := 0; k+step <= len(s); k += step {
		code := int(s[k])
		if step == 2 {
			code = code<<8 | int(s[k+1])
		}
		adv := f.width(code)/1000*t.tfs + t.tc
		if step == 1 && code == ' ' {
			adv += t.tw
		}
		t.tm = pdfTranslate(adv*t.th, 0).mul(t.tm)
	}
	if text == "" {
		return
	}
	if t.started {
		switch gap := x0 - t.lastEnd; {
		case math.Abs(y0-t.lastY) > 0.5*fs:
			t.sb.WriteByte('\n')
		case strings.HasSuffix(t.sb.String(), " ") || strings.HasPrefix(text, " "):
		case gap > 0.15*fs, x0 < t.lastStart-fs:
			t.sb.WriteByte(' ')
		}
	}
	t.sb.WriteString(text)
	t.started = true
	t.lastY, t.lastStart, t.lastEnd = y0, x0, t.tm[4]
}
