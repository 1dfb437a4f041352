package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// BenchmarkRSS measures the app's resident memory in a child process
// (built without the race detector), on the Qdrant fake (its own
// process) and on the embedded local store: idle after indexing the demo
// sample (goal ≤ 100 MB), the peak while 1,000 new files are indexed, and
// idle again after them. Run it with -benchtime 1x; HS_RSS_FILES changes
// the 1,000.
func BenchmarkRSS(b *testing.B) {
	if testing.Short() && !benchsmoke.On() {
		b.Skip("builds the app and indexes 1,000 files in child processes")
	}
	files := benchsmoke.Size(1000, 50)
	if n, err := strconv.Atoi(os.Getenv("HS_RSS_FILES")); err == nil && n > 0 {
		files = n
	}
	bin := buildTestBinary(b, b.TempDir())
	for _, kind := range []string{"qdrant", "local"} {
		b.Run("store="+kind, func(b *testing.B) {
			for range b.N {
				benchRSS(b, bin, kind, files)
			}
		})
	}
}

func benchRSS(b *testing.B, bin, kind string, files int) {
	app := startChildApp(b, bin, kind, func(sim *ncsim.Server) error {
		_, err := sim.LoadDir("alice", "/", filepath.Join("..", "cmd", "hybridsearch-demo", "sample")) // the demo's sample folder
		return err
	}, "LOG_LEVEL=warn")
	sim, logs, get := app.Sim, app.Logs, app.status
	pid := app.Cmd.Process.Pid
	settle := func(what string, done func(childStatus) bool) childStatus {
		deadline := time.Now().Add(5 * time.Minute)
		for {
			st := get()
			if done(st) {
				return st
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s: not done in 5 minutes: %+v\n%s", what, st, tail(logs.String(), 3000))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// The sample is in once the count stays for a second with nothing pending.
	last, since := -1, time.Now()
	sampled := settle("the demo sample", func(st childStatus) bool {
		if st.Files.Indexed != last {
			last, since = st.Files.Indexed, time.Now()
		}
		return st.Files.Indexed > 0 && st.Files.Pending == 0 && time.Since(since) > time.Second
	})
	time.Sleep(2 * time.Second) // let the scan's garbage go
	idle := procStatus(b, pid, "VmRSS")
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) // reset VmHWM
	b.ResetTimer()
	for i := range files {
		sim.PutFile("alice", fmt.Sprintf("/rss/%04d.md", i), fmt.Appendf(nil, "# Note %d\n\n%s", i, strings.Repeat(fmt.Sprintf("Line %d of note %d about okapis and quokkas. ", i%37, i), 20)))
	}
	want := sampled.Files.Indexed + files
	settle("1,000 files", func(st childStatus) bool { return st.Files.Indexed >= want && st.Files.Pending == 0 })
	b.StopTimer()
	peak := procStatus(b, pid, "VmHWM")
	time.Sleep(2 * time.Second)
	after := procStatus(b, pid, "VmRSS")
	b.ReportMetric(float64(idle)/(1<<20), "idle-sample-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-indexing-MB")
	b.ReportMetric(float64(after)/(1<<20), "idle-after-MB")
	b.ReportMetric(float64(sampled.Files.Indexed), "sample-files")
	b.ReportMetric(float64(files), "new-files")
}
