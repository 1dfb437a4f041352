package app

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

// extractor adds the format check to extract.Extractor, and lets the
// largest file and the OCR languages change while the pipeline runs
// (admin settings).
type extractor struct {
	cur atomic.Pointer[extract.Extractor]
	mu  sync.Mutex
	ocr extract.OCR // of every Extractor made
}

func (x *extractor) setLimit(maxBytes int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.cur.Store(&extract.Extractor{MaxInputBytes: maxBytes, OCR: x.ocr})
}

// setOCR sets the OCR configuration of the extractors setLimit makes.
func (x *extractor) setOCR(o extract.OCR) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ocr = o
}

// setOCRLanguages changes the languages recognised, now and later.
func (x *extractor) setOCRLanguages(langs []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ocr.Languages = slices.Clone(langs)
	x.cur.Load().SetOCRLanguages(langs)
}

func (x *extractor) Extract(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	return x.cur.Load().Extract(ctx, name, mime, r)
}

func (x *extractor) ExtractOCR(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	return x.cur.Load().ExtractOCR(ctx, name, mime, r)
}

// checkOCR is the "ocr" component of the status: "OCR unavailable:
// <reason>" when recognition cannot run, or the languages not installed.
func (x *extractor) checkOCR(context.Context) error {
	_, err := x.cur.Load().OCRStatus()
	return err
}

func (*extractor) Supported(name, mime string) bool { return extract.Supported(name, mime) }
