package indexing_test

import (
	"context"
	"errors"
	"io"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// ocrExtractor recognises "scan" files only in ExtractOCR, as
// *extract.Extractor does: page 2 is recognised, page 1 is typed.
type ocrExtractor struct{ extractor }

func (ocrExtractor) Supported(name, mime string) bool { return true }

func (x ocrExtractor) Extract(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	if name == "scan.pdf" {
		return hs.Text{}, hs.WrapError(hs.EUNAVAILABLE, hs.ErrNeedsOCR, "extract scan.pdf: needs OCR")
	}
	return x.extractor.Extract(ctx, name, mime, r)
}

func (ocrExtractor) ExtractOCR(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error) {
	body := "Typed page about herons.\n\nScanned page about cormorants."
	return hs.Text{Body: body, Extractor: "pdftotext+ocr", Pages: []hs.Page{{Number: 1, Start: 0, End: 24}, {Number: 2, Start: 26, End: 56, OCR: true}}}, nil
}

// TestPipelineOCR: off the OCR lane a scan ends with ErrNeedsOCR and its
// state says it waits for OCR; on the lane (IndexJob.OCR) it is indexed,
// its recognised chunks marked with their page.
func TestPipelineOCR(t *testing.T) {
	e := newEnv(t)
	e.p.Extract = ocrExtractor{}
	e.p.Chunk = chunk.Chunker{Size: 200, Overlap: 0}
	e.tree.put(1, "alice", "/scan.pdf", "%PDF-")
	err := e.p.Process(t.Context(), job(1, "alice"))
	if !errors.Is(err, hs.ErrNeedsOCR) {
		t.Fatalf("Process off the OCR lane = %v, want ErrNeedsOCR", err)
	}
	if st := e.state(t, 1); st.Status != hs.StatusPending || st.Error != indexing.WaitingForOCR {
		t.Errorf("state %+v, want pending, waiting for OCR", st)
	}
	j := job(1, "alice")
	j.OCR = true
	if err := e.p.Process(t.Context(), j); err != nil {
		t.Fatalf("Process on the OCR lane: %v", err)
	}
	if st := e.state(t, 1); st.Status != hs.StatusIndexed || st.Error != "" {
		t.Errorf("state %+v, want indexed", st)
	}
	pts, err := e.store.FilePoints(t.Context(), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	var ocr, typed int
	for _, p := range pts {
		switch {
		case p.Chunk.OCR && p.Chunk.Page == 2:
			ocr++
		case !p.Chunk.OCR && p.Chunk.Page == 1:
			typed++
		default:
			t.Errorf("chunk %+v", p.Chunk)
		}
	}
	if ocr == 0 || typed == 0 {
		t.Errorf("%d recognised and %d typed chunks, want both: %+v", ocr, typed, pts)
	}
}

func TestRulesPausedOwner(t *testing.T) {
	r := indexing.Rules{Paused: map[hs.UserID]bool{"bob": true}}
	for _, tt := range []struct {
		f    hs.FileInfo
		want string
	}{
		{hs.FileInfo{Path: "/b.md", Owner: "bob"}, indexing.PausedReason},
		{hs.FileInfo{Path: "/a.md", Owner: "alice"}, ""},
		{hs.FileInfo{Path: "/x.md"}, ""},
	} {
		if got := r.Excluded(tt.f); got != tt.want {
			t.Errorf("Excluded(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
	for _, reason := range []string{indexing.PausedReason, "excluded by .noindex in /Secret"} {
		if !indexing.IsRuleReason(reason) {
			t.Errorf("IsRuleReason(%q) = false: a lifted exclusion would not bring the file back", reason)
		}
	}
}

// TestPipelineNoIndex: a file below a folder holding .noindex is skipped
// with the folder named, and indexed again once the marker is gone; a job
// for the marker itself asks for a scan of the user's tree.
func TestPipelineNoIndex(t *testing.T) {
	e := newEnv(t)
	var rescans []hs.UserID
	e.p.Rescan = func(u hs.UserID) { rescans = append(rescans, u) }
	e.tree.put(1, "alice", "/Secret/Deep/a.md", "A heron.")
	e.tree.put(2, "alice", "/Secret/.noindex", "")
	e.index(t, job(1, "alice"))
	if st := e.state(t, 1); st.Status != hs.StatusSkipped || st.Error != "excluded by .noindex in /Secret" {
		t.Fatalf("state %+v, want skipped by .noindex in /Secret", st)
	}
	e.tree.remove(2)
	j := job(2, "alice")
	j.Path, j.Event = "/Secret/.noindex", "NodeDeletedEvent"
	if err := e.p.Process(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	if len(rescans) == 0 || rescans[0] != "alice" {
		t.Errorf("rescans %v, want alice's", rescans)
	}
	e.index(t, job(1, "alice"))
	if st := e.state(t, 1); st.Status != hs.StatusIndexed {
		t.Errorf("state after removing .noindex %+v, want indexed", st)
	}
}
