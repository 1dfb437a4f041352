package local_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// The crash test runs TestHelperWriter in a child process that writes to a
// store and reports each operation before it starts ("B") and once it is
// acknowledged ("A"), kills it with SIGKILL mid-way, reopens the store and
// checks that every acknowledged operation is there and nothing is half
// applied. Several rounds run on the same directory.
const (
	crashDirEnv   = "STORE_CRASH_DIR"
	crashRoundEnv = "STORE_CRASH_ROUND"
	crashWriters  = 4
	crashFiles    = 20 // per writer
)

// crashState is what the store holds for one file in the crash test.
type crashState struct {
	present bool
	textV   int  // version of the last write: in every chunk's text
	metaV   int  // version of the last write or metadata update: the etag
	moved   bool // the last metadata update moved it to /moved
}

// crashOp is one operation of the child: W(rite), M(eta update), D(elete).
type crashOp struct {
	kind byte
	v    int
}

func (s crashState) apply(o crashOp) crashState {
	switch o.kind {
	case 'W':
		return crashState{present: true, textV: o.v, metaV: o.v}
	case 'M':
		if s.present {
			s.metaV, s.moved = o.v, true
		}
		return s
	}
	return crashState{}
}

func crashMeta(id hs.FileID, v int, moved bool) hs.FileMeta {
	dir := "crash"
	if moved {
		dir = "moved"
	}
	return hs.FileMeta{
		ID: id, Path: fmt.Sprintf("/%s/%d.md", dir, id), ETag: fmt.Sprintf("e%d", v),
		Readers: []hs.UserID{"alice"},
	}
}

func crashDense(id hs.FileID, v, no int) []float32 {
	return []float32{1, float32(id), float32(v % 97), float32(no)}
}

func crashPoints(id hs.FileID, v int) []hs.Point {
	n := 1 + v%4
	ps := make([]hs.Point, n)
	for no := range ps {
		text := fmt.Sprintf("f%d v%d c%d %s", id, v, no, strings.Repeat("padding ", 10))
		ps[no] = hs.Point{
			ID:    hs.PointID(id, no),
			Chunk: hs.Chunk{FileID: id, No: no, Text: text, Hash: fmt.Sprint(id, v, no)},
			Dense: crashDense(id, v, no),
			BM25:  hs.SparseVector{Indices: []uint32{uint32(id), uint32(v)}, Values: []float32{1, 1}},
		}
	}
	return ps
}

// TestHelperWriter is the child process of TestLocalCrash; it does nothing
// in a normal test run.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("the child process of TestLocalCrash")
	}
	round, _ := strconv.Atoi(os.Getenv(crashRoundEnv))
	// Small checkpoints, tail flushes and graphs, so a kill lands in the
	// middle of any of them.
	local.SetTailFlush(16)
	s, err := local.Open(dir, local.Options{CompactBytes: 16 << 10, GraphMin: 8, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Printf("E open: %v\n", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+" .\n", args...) // one write(2) each: atomic on a pipe
	}
	ctx := t.Context()
	deadline := time.Now().Add(20 * time.Second) // in case the parent never kills us
	var wg sync.WaitGroup
	for g := range crashWriters {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(round), uint64(g)))
			for v := round * 1_000_000; time.Now().Before(deadline); {
				v++
				id := hs.FileID(g*100 + 1 + rng.IntN(crashFiles))
				var err error
				switch r := rng.IntN(10); {
				case r < 6:
					say("B W %d %d", id, v)
					err = s.WriteFile(ctx, crashMeta(id, v, false), crashPoints(id, v))
					say("A W %d %d", id, v)
				case r < 8:
					say("B M %d %d", id, v)
					err = s.UpdateFileMeta(ctx, crashMeta(id, v, true))
					if hs.ErrorKind(err) == hs.ENOTFOUND {
						err = nil
					}
					say("A M %d %d", id, v)
				default:
					say("B D %d %d", id, v)
					err = s.DeleteFile(ctx, id)
					say("A D %d %d", id, v)
				}
				if err != nil {
					say("E %v", err)
					os.Exit(2)
				}
			}
		})
	}
	wg.Wait()
	os.Exit(3) // not killed in time
}

func TestLocalCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir := t.TempDir()
	acked := map[hs.FileID]crashState{}
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 1; round <= 6; round++ {
		inflight := runCrashChild(t, dir, round, 40+rng.IntN(300), acked)
		verifyCrash(t, dir, acked, inflight)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
}

// runCrashChild runs the writer until it has acknowledged n operations,
// kills it, and returns the operations it had begun but not acknowledged.
// acked is updated with every acknowledged operation.
func runCrashChild(t *testing.T, dir string, round, n int, acked map[hs.FileID]crashState) map[hs.FileID]crashOp {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashRoundEnv+"="+strconv.Itoa(round))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer watchdog.Stop()

	inflight := map[hs.FileID]crashOp{}
	count, killed := 0, false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || (f[0] != "A" && f[0] != "B" && f[0] != "E") {
			continue
		}
		if f[0] == "E" || len(f) != 5 || f[4] != "." {
			t.Errorf("child: %s", sc.Text())
			continue
		}
		id, _ := strconv.Atoi(f[2])
		v, _ := strconv.Atoi(f[3])
		o := crashOp{kind: f[1][0], v: v}
		if f[0] == "B" {
			inflight[hs.FileID(id)] = o
			continue
		}
		acked[hs.FileID(id)] = acked[hs.FileID(id)].apply(o)
		delete(inflight, hs.FileID(id))
		if count++; count == n {
			if err := cmd.Process.Kill(); err != nil {
				t.Errorf("kill child: %v", err)
			}
			killed = true
		}
	}
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child exited after %d acknowledged operations (%v): %s", count, err, stderr.String())
	}
	t.Logf("round %d: killed after %d acknowledged operations, %d in flight", round, count, len(inflight))
	return inflight
}

// verifyCrash opens the store and checks every file against the
// acknowledged state, allowing an operation in flight to have landed; it
// then records the state found as acknowledged for the next round.
func verifyCrash(t *testing.T, dir string, acked map[hs.FileID]crashState, inflight map[hs.FileID]crashOp) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "meta.tmp")); err == nil {
		t.Logf("killed while writing a checkpoint")
	}
	s, err := local.Open(dir, local.Options{GraphMin: 8, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	if err := local.CheckInvariants(s); err != nil {
		t.Errorf("reopened after kill: %v", err)
	}
	total := 0
	for g := range crashWriters {
		for i := range crashFiles {
			id := hs.FileID(g*100 + 1 + i)
			got := readCrashState(t, s, id)
			want := acked[id]
			if o, ok := inflight[id]; got != want && ok {
				want = want.apply(o)
			}
			if got != want {
				t.Errorf("file %d: found %+v, want %+v (in flight: %+v)", id, got, acked[id], inflight[id])
			}
			acked[id] = got
			if got.present {
				total += 1 + got.textV%4
			}
		}
	}
	st, err := s.Stats(t.Context())
	if err != nil || st.Points != total {
		t.Errorf("Stats() = %+v, %v, want %d points", st, err, total)
	}
	hits, err := s.SearchDense(t.Context(), "alice", []float32{1, 0, 0, 0}, store.MaxK, hs.Filter{})
	if err != nil || len(hits) != total {
		t.Errorf("SearchDense finds %d points (%v), want %d", len(hits), err, total)
	}
}

// readCrashState reads one file and checks that it is whole: every chunk
// of one write, all with one metadata version.
func readCrashState(t *testing.T, s *local.Store, id hs.FileID) crashState {
	t.Helper()
	ps, err := s.FilePoints(t.Context(), id, true)
	if err != nil {
		t.Fatalf("FilePoints(%d) = %v", id, err)
	}
	if len(ps) == 0 {
		return crashState{}
	}
	var st crashState
	if _, err := fmt.Sscanf(ps[0].Chunk.Text, "f%d v%d", new(int), &st.textV); err != nil {
		t.Errorf("file %d: text %q: %v", id, ps[0].Chunk.Text, err)
	}
	if _, err := fmt.Sscanf(ps[0].File.ETag, "e%d", &st.metaV); err != nil {
		t.Errorf("file %d: etag %q: %v", id, ps[0].File.ETag, err)
	}
	st.present, st.moved = true, strings.HasPrefix(ps[0].File.Path, "/moved/")
	want := crashPoints(id, st.textV)
	if len(ps) != len(want) {
		t.Errorf("file %d version %d has %d points, want %d: half applied", id, st.textV, len(ps), len(want))
		return st
	}
	for i, p := range ps {
		if p.Chunk.Text != want[i].Chunk.Text || p.File.ETag != ps[0].File.ETag || p.File.Path != ps[0].File.Path {
			t.Errorf("file %d point %d = %q %s %s, want %q %s %s: half applied", id, i, p.Chunk.Text, p.File.ETag, p.File.Path, want[i].Chunk.Text, ps[0].File.ETag, ps[0].File.Path)
		}
		if cos64(p.Dense, want[i].Dense) < 0.99999 {
			t.Errorf("file %d point %d dense = %v, want %v", id, i, p.Dense, want[i].Dense)
		}
	}
	return st
}
