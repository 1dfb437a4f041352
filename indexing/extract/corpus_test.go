package extract_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

// TestCorpus runs every file under $EXTRACT_CORPUS (for example pdfcpu's
// pkg/testdata, after `go mod download github.com/pdfcpu/pdfcpu@v0.15.0`)
// through both PDF paths and every other supported format: no error other
// than EINVALID, valid output, and a summary in the log.
func TestCorpus(t *testing.T) {
	dir := os.Getenv("EXTRACT_CORPUS")
	if dir == "" {
		t.Skip("EXTRACT_CORPUS not set")
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && extract.Supported(p, "") {
			files = append(files, p)
		}
		return nil
	})
	for _, e := range pdfExtractors(t) {
		var ok, invalid, empty int
		var slowest time.Duration
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			got, err := e.x.Extract(context.Background(), filepath.Base(p), "", f)
			f.Close()
			slowest = max(slowest, time.Since(start))
			switch {
			case err == nil:
				checkText(t, got)
				ok++
				if strings.TrimSpace(got.Body) == "" {
					empty++
				}
			case hs.ErrorKind(err) == hs.EINVALID:
				invalid++
				t.Logf("%s: %s: %v", e.name, filepath.Base(p), hs.ErrorMessage(err))
			default:
				t.Errorf("%s: %s: %v", e.name, p, err)
			}
		}
		t.Logf("%s: %d files: %d extracted (%d empty), %d invalid; slowest %v", e.name, len(files), ok, empty, invalid, slowest)
	}
}
