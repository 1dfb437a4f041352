package local

import (
	"log/slog"
	"slices"
	"time"
)

// DefaultGraphMin is the number of points with a dense vector from which a
// group (the files of one set of readers) gets a graph when
// Options.GraphMin is zero. Below it SearchDense scans the group's rows,
// which is exact and, at 768 dimensions, about as fast as a graph search
// at this size (the capacity benchmark measures both; see docs/capacity.md).
const DefaultGraphMin = 20_000

// indexBatch is the most graph inserts the indexer makes before it looks
// for other work (and lets a checkpoint take Store.imu).
const indexBatch = 64

// The indexer is one goroutine that keeps the groups' graphs up to date
// while writes return at once: it builds a group's graph once the group
// has GraphMin points with a dense vector and inserts the points written
// since, in the order they were written. Until a point is in its graph
// SearchDense scans it with the group's other pending points, so a search
// never misses a point however far the indexer lags. It holds Store.imu
// while it changes a graph and Store.mu's read lock for each insert, so
// searches go on and a write waits for one insert at most.

// kickIndexer wakes the indexer if it sleeps.
func (l *Store) kickIndexer() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// indexLoop runs the indexer until l.stop is closed.
func (l *Store) indexLoop() {
	sc := new(graphScratch)
	for {
		select {
		case <-l.stop:
			return
		case <-l.kick:
		}
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			worked, err := l.indexStep(sc)
			if err != nil {
				l.log.Error("store: indexing failed; searches scan the points not indexed", slog.String("dir", l.dir), slog.Any("error", err))
				break
			}
			if !worked {
				break
			}
		}
	}
}

// indexWork is what the indexer does next.
type indexWork struct {
	build  *group // needs a graph
	insert *group // has pending points
	trim   *group // has many consumed pending points
	purge  *group // has many dead nodes
	// calibrate has caught up and grown since its walks were measured.
	calibrate *group
}

// findWork looks for the indexer's next work; the caller holds imu and
// l.mu's read lock.
func (x *index) findWork() indexWork {
	var w indexWork
	for _, g := range x.groups {
		gr := g.graph
		if gr == nil {
			if x.graphMin > 0 && g.dense >= x.graphMin {
				w.build = g
			}
			continue
		}
		_, done := gr.counts()
		if done < len(gr.pending) && (w.insert == nil || len(gr.pending)-done > len(w.insert.graph.pending)) {
			w.insert = g
		}
		if done >= 1024 && 2*done >= len(gr.pending) {
			w.trim = g
		}
		if gr.needsPurge() {
			w.purge = g
		}
		if x.needsCalibration(gr) {
			w.calibrate = g
		}
	}
	return w
}

// indexStep does one piece of the indexer's work and reports whether
// there was any.
func (l *Store) indexStep(sc *graphScratch) (bool, error) {
	l.imu.Lock()
	defer l.imu.Unlock()
	l.mu.RLock()
	if l.shut {
		l.mu.RUnlock()
		return false, nil
	}
	w := l.idx.findWork()
	l.mu.RUnlock()
	switch {
	case w.purge != nil:
		l.purgeGraph(w.purge, sc)
		return true, nil
	case w.trim != nil:
		l.mu.Lock()
		if gr := w.trim.graph; gr != nil && !gr.closed {
			nodes, done := gr.counts()
			gr.pending = slices.Clone(gr.pending[done:])
			gr.state.Store(uint64(nodes) << 32)
		}
		l.mu.Unlock()
		return true, nil
	case w.build != nil:
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.shut || l.idx.groupByID[w.build.id] != w.build || w.build.graph != nil {
			return true, nil
		}
		l.idx.buildGraph(w.build)
		return true, nil
	case w.insert != nil:
		return true, l.insertPending(w.insert, sc)
	case w.calibrate != nil:
		l.calibrateGraph(w.calibrate)
		return true, nil
	}
	return false, nil
}

// buildGraph gives g an empty graph whose pending points are g's points
// with a dense vector. The caller holds l.mu's write lock.
func (x *index) buildGraph(g *group) {
	gr := newGraph(uint64(g.id))
	for _, s := range g.slots {
		if x.dense[s] {
			gr.pending = append(gr.pending, s)
		}
	}
	g.graph = gr
}

// insertPending inserts up to indexBatch of g's pending points into its
// graph, each under l.mu's read lock.
func (l *Store) insertPending(g *group, sc *graphScratch) error {
	deadline := time.Now().Add(50 * time.Millisecond)
	for range indexBatch {
		l.mu.RLock()
		gr := g.graph
		if l.shut || gr == nil || gr.closed {
			l.mu.RUnlock()
			return nil
		}
		nodes, done := gr.counts()
		if done >= len(gr.pending) {
			l.mu.RUnlock()
			return nil
		}
		x := l.idx
		s := gr.pending[done]
		if !x.live(s) || !x.dense[s] {
			gr.skip = append(gr.skip, s)
			gr.state.Store(uint64(nodes)<<32 | uint64(done+1))
			l.mu.RUnlock()
			continue
		}
		err := gr.insert(x, s, sc)
		if err == nil {
			x.gnode[s] = int32(nodes)
		}
		l.mu.RUnlock()
		if err != nil {
			return err
		}
		if time.Now().After(deadline) {
			break
		}
	}
	return nil
}

// waitIndexed returns once the indexer has nothing left to do (tests and
// benchmarks).
func (l *Store) waitIndexed() {
	for {
		// findWork reads the indexer's own fields (a graph's skipped
		// slots), so it runs under imu here as in indexStep.
		l.imu.Lock()
		l.mu.RLock()
		w := l.idx.findWork()
		l.mu.RUnlock()
		l.imu.Unlock()
		if w.build == nil && w.insert == nil && w.purge == nil && w.calibrate == nil {
			return
		}
		l.kickIndexer()
		time.Sleep(time.Millisecond)
	}
}
