package local

import (
	"context"
	"math"
	"slices"
	"time"
)

// How many of the true top 10 a graph walk finds depends on the data as
// much as on how many candidates the walk keeps (its ef): on chunk-like
// data with structure, 256 candidates find 0.99 of them in a graph of
// 340,000 nodes and 0.97 in one of a million; on uniformly random vectors,
// where every point is about as near to a query as every other, a walk
// finds a tenth. So the indexer measures each graph (calibrateGraph) once
// it has caught up with its group and has grown by half, or had a tenth of
// its nodes purged, since it was last measured: it draws calibrateQueries queries, half near random points of
// the group and half near random points of the whole store (a point's row
// moved by noise, as far as another chunk of its file would be: a user's
// questions are not only about what the user can read, and a query far
// from the group's own files is the harder one),
// finds each one's exact top 10 by scanning the group, and walks the graph
// with each ef of efLadder. Searches then keep the fewest candidates that
// found calibrateTarget of the sample's top 10s or, where none did, the
// fewest within 0.005 of the best; a group whose graph reaches
// calibrateFloor at no ef is scanned as if it had no graph: exact, and
// slower. A graph not measured yet (small ones, or one still catching up
// after Open) is walked with graphEf.
const (
	calibrateMin     = 8192 // nodes a graph needs to be measured
	calibrateQueries = 96
	calibrateK       = 10
	calibrateTarget  = 0.993   // the goal is 0.99 over all of a user's graphs; a sample of 960 is off by ±0.003
	calibrateFloor   = 0.9     // below it at every ef, the group is scanned
	calibrateGrowth  = 1.5     // measured again once it has this many times the nodes
	calibrateChurn   = 10      // or once purges dropped a calibrateChurn-th of them
	calibrateChunk   = 1 << 15 // rows scanned under one read lock
	calibrateNoise   = 0.7     // a query's distance from its point's row
	efScan           = -1      // graph.ef: scan the group instead
)

// efLadder is the candidates a walk may keep, tried in order.
var efLadder = []int{graphEf, 384, 512, 768, 1024}

// searchEf returns how many candidates a walk of g keeps for k hits, and
// false if the group is to be scanned instead.
func (g *graph) searchEf(k int) (int, bool) {
	switch e := g.ef.Load(); {
	case e == efScan:
		return 0, false
	case e > 0:
		return max(k, int(e)), true
	}
	return max(k, graphEf), true
}

// needsCalibration reports whether gr has caught up with its group and
// should be measured: never measured, grown by half, or a tenth of its
// nodes replaced (purged) since; the caller holds imu and l.mu's read lock.
func (x *index) needsCalibration(gr *graph) bool {
	nodes, done := gr.counts()
	return !gr.closed && done >= len(gr.pending) && nodes >= x.calibrateMin() &&
		(float64(nodes) >= calibrateGrowth*float64(gr.calNodes) || gr.calDropped*calibrateChurn >= gr.calNodes)
}

// calibrateMin returns the nodes a graph needs to be measured.
func (x *index) calibrateMin() int {
	if x.calMin > 0 {
		return x.calMin
	}
	return calibrateMin
}

// calibrateGraph measures g's graph and sets the candidates its walks keep
// (see efLadder). The caller holds imu; it takes l.mu's read lock for each
// query's walks and each part of its scan, so writers and searches wait
// milliseconds at most. It gives up, leaving the graph as it was, when the
// store closes or the group loses its graph.
func (l *Store) calibrateGraph(g *group) {
	l.mu.RLock()
	gr := g.graph
	if l.shut || gr == nil || gr.closed {
		l.mu.RUnlock()
		return
	}
	nodes, _ := gr.counts()
	dim := l.idx.dim
	// The queries: rows of random points, of the group and of the store,
	// moved by noise.
	var queries [][]float32
	for i := range calibrateQueries * 8 {
		if len(queries) == calibrateQueries || len(g.slots) == 0 {
			break
		}
		s := int32(gr.rng.IntN(len(l.idx.file)))
		if i%2 == 0 {
			s = g.slots[gr.rng.IntN(len(g.slots))]
		}
		if !l.idx.live(s) || !l.idx.dense[s] {
			continue
		}
		queries = append(queries, noisyQuery(l.idx.vector(s), gr, dim))
	}
	slots := slices.Clone(g.slots)
	l.mu.RUnlock()
	gr.calNodes, gr.calDropped = nodes, 0
	if len(queries) == 0 {
		return
	}

	found := make([]int, len(efLadder))
	walkTime := make([]time.Duration, len(efLadder))
	var scanTime time.Duration
	total := 0
	ctx := context.Background()
	m := matcher{}
	for _, q := range queries {
		truth, took, ok := l.calibrateTruth(ctx, g, gr, q, slots)
		if !ok {
			return
		}
		scanTime += took
		total += len(truth)
		for i, ef := range efLadder {
			l.mu.RLock()
			if l.shut || g.graph != gr || gr.closed {
				l.mu.RUnlock()
				return
			}
			n, _ := gr.counts()
			start := time.Now()
			top := l.idx.rankRows(ctx, q, nil, 0, []graphWalk{{g: g, limit: uint32(n), ef: ef}}, calibrateK, &m, 0, true)
			walkTime[i] += time.Since(start)
			l.mu.RUnlock()
			for _, t := range top {
				if slices.Contains(truth, t.slot) {
					found[i]++
				}
			}
		}
	}
	if total == 0 {
		return
	}
	target, floor := calibrateTarget, calibrateFloor
	if l.idx.calNeed > 0 {
		target, floor = l.idx.calNeed, l.idx.calNeed
	}
	// The fewest candidates that reach the target; failing that, the
	// fewest within 0.005 of the best recall, if that reaches the floor.
	ef, best, chosen := int32(efScan), 0.0, -1
	for _, n := range found {
		best = max(best, float64(n)/float64(total))
	}
	for i, n := range found {
		r := float64(n) / float64(total)
		if r >= target || r >= best-0.005 && best >= floor {
			ef, chosen = int32(efLadder[i]), i
			break
		}
	}
	// A walk that is no faster than scanning the group is not worth its
	// misses: the group is scanned, exactly (the switch-over between scan
	// and graph, measured per graph; the scan and the walks ran one query
	// after another, on the same core).
	slower := chosen >= 0 && !l.idx.calWalk && walkTime[chosen] >= scanTime
	if slower {
		ef = efScan
	}
	gr.ef.Store(ef)
	recall := make([]float64, len(found))
	walkMs := make([]float64, len(found))
	for i, n := range found {
		recall[i] = math.Round(1000*float64(n)/float64(total)) / 1000
		walkMs[i] = math.Round(1000*walkTime[i].Seconds()*1000/float64(len(queries))) / 1000
	}
	scanMs := math.Round(1000*scanTime.Seconds()*1000/float64(len(queries))) / 1000
	attrs := []any{"group", g.id, "nodes", nodes, "queries", len(queries), "ef_tried", efLadder, "recall_at_10", recall, "walk_ms", walkMs, "scan_ms", scanMs}
	switch {
	case slower:
		l.log.Debug("store: a graph's walk is no faster than scanning its group; the group is scanned (exact)", attrs...)
	case ef == efScan:
		l.log.Info("store: a graph finds too little of the exact top 10 at every ef tried; its group is scanned (exact, slower)", attrs...)
	default:
		l.log.Debug("store: graph measured", append(attrs, "ef", ef)...)
	}
}

// noisyQuery returns row moved by Gaussian noise of length calibrateNoise,
// normalised.
func noisyQuery(row []float32, gr *graph, dim int) []float32 {
	q := make([]float32, dim)
	sd := calibrateNoise / math.Sqrt(float64(dim))
	var norm float64
	for i := range q {
		v := float64(row[i]) + sd*gr.rng.NormFloat64()
		q[i] = float32(v)
		norm += v * v
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range q {
		q[i] *= inv
	}
	return q
}

// calibrateTruth returns the slots of q's exact top calibrateK among the
// group's slots, scanning them a part at a time; false if the group lost
// its graph or the store closed meanwhile.
func (l *Store) calibrateTruth(ctx context.Context, g *group, gr *graph, q []float32, slots []int32) ([]int32, time.Duration, bool) {
	var took time.Duration
	var best []scored
	buf := make([]int32, 0, calibrateChunk)
	m := matcher{}
	for from := 0; from < len(slots); from += calibrateChunk {
		l.mu.RLock()
		if l.shut || g.graph != gr || gr.closed {
			l.mu.RUnlock()
			return nil, 0, false
		}
		x := l.idx
		buf = buf[:0]
		for _, s := range slots[from:min(from+calibrateChunk, len(slots))] {
			if f := x.file[s]; f != nil && f.group == g && x.dense[s] {
				buf = append(buf, s)
			}
		}
		if len(buf) > 0 {
			start := time.Now()
			best = append(best, x.rankRows(ctx, q, [][]int32{buf}, len(buf), nil, calibrateK, &m, 1, true)...)
			took += time.Since(start)
		}
		l.mu.RUnlock()
	}
	slices.SortFunc(best, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(a.slot - b.slot)
	})
	out := make([]int32, 0, calibrateK)
	for _, s := range best[:min(calibrateK, len(best))] {
		out = append(out, s.slot)
	}
	return out, took, true
}
