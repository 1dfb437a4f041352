package extract

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestPDFTimeoutStopsPdftotext: a pdftotext that never ends costs the
// timeout, and the parse does not outlive the extraction: the tool is
// killed, and the pipe its child (sleep) still holds is closed by
// WaitDelay.
func TestPDFTimeoutStopsPdftotext(t *testing.T) {
	hang := filepath.Join(t.TempDir(), "pdftotext")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nsleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	page := `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>`
	pdf := rawPDF([]string{`<< /Type /Catalog /Pages 2 0 R >>`, `<< /Type /Pages /Kids [3 0 R] /Count 1 >>`, page}, "/Root 1 0 R")
	exited := make(chan struct{})
	x := &Extractor{PDFToText: hang, Timeout: 200 * time.Millisecond, exited: func() { close(exited) }}
	_, err := x.Extract(context.Background(), "hang.pdf", "application/pdf", bytes.NewReader(pdf))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Extract = %v, want EINVALID timed out", err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the parse still runs 10 s after Extract returned")
	}
}
