package local

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"sync/atomic"
)

// A saved graph ("graph-G-N") is graphMagic, then frames (length, CRC-32C,
// payload): a header (group id, nodes, upper lists handed out, entry
// point), the nodes in order, graphFileChunk at a time (slot, level,
// first upper list, level-0 count and links), and the upper lists,
// graphFileChunk at a time (count and links). Open reads it whole.

const (
	graphMagic     = "HSGRF\x00\x00\x01"
	graphFileChunk = 4096
)

// save writes the graph's first nodes to path and syncs it. The caller
// holds Store.imu, so no node is being added.
func (g *graph) save(path string, gid uint32, nodes int) (err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create graph file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			err = fmt.Errorf("save graph: %w", err)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write([]byte(graphMagic))
	var buf []byte
	buf = encodeFrame(buf, func(e *encoder) {
		e.uvarint(uint64(gid))
		e.uvarint(uint64(nodes))
		e.uvarint(uint64(g.nextUp))
		e.uvarint(g.entry.Load())
	})
	w.Write(buf)
	for from := 0; from < nodes; from += graphFileChunk {
		to := min(from+graphFileChunk, nodes)
		buf = encodeFrame(buf, func(e *encoder) {
			for n := from; n < to; n++ {
				p, i := g.node(uint32(n))
				e.b = binary.LittleEndian.AppendUint32(e.b, uint32(atomic.LoadInt32(&p.slot[i])))
				e.byte(p.level[i])
				e.b = binary.LittleEndian.AppendUint32(e.b, p.up[i])
				for _, a := range g.list(uint32(n), 0) {
					e.b = binary.LittleEndian.AppendUint32(e.b, a)
				}
			}
		})
		w.Write(buf)
	}
	for from := uint32(0); from < g.nextUp; from += graphFileChunk {
		to := min(from+graphFileChunk, g.nextUp)
		buf = encodeFrame(buf, func(e *encoder) {
			for u := from; u < to; u++ {
				up := (*g.ups.Load())[u/graphUpPage]
				j := u % graphUpPage
				for _, a := range up.links[j*(graphM+1) : (j+1)*(graphM+1)] {
					e.b = binary.LittleEndian.AppendUint32(e.b, a)
				}
			}
		})
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// loadGraph reads a saved graph of group gid.
func loadGraph(path string, gid uint32) (g *graph, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open graph file: %w", err)
	}
	defer f.Close()
	g = newGraph(uint64(gid))
	defer func() {
		if err != nil {
			g.close()
			g, err = nil, fmt.Errorf("graph file %s: %w", path, err)
		}
	}()
	r := bufio.NewReaderSize(f, 1<<20)
	if err := readMagic(r, graphMagic); err != nil {
		return nil, err
	}
	frame, err := readFrame(r, nil)
	if err != nil {
		return nil, badSnapshot(err)
	}
	d := decoder{b: frame}
	id, nodes, ups, entry := d.uvarint(), d.uvarint(), d.uvarint(), d.uvarint()
	if d.err != nil || id != uint64(gid) || nodes > 1<<31 || ups > nodes*graphMaxLevel || entry != entryNone && (uint32(entry) >= uint32(nodes) || entry>>32 > graphMaxLevel) {
		return nil, errCorrupt
	}
	for n := uint64(0); n < nodes; n += graphPage {
		if _, err := g.grow(uint32(n), 0); err != nil {
			return nil, err
		}
	}
	if ups > 0 {
		if _, err := g.grow(0, int(ups)); err != nil {
			return nil, err
		}
	}
	const nodeSize = 4 + 1 + 4 + 4*(graphM0+1)
	for from := uint64(0); from < nodes; from += graphFileChunk {
		to := min(from+graphFileChunk, nodes)
		if frame, err = readFrame(r, frame); err != nil {
			return nil, badSnapshot(err)
		}
		if len(frame) != int(to-from)*nodeSize {
			return nil, errCorrupt
		}
		for n := from; n < to; n++ {
			b := frame[int(n-from)*nodeSize:]
			p, i := g.node(uint32(n))
			p.slot[i] = int32(binary.LittleEndian.Uint32(b))
			p.level[i] = b[4]
			p.up[i] = binary.LittleEndian.Uint32(b[5:])
			if int(p.level[i]) > graphMaxLevel || p.level[i] > 0 && uint64(p.up[i])+uint64(p.level[i]) > ups {
				return nil, errCorrupt
			}
			list := g.list(uint32(n), 0)
			for k := range list {
				list[k] = binary.LittleEndian.Uint32(b[9+4*k:])
			}
			if list[0] > graphM0 {
				return nil, errCorrupt
			}
		}
	}
	const upSize = 4 * (graphM + 1)
	for from := uint64(0); from < ups; from += graphFileChunk {
		to := min(from+graphFileChunk, ups)
		if frame, err = readFrame(r, frame); err != nil {
			return nil, badSnapshot(err)
		}
		if len(frame) != int(to-from)*upSize {
			return nil, errCorrupt
		}
		for u := from; u < to; u++ {
			up := (*g.ups.Load())[u/graphUpPage]
			j := u % graphUpPage
			list := up.links[j*(graphM+1) : (j+1)*(graphM+1)]
			for k := range list {
				list[k] = binary.LittleEndian.Uint32(frame[int(u-from)*upSize+4*k:])
			}
			if list[0] > graphM {
				return nil, errCorrupt
			}
		}
	}
	g.nextUp = uint32(ups)
	g.entry.Store(entry)
	g.state.Store(nodes << 32)
	g.savedNodes = int(nodes)
	return g, nil
}

// drop unlinks node n for good: its slot is not its own any more.
// Searches skip it; links to it stay until the next purge.
func (g *graph) drop(n uint32) {
	p, i := g.node(n)
	atomic.StoreInt32(&p.slot[i], -1)
	for l := range int(p.level[i]) + 1 {
		atomic.StoreUint32(&g.list(n, l)[0], 0)
	}
	g.purged = true
}
