package extract

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// RawPDF is rawPDF for the package's external tests (the PDF fixtures).
var RawPDF = rawPDF

// rawPDF writes a PDF of the given objects (1-based, in order) with a
// correct xref table and the binary-marker comment line; trailer is the
// trailer dictionary's body, where "{xref}" stands for the xref table's
// own offset.
func rawPDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, strings.ReplaceAll(trailer, "{xref}", strconv.Itoa(xref)), xref)
	return b.Bytes()
}

// TestPDFCyclesStop: PDFs whose structure loops make github.com/ledongthuc/pdf
// loop forever without looking at a context (found while triaging the
// stalled FuzzExtractPDF). Extract must fail with EINVALID, and the parse
// must stop rather than burn a CPU after Extract returned. Before the
// file reads were made to check the context and a budget, each of these
// ran until the timeout and then on forever in the background (the /Prev
// cycle also growing the xref table without bound).
func TestPDFCyclesStop(t *testing.T) {
	page := `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R >>`
	content := "<< /Length 0 >>\nstream\n\nendstream"
	cases := []struct {
		name string
		pdf  []byte
	}{
		{"kids cycle", rawPDF([]string{`<< /Type /Catalog /Pages 2 0 R >>`, `<< /Type /Pages /Kids [2 0 R] /Count 1 >>`}, "/Root 1 0 R")},
		{"kids cycle below a page", rawPDF([]string{`<< /Type /Catalog /Pages 2 0 R >>`, `<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 3 >>`, page, content,
			`<< /Type /Pages /Kids [5 0 R] /Count 2 >>`}, "/Root 1 0 R")},
		{"xref prev cycle", rawPDF([]string{`<< /Type /Catalog /Pages 2 0 R >>`, `<< /Type /Pages /Kids [3 0 R] /Count 1 >>`, page, content}, "/Root 1 0 R /Prev {xref}")},
	}
	for _, tc := range cases {
		for _, timeout := range []time.Duration{200 * time.Millisecond, time.Minute} {
			t.Run(fmt.Sprintf("%s/timeout %s", tc.name, timeout), func(t *testing.T) {
				exited := make(chan struct{})
				x := &Extractor{PDFToText: "/nonexistent/pdftotext", Timeout: timeout, exited: func() { close(exited) }}
				start := time.Now()
				_, err := x.Extract(context.Background(), "cycle.pdf", "application/pdf", bytes.NewReader(tc.pdf))
				if hs.ErrorKind(err) != hs.EINVALID {
					t.Fatalf("Extract = %v, want EINVALID", err)
				}
				t.Logf("after %v: %v", time.Since(start), err)
				if timeout == time.Minute && strings.Contains(err.Error(), "timed out") {
					t.Errorf("Extract = %v after %v: the read budget should stop the cycle before the timeout", err, time.Since(start))
				}
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					t.Fatalf("the parse still runs 10 s after Extract returned (%v)", err)
				}
			})
		}
	}
}
