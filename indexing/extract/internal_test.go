package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestParserPanicRecovered(t *testing.T) {
	x := &Extractor{hook: func(context.Context) { panic("boom") }}
	_, err := x.Extract(context.Background(), "x.txt", "text/plain", strings.NewReader("hello"))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "text parser crashed") {
		t.Fatalf("Extract = %v, want EINVALID parser crashed", err)
	}
	if msg := hs.ErrorMessage(err); strings.Contains(msg, "goroutine") {
		t.Errorf("user message %q shows the stack", msg)
	}
}

func TestTimeout(t *testing.T) {
	x := &Extractor{Timeout: 50 * time.Millisecond, hook: func(ctx context.Context) { <-ctx.Done() }}
	start := time.Now()
	_, err := x.Extract(context.Background(), "x.txt", "text/plain", strings.NewReader("hello"))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Fatalf("Extract = %v, want EINVALID timed out", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Extract returned after %v", d)
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{60 * time.Second: "60s", 1500 * time.Millisecond: "1.5s"} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCanceledWhileParsing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	x := &Extractor{hook: func(pctx context.Context) {
		cancel()
		<-pctx.Done()
	}}
	_, err := x.Extract(ctx, "x.txt", "text/plain", strings.NewReader("hello"))
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
		t.Fatalf("Extract = %v, want EUNAVAILABLE canceled", err)
	}
}

func TestBuilderPages(t *testing.T) {
	b := newBuilder(context.Background(), 100)
	b.startPage(1)
	_ = b.para("eins")
	b.endPage()
	b.startPage(2)
	b.endPage()
	b.startPage(3)
	_ = b.para("drei")
	_ = b.line("zeile")
	b.endPage()
	want := []hs.Page{{Number: 1, Start: 0, End: 4}, {Number: 2, Start: 4, End: 4}, {Number: 3, Start: 6, End: 17}}
	if got := b.String(); got != "eins\n\ndrei\n\nzeile" {
		t.Errorf("body = %q", got)
	}
	for i, p := range b.pages {
		if p != want[i] {
			t.Errorf("page %d = %+v, want %+v", i+1, p, want[i])
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb\rc", "a\nb\nc"},
		{"a\x00b\x07c\tz", "abc\tz"},
		{"x\fy", "x\ny"},
		{"\uFEFFbom", "bom"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct{ in, wantTitle, wantBody string }{
		{"---\ntitle: Plain\n---\nbody", "Plain", "body"},
		{"---\r\ntitle: 'it''s'\r\n...\r\nbody", "it's", "body"},
		{"---\ntitle: x # comment\n---\n", "x", ""},
		{"---\nno end\n", "", "---\nno end\n"},
		{"# no front matter", "", "# no front matter"},
	}
	for _, tt := range tests {
		front, body, ok := frontMatter(tt.in)
		title := ""
		if ok {
			title = frontMatterTitle(front)
		}
		if title != tt.wantTitle || body != tt.wantBody {
			t.Errorf("frontMatter(%q) = title %q body %q, want %q %q", tt.in, title, body, tt.wantTitle, tt.wantBody)
		}
	}
}
