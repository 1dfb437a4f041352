package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/internal/cputime"
	"github.com/hybrid-search/hybridsearch/store"
)

// BenchmarkCapacity measures the store at company scale (issue 26) and
// prints one table: search latency per leg and for the three legs of a
// hybrid search, at once as the service runs them and one after the
// other, how many candidates the graphs' walks keep as measured by the
// indexer (calibrate.go), recall@10 of the dense leg against
// the exact scan, QPS with 8 clients, a small user's latency while the
// large user searches, time from Open to the first answered search, RSS,
// disk per chunk, and write throughput while the store was built. The
// data (capdata_test.go) is written once under .artifacts/capacity and
// reused by later runs; the write figures are those of that build.
//
//	CAPACITY_SIZES   store sizes, e.g. "100k,1M,3M" (default 100k; the
//	                 test command's smoke: 30k, 1 % of 3M)
//	CAPACITY_UNIFORM sizes of the uniform data set (dense only), e.g. "1M"
//	CAPACITY_REGRAPH set: drop a reused store's graphs and build them
//	                 again before measuring (after a change to the graph)
//	CAPACITY_CHURN   set: also delete 5 % and rewrite 5 % of the files,
//	                 measure, and write them back
//
// scripts/bench capacity runs it at the sizes.
func BenchmarkCapacity(b *testing.B) {
	sizes := capSizes(os.Getenv("CAPACITY_SIZES"), []int{100_000})
	uniform := capSizes(os.Getenv("CAPACITY_UNIFORM"), nil)
	if benchsmoke.On() {
		sizes, uniform = []int{capFull / 100}, nil
	}
	churn := os.Getenv("CAPACITY_CHURN") != ""
	root, err := artifactsDir()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var cols []*capResult
		for _, n := range sizes {
			cols = append(cols, runCapacity(b, root, "mix", n, churn))
		}
		for _, n := range uniform {
			cols = append(cols, runCapacity(b, root, "uniform", n, false))
		}
		printCapacity(os.Stdout, cols)
	}
}

// capSizes parses "100k,1M,3M".
func capSizes(s string, def []int) []int {
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1_000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "m")
		}
		if n, err := strconv.ParseFloat(f, 64); err == nil && n > 0 {
			out = append(out, int(n*float64(mult)))
		}
	}
	return out
}

// artifactsDir returns the checkout's .artifacts/capacity.
func artifactsDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".artifacts", "capacity"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// capBuild is what building a data set's store measured; saved beside it.
type capBuild struct {
	Chunks     int       `json:"chunks"`
	Step       int       `json:"step"`        // chunks per throughput figure
	PerStep    []float64 `json:"per_step"`    // chunks/s through WriteFile, per step
	LagAtStep  []int     `json:"lag_at_step"` // points not in their graph yet
	WriteSec   float64   `json:"write_s"`
	CatchUpSec float64   `json:"catch_up_s"` // after the last write, until every graph was up to date
	CloseSec   float64   `json:"close_s"`
	Load       string    `json:"load"` // load average while building
}

// capLat is a latency distribution.
type capLat []time.Duration

func (l capLat) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func (l capLat) String() string {
	if len(l) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s / %s", ms(l.pct(0.5)), ms(l.pct(0.99)))
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) }

// capResult is one column of the table.
type capResult struct {
	kind       string
	n          int
	visible    int
	build      capBuild
	built      bool // built by this run
	openSec    float64
	calSec     float64 // from the first answered search to the graphs measured
	regraphSec float64 // CAPACITY_REGRAPH: building the graphs again, measuring included
	efs        string  // the graphs' measured walks: "256×9 384×3 scan×1"

	dense, exact, bm25, common, commonAll, trigram, hybrid, hybridSeq capLat
	recall                                                            float64
	commonSame, commonTotal                                           int
	qps                                                               float64
	hybridCPU                                                         time.Duration // process CPU time per hybrid search
	small, fair                                                       capLat
	rss, anon, file, heap                                             float64 // MB
	disk                                                              float64 // bytes per chunk
	segments, graphs                                                  int

	churn *capChurn
	load  string
}

// capChurn is what deleting and rewriting a tenth of the files measured.
type capChurn struct {
	writes         float64 // chunks/s
	catchUpSec     float64
	dense, hybrid  capLat
	recall         float64
	restoreWrites  float64
	restoreCatchUp float64
}

// capLoad returns the load averages.
func capLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// runCapacity builds (or reuses) the data set and measures it.
func runCapacity(b *testing.B, root, kind string, n int, churn bool) *capResult {
	d := newCapData(kind, n)
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", kind, n))
	r := &capResult{kind: kind, n: d.n, visible: d.visible("u000")}
	buildFile := filepath.Join(dir, "build.json")
	if raw, err := os.ReadFile(buildFile); err == nil && json.Unmarshal(raw, &r.build) == nil && r.build.Chunks == d.n {
		capProgress("capacity %s %d: reusing %s", kind, d.n, dir)
	} else {
		os.RemoveAll(dir)
		r.build = capBuildStore(b, d, filepath.Join(dir, "store"))
		r.built = true
		raw, _ := json.MarshalIndent(r.build, "", "  ")
		if err := os.WriteFile(buildFile, raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	s, err := Open(filepath.Join(dir, "store"), Options{Logger: capLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	q := newCapQueries(b, d, s)
	if _, err := q.hybrid(s, "u000", 0); err != nil {
		b.Fatal(err)
	}
	r.openSec = time.Since(start).Seconds()
	if os.Getenv("CAPACITY_REGRAPH") != "" && !r.built {
		t0 := time.Now()
		s.imu.Lock()
		s.mu.Lock()
		for _, g := range s.idx.groups {
			if g.graph != nil {
				s.idx.closeGraph(g)
			}
		}
		s.mu.Unlock()
		s.imu.Unlock()
		s.kickIndexer()
		s.waitIndexed()
		r.regraphSec = time.Since(t0).Seconds()
		capProgress("capacity %s %d: graphs built again in %.1f s", kind, d.n, r.regraphSec)
	}
	t0 := time.Now()
	s.waitIndexed()
	r.calSec = time.Since(t0).Seconds()
	r.load = capLoad()
	capProgress("capacity %s %d: opened in %.1f s, measuring", kind, d.n, r.openSec)
	capMeasure(b, d, s, q, r)
	if churn {
		r.churn = capChurnRun(b, d, s, q)
	}
	r.rss, r.anon, r.file, r.heap = capMemory()
	r.disk = float64(dirSize(filepath.Join(dir, "store"))) / float64(d.n)
	s.mu.RLock()
	r.segments = len(s.idx.segs)
	efs := map[int32]int{}
	for _, g := range s.idx.groups {
		if g.graph != nil {
			r.graphs++
			efs[g.graph.ef.Load()]++
		}
	}
	s.mu.RUnlock()
	for _, ef := range slices.Sorted(maps.Keys(efs)) {
		name := fmt.Sprint(ef)
		switch ef {
		case efScan:
			name = "scan"
		case 0:
			name = "unmeasured"
		}
		r.efs += fmt.Sprintf(" %s×%d", name, efs[ef])
	}
	r.efs = strings.TrimSpace(r.efs)
	return r
}

// capProgress reports progress on stderr, but for the test command's
// smoke.
func capProgress(format string, args ...any) {
	if !benchsmoke.On() {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// capLogger logs information, warnings and errors (a graph found too
// weak to walk is one line).
func capLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// capBuildStore writes the data set into a new store at dir, one file at
// a time as the indexing pipeline does, while a goroutine draws the next
// files, and times every step of chunks.
func capBuildStore(b *testing.B, d *capData, dir string) capBuild {
	s, err := Open(dir, Options{Logger: capLogger()})
	if err != nil {
		b.Fatal(err)
	}
	st := capBuild{Chunks: d.n, Step: max(d.n/30, 10_000)}
	if d.n >= 1_000_000 {
		st.Step = 100_000
	}
	files := make(chan []hs.Point, 64)
	go func() {
		defer close(files)
		for _, f := range d.files {
			files <- d.points(f, 0)
		}
	}()
	start := time.Now()
	stepStart, done, next := start, 0, st.Step
	var spent time.Duration // inside WriteFile
	for pts := range files {
		t0 := time.Now()
		if err := s.WriteFile(context.Background(), pts[0].File, pts); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(t0)
		done += len(pts)
		if done >= next || done == d.n {
			el := time.Since(stepStart)
			st.PerStep = append(st.PerStep, float64(done-(next-st.Step))/el.Seconds())
			st.LagAtStep = append(st.LagAtStep, s.indexLag())
			stepStart, next = time.Now(), next+st.Step
			capProgress("capacity build %s: %d of %d chunks, %.0f/s, %d not indexed, %.0f%% of the time in WriteFile, load %s",
				d.kind, done, d.n, st.PerStep[len(st.PerStep)-1], st.LagAtStep[len(st.LagAtStep)-1], 100*spent.Seconds()/time.Since(start).Seconds(), capLoad())
		}
	}
	st.WriteSec = time.Since(start).Seconds()
	t0 := time.Now()
	s.waitIndexed()
	st.CatchUpSec = time.Since(t0).Seconds()
	t0 = time.Now()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	st.CloseSec = time.Since(t0).Seconds()
	st.Load = capLoad()
	return st
}

// indexLag returns how many points wait for their graph.
func (l *Store) indexLag() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	n := 0
	for _, g := range l.idx.groups {
		if gr := g.graph; gr != nil {
			_, done := gr.counts()
			n += len(gr.pending) - done
		} else if l.idx.graphMin > 0 && g.dense >= l.idx.graphMin {
			n += g.dense
		}
	}
	return n
}

// capQueries are the queries of a data set.
type capQueries struct {
	dense    [][]float32
	keyword  []hs.SparseVector // the 20 common words first
	trigram  []hs.SparseVector
	smallQ   [][]float32
	keywordT []string
}

func newCapQueries(b testing.TB, d *capData, s *Store) *capQueries {
	nq := 200
	if benchsmoke.On() {
		nq = 30
	}
	q := &capQueries{dense: d.denseQueries(nq)}
	q.smallQ = q.dense
	if d.kind == "uniform" {
		return q
	}
	df := func(ids []uint32) ([]int, int) {
		n, total, err := s.SparseDocFreq(context.Background(), store.VectorBM25, ids)
		if err != nil {
			b.Fatal(err)
		}
		return n, total
	}
	q.keywordT = d.keywordTexts()
	for _, t := range q.keywordT {
		q.keyword = append(q.keyword, keywordVector(t, df))
	}
	for _, t := range d.typoTexts(20) {
		q.trigram = append(q.trigram, analysis.TrigramQuery(t))
	}
	return q
}

// legK is what the search service asks every leg for (2 × MaxTopK).
const legK = 100

var capFilter = hs.Filter{OmitText: true}

// hybrid runs the three legs of query i at once, as the search service
// does (search/legs.go), and returns the time taken. Every query runs the
// fuzzy leg, as if every query had a typo: the service runs it only for
// words the keyword index does not know.
func (q *capQueries) hybrid(s *Store, user hs.UserID, i int) (time.Duration, error) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for leg := range 3 {
		if leg > 0 && len(q.keyword) == 0 {
			break
		}
		wg.Go(func() { errs[leg] = q.leg(s, user, i, leg) })
	}
	wg.Wait()
	return time.Since(start), errors.Join(errs...)
}

// hybridSeq is hybrid with the legs one after the other.
func (q *capQueries) hybridSeq(s *Store, user hs.UserID, i int) (time.Duration, error) {
	start := time.Now()
	for leg := range 3 {
		if leg > 0 && len(q.keyword) == 0 {
			break
		}
		if err := q.leg(s, user, i, leg); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// leg runs query i of one leg: 0 dense, 1 keyword, 2 fuzzy.
func (q *capQueries) leg(s *Store, user hs.UserID, i, leg int) error {
	ctx := context.Background()
	var err error
	switch leg {
	case 0:
		_, err = s.SearchDense(ctx, user, q.dense[i%len(q.dense)], legK, capFilter)
	case 1:
		_, err = s.SearchSparse(ctx, user, store.VectorBM25, q.keyword[i%len(q.keyword)], legK, capFilter)
	default:
		_, err = s.SearchSparse(ctx, user, store.VectorTrigram, q.trigram[i%len(q.trigram)], legK, capFilter)
	}
	return err
}

// capMeasure fills in the search figures.
func capMeasure(b *testing.B, d *capData, s *Store, q *capQueries, r *capResult) {
	ctx := context.Background()
	const big, small = "u000", "u001"
	timeIt := func(f func() error) time.Duration {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// Warm up: every query once.
	for i := range q.dense {
		q.hybrid(s, big, i)
	}
	found, want := 0, 0
	for _, v := range q.dense {
		var hits []hs.Hit
		r.dense = append(r.dense, timeIt(func() (err error) {
			hits, err = s.SearchDense(ctx, big, v, legK, capFilter)
			return err
		}))
		var exact []scored
		r.exact = append(r.exact, timeIt(func() error {
			s.mu.RLock()
			defer s.mu.RUnlock()
			m := newMatcher(big, capFilter)
			exact = s.idx.searchDense(ctx, big, store.Normalized(v), legK, &m, true)
			return nil
		}))
		s.mu.RLock()
		var ids []string
		for _, e := range exact[:min(10, len(exact))] {
			ids = append(ids, s.idx.ids[e.slot].String())
		}
		s.mu.RUnlock()
		for _, h := range hits[:min(10, len(hits))] {
			if slices.Contains(ids, h.Point.ID) {
				found++
			}
		}
		want += len(ids)
	}
	r.recall = float64(found) / float64(max(want, 1))
	for i, kq := range q.keyword {
		r.bm25 = append(r.bm25, timeIt(func() error {
			_, err := s.SearchSparse(ctx, big, store.VectorBM25, kq, legK, capFilter)
			return err
		}))
		if i >= 20 {
			continue
		}
		// The common words alone: block-max WAND against every posting.
		r.common = append(r.common, r.bm25[i])
		var wand, all []scored
		sc := new(scratch)
		m := newMatcher(big, capFilter)
		s.mu.RLock()
		wand = slices.Clone(s.idx.searchSparse(big, 0, kq, 10, &m, false, sc))
		r.commonAll = append(r.commonAll, timeIt(func() error {
			all = slices.Clone(s.idx.searchSparse(big, 0, kq, legK, &m, true, sc))
			return nil
		}))
		s.mu.RUnlock()
		r.commonTotal++
		if slices.Equal(wand, all[:min(10, len(all))]) {
			r.commonSame++
		}
	}
	for _, tq := range q.trigram {
		r.trigram = append(r.trigram, timeIt(func() error {
			_, err := s.SearchSparse(ctx, big, store.VectorTrigram, tq, legK, capFilter)
			return err
		}))
	}
	cpu0 := cputime.Process()
	for i := range q.dense {
		r.hybrid = append(r.hybrid, timeIt(func() error { _, err := q.hybrid(s, big, i); return err }))
	}
	r.hybridCPU = (cputime.Process() - cpu0) / time.Duration(len(q.dense))
	for i := range q.dense {
		r.hybridSeq = append(r.hybridSeq, timeIt(func() error { _, err := q.hybridSeq(s, big, i); return err }))
	}
	// 8 clients.
	dur := 10 * time.Second
	if benchsmoke.On() {
		dur = time.Second
	}
	var count atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(dur)
	for c := range 8 {
		wg.Go(func() {
			for i := c; time.Now().Before(stop); i += 8 {
				if _, err := q.hybrid(s, big, i); err != nil {
					b.Error(err)
					return
				}
				count.Add(1)
			}
		})
	}
	wg.Wait()
	r.qps = float64(count.Load()) / dur.Seconds()
	if d.kind == "uniform" {
		return
	}
	// Fairness: the small user alone, then while two clients of the
	// large user search without pause.
	rounds := 200
	if benchsmoke.On() {
		rounds = 30
	}
	for i := range rounds {
		r.small = append(r.small, timeIt(func() error { _, err := q.hybrid(s, small, i); return err }))
	}
	var busy atomic.Bool
	busy.Store(true)
	for c := range 2 {
		wg.Go(func() {
			for i := c; busy.Load(); i += 2 {
				q.hybrid(s, big, i)
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	for i := range rounds {
		r.fair = append(r.fair, timeIt(func() error { _, err := q.hybrid(s, small, i); return err }))
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
	}
	busy.Store(false)
	wg.Wait()
}

// capChurnRun deletes 5 % and rewrites 5 % of the files, measures, and
// writes them back as they were.
func capChurnRun(b *testing.B, d *capData, s *Store, q *capQueries) *capChurn {
	ctx := context.Background()
	c := &capChurn{}
	rng := rand.New(rand.NewPCG(26, 9))
	idx := rng.Perm(len(d.files))[:len(d.files)/10]
	del, rew := idx[:len(idx)/2], idx[len(idx)/2:]
	write := func(files []int, version int, deleteOnly bool) float64 {
		start, chunks := time.Now(), 0
		for _, i := range files {
			f := d.files[i]
			if deleteOnly {
				if err := s.DeleteFile(ctx, f.id); err != nil {
					b.Fatal(err)
				}
			} else if err := s.WriteFile(ctx, d.meta(f), d.points(f, version)); err != nil {
				b.Fatal(err)
			}
			chunks += f.chunks
		}
		return float64(chunks) / time.Since(start).Seconds()
	}
	c.writes = (write(del, 0, true) + write(rew, 1, false)) / 2
	t0 := time.Now()
	s.waitIndexed()
	c.catchUpSec = time.Since(t0).Seconds()
	found, want := 0, 0
	for i, v := range q.dense {
		t0 := time.Now()
		hits, err := s.SearchDense(ctx, "u000", v, legK, capFilter)
		if err != nil {
			b.Fatal(err)
		}
		c.dense = append(c.dense, time.Since(t0))
		s.mu.RLock()
		m := newMatcher("u000", capFilter)
		exact := s.idx.searchDense(ctx, "u000", store.Normalized(v), 10, &m, true)
		var ids []string
		for _, e := range exact {
			ids = append(ids, s.idx.ids[e.slot].String())
		}
		s.mu.RUnlock()
		for _, h := range hits[:min(10, len(hits))] {
			if slices.Contains(ids, h.Point.ID) {
				found++
			}
		}
		want += len(ids)
		lat, err := q.hybrid(s, "u000", i)
		if err != nil {
			b.Fatal(err)
		}
		c.hybrid = append(c.hybrid, lat)
	}
	c.recall = float64(found) / float64(max(want, 1))
	c.restoreWrites = write(slices.Concat(del, rew), 0, false)
	t0 = time.Now()
	s.waitIndexed()
	c.restoreCatchUp = time.Since(t0).Seconds()
	return c
}

// capMemory returns the process's resident memory in MB: all, anonymous
// (heap and other allocations), file-backed (mapped files' pages in the
// page cache), and the Go heap in use, after a collection.
func capMemory() (rss, anon, file, heap float64) {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	heap = float64(m.HeapInuse) / (1 << 20)
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, 0, heap
	}
	kb := func(key string) float64 {
		for _, line := range strings.Split(string(raw), "\n") {
			if rest, ok := strings.CutPrefix(line, key+":"); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					v, _ := strconv.ParseFloat(f[0], 64)
					return v / 1024
				}
			}
		}
		return 0
	}
	return kb("VmRSS"), kb("RssAnon"), kb("RssFile") + kb("RssShmem"), heap
}

// dirSize returns the bytes the files under dir hold.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// printCapacity prints the table.
func printCapacity(w io.Writer, cols []*capResult) {
	row := func(name string, f func(r *capResult) string) {
		fmt.Fprintf(w, "%-46s", name)
		for _, r := range cols {
			fmt.Fprintf(w, " %22s", f(r))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "capacity (issue 26): legs of u000 at k=100 (the service's 2 × MaxTopK); latencies p50 / p99 ms")
	row("data set", func(r *capResult) string { return fmt.Sprintf("%s %s", r.kind, short(r.n)) })
	row("chunks u000 sees", func(r *capResult) string { return short(r.visible) })
	row("load while measuring", func(r *capResult) string { return r.load })
	row("dense (graphs + pending scan)", func(r *capResult) string { return r.dense.String() })
	row("dense recall@10 vs exact scan", func(r *capResult) string { return fmt.Sprintf("%.4f", r.recall) })
	row("exact scan", func(r *capResult) string { return r.exact.String() })
	row("keyword (bm25, 40 queries)", func(r *capResult) string { return r.bm25.String() })
	row("keyword, 20 common words: WAND", func(r *capResult) string { return r.common.String() })
	row("keyword, 20 common words: every posting", func(r *capResult) string { return r.commonAll.String() })
	row("common words: same top 10 (WAND vs all)", func(r *capResult) string {
		if r.commonTotal == 0 {
			return "-"
		}
		return fmt.Sprintf("%d of %d", r.commonSame, r.commonTotal)
	})
	row("fuzzy (trigram, 20 typos)", func(r *capResult) string { return r.trigram.String() })
	row("hybrid (3 legs at once, as the service; one client)", func(r *capResult) string { return r.hybrid.String() })
	row("hybrid, the legs one after another", func(r *capResult) string { return r.hybridSeq.String() })
	row("hybrid CPU ms per search (all threads)", func(r *capResult) string { return ms(r.hybridCPU) })
	row("hybrid QPS, 8 clients", func(r *capResult) string { return fmt.Sprintf("%.0f", r.qps) })
	row("u001 (2k chunks) hybrid alone", func(r *capResult) string { return r.small.String() })
	row("u001 hybrid while u000 searches (2 clients)", func(r *capResult) string { return r.fair.String() })
	row("open to first answered search (s, warm cache)", func(r *capResult) string { return fmt.Sprintf("%.2f", r.openSec) })
	row("RSS MB (anon / file-backed / Go heap)", func(r *capResult) string {
		return fmt.Sprintf("%.0f (%.0f/%.0f/%.0f)", r.rss, r.anon, r.file, r.heap)
	})
	row("disk bytes per chunk", func(r *capResult) string { return fmt.Sprintf("%.0f", r.disk) })
	row("segments / graphs", func(r *capResult) string { return fmt.Sprintf("%d / %d", r.segments, r.graphs) })
	row("graphs' measured walk (ef × graphs)", func(r *capResult) string { return r.efs })
	row("measuring the graphs after open (s)", func(r *capResult) string { return fmt.Sprintf("%.1f", r.calSec) })
	row("graphs built again (CAPACITY_REGRAPH, s)", func(r *capResult) string { return fmt.Sprintf("%.1f", r.regraphSec) })
	row("build: chunks/s per step (min/median/max)", func(r *capResult) string {
		p := slices.Clone(r.build.PerStep)
		if len(p) == 0 {
			return "-"
		}
		slices.Sort(p)
		return fmt.Sprintf("%.0f/%.0f/%.0f", p[0], p[len(p)/2], p[len(p)-1])
	})
	row("build: first / last step chunks/s", func(r *capResult) string {
		p := r.build.PerStep
		if len(p) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f / %.0f", p[0], p[len(p)-1])
	})
	row("build: write s, index catch-up s, close s", func(r *capResult) string {
		return fmt.Sprintf("%.0f, %.0f, %.1f", r.build.WriteSec, r.build.CatchUpSec, r.build.CloseSec)
	})
	row("build: step size, reused", func(r *capResult) string { return fmt.Sprintf("%s, %v", short(r.build.Step), !r.built) })
	if slices.ContainsFunc(cols, func(r *capResult) bool { return r.churn != nil }) {
		c := func(f func(c *capChurn) string) func(r *capResult) string {
			return func(r *capResult) string {
				if r.churn == nil {
					return "-"
				}
				return f(r.churn)
			}
		}
		row("churn: 5% deleted + 5% rewritten, chunks/s", c(func(c *capChurn) string { return fmt.Sprintf("%.0f", c.writes) }))
		row("churn: index catch-up s", c(func(c *capChurn) string { return fmt.Sprintf("%.1f", c.catchUpSec) }))
		row("churn: dense", c(func(c *capChurn) string { return c.dense.String() }))
		row("churn: dense recall@10", c(func(c *capChurn) string { return fmt.Sprintf("%.4f", c.recall) }))
		row("churn: hybrid", c(func(c *capChurn) string { return c.hybrid.String() }))
		row("churn: written back, chunks/s, catch-up s", c(func(c *capChurn) string {
			return fmt.Sprintf("%.0f, %.1f", c.restoreWrites, c.restoreCatchUp)
		}))
	}
	for _, r := range cols {
		if len(r.build.PerStep) > 0 {
			p := make([]string, len(r.build.PerStep))
			for i, v := range r.build.PerStep {
				p[i] = fmt.Sprintf("%.0f", v)
			}
			fmt.Fprintf(w, "build %s %s, chunks/s per %s: %s\n", r.kind, short(r.n), short(r.build.Step), strings.Join(p, " "))
		}
	}
}

// short writes 3000000 as 3M.
func short(n int) string {
	switch {
	case n >= 1_000_000 && n%100_000 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 1000 && n%100 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	}
	return strconv.Itoa(n)
}
