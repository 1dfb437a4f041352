package local

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"sync/atomic"

	hs "github.com/hybrid-search/hybridsearch"
)

// File format. The WAL is walMagic followed by frames; a snapshot is
// snapMagic followed by frames. A frame is the payload's length (uint32
// LE), its CRC-32C (uint32 LE) and the payload. The last byte of a magic is
// the format version.
const (
	walMagic    = "HSWAL\x00\x00\x01"
	snapMagic   = "HSSNP\x00\x00\x01"
	magicLen    = 8
	frameHeader = 8
	maxFrame    = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errTorn reports a frame that was not completely written.
var errTorn = errors.New("torn frame")

// wal is the write-ahead log. Appends are serialised by Store.wmu; sync is
// a group commit: one fsync makes every record written before it durable,
// and concurrent waiters share it.
type wal struct {
	f       *os.File
	off     int64         // end of the last complete frame; guarded by Store.wmu
	buf     []byte        // frame buffer; guarded by Store.wmu
	written atomic.Uint64 // sequence number of the last record written

	syncMu  sync.Mutex // serialises fsync
	durable uint64     // records up to this sequence number are durable; guarded by syncMu

	errMu sync.Mutex // not held across I/O, so appends never wait for an fsync
	err   error      // sticky fsync or truncate failure; guarded by errMu
}

// openWAL opens or creates the WAL at path and calls apply with every
// complete record in order, the offset of its frame and the WAL's file
// (to read earlier records from). A torn or corrupt tail is truncated away, as a
// crash mid-append leaves it; the caller learns how many bytes were cut.
func openWAL(path string, apply func(payload []byte, off int64, f *os.File) error) (w *wal, cut int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("open wal: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("stat wal: %w", err)
	}
	if st.Size() < magicLen {
		// New, or a crash before the magic was durable: nothing was acknowledged.
		if err := writeMagic(f, walMagic); err != nil {
			return nil, 0, err
		}
		return &wal{f: f, off: magicLen}, 0, nil
	}
	r := bufio.NewReaderSize(f, 1<<20)
	if err := readMagic(r, walMagic); err != nil {
		return nil, 0, fmt.Errorf("wal %s: %w", path, err)
	}
	end := int64(magicLen)
	var frame []byte
	for {
		frame, err = readFrame(r, frame)
		if err == io.EOF || errors.Is(err, errTorn) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read wal: %w", err)
		}
		if err := apply(frame, end, f); err != nil {
			return nil, 0, fmt.Errorf("replay wal at offset %d: %w", end, err)
		}
		end += frameHeader + int64(len(frame))
	}
	if end < st.Size() {
		if err := f.Truncate(end); err != nil {
			return nil, 0, fmt.Errorf("truncate torn wal: %w", err)
		}
		if err := f.Sync(); err != nil {
			return nil, 0, fmt.Errorf("sync wal: %w", err)
		}
	}
	return &wal{f: f, off: end}, st.Size() - end, nil
}

// writeMagic makes f hold only magic, durably.
func writeMagic(f *os.File, magic string) error {
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("truncate %s: %w", f.Name(), err)
	}
	if _, err := f.WriteAt([]byte(magic), 0); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", f.Name(), err)
	}
	return nil
}

// readMagic checks a file's magic and format version.
func readMagic(r io.Reader, magic string) error {
	var b [magicLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	switch {
	case string(b[:magicLen-1]) != magic[:magicLen-1]:
		return fmt.Errorf("not a store file (header %q)", b[:])
	case b[magicLen-1] != magic[magicLen-1]:
		return hs.Errorf(hs.EINVALID, "store: unsupported format version %d, want %d", b[magicLen-1], magic[magicLen-1])
	}
	return nil
}

// readFrame reads one frame's payload into buf. It returns io.EOF at a
// clean end and errTorn for a short, oversized or mismatched frame.
func readFrame(r io.Reader, buf []byte) ([]byte, error) {
	var h [frameHeader]byte
	n, err := io.ReadFull(r, h[:])
	switch {
	case err == io.EOF:
		return buf, io.EOF
	case err == io.ErrUnexpectedEOF:
		return buf, fmt.Errorf("%w: %d header bytes", errTorn, n)
	case err != nil:
		return buf, err
	}
	size := binary.LittleEndian.Uint32(h[0:4])
	if size == 0 || size > maxFrame {
		// Payloads are never empty; a zero header is a block the file
		// system extended but the crash left unwritten.
		return buf, fmt.Errorf("%w: length %d", errTorn, size)
	}
	if cap(buf) < int(size) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return buf, fmt.Errorf("%w: short payload", errTorn)
		}
		return buf, err
	}
	if crc32.Checksum(buf, castagnoli) != binary.LittleEndian.Uint32(h[4:8]) {
		return buf, fmt.Errorf("%w: checksum mismatch", errTorn)
	}
	return buf, nil
}

// encodeFrame encodes a frame whose payload fill writes, reusing buf.
func encodeFrame(buf []byte, fill func(e *encoder)) []byte {
	e := encoder{b: append(buf[:0], make([]byte, frameHeader)...)}
	fill(&e)
	payload := e.b[frameHeader:]
	binary.LittleEndian.PutUint32(e.b[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(e.b[4:8], crc32.Checksum(payload, castagnoli))
	return e.b
}

// append writes the op as record seq and returns the offset of its frame
// (o.pos says where its points' records lie in it). It does not wait for
// durability. On failure the log is cut back to its previous end.
func (w *wal) append(o *op, seq uint64) (int64, error) {
	if err := w.failed(); err != nil {
		return 0, err
	}
	w.buf = encodeFrame(w.buf, func(e *encoder) { o.encode(e, seq) })
	if len(w.buf)-frameHeader > maxFrame {
		return 0, hs.Errorf(hs.ETOOLARGE, "store: record of %d bytes is over the limit", len(w.buf))
	}
	off := w.off
	if _, err := w.f.WriteAt(w.buf, off); err != nil {
		if terr := w.f.Truncate(off); terr != nil {
			w.fail(fmt.Errorf("truncate wal after failed write: %w", terr))
		}
		return 0, fmt.Errorf("append wal: %w", err)
	}
	w.off += int64(len(w.buf))
	if cap(w.buf) > 16<<20 {
		w.buf = nil // do not pin one huge file's record
	}
	w.written.Store(seq)
	return off, nil
}

// sync returns once record seq is durable. A failed fsync leaves the store
// unusable: the record may or may not survive a crash.
func (w *wal) sync(seq uint64) error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if w.durable >= seq {
		return nil // an fsync that started after our append covered us
	}
	if err := w.failed(); err != nil {
		return err
	}
	target := w.written.Load()
	if err := w.f.Sync(); err != nil {
		w.fail(fmt.Errorf("sync wal: %w", err))
		return w.failed()
	}
	w.durable = target
	return nil
}

// reset empties the log after a snapshot has made records up to seq
// durable. Callers hold Store.wmu.
func (w *wal) reset(seq uint64) error {
	w.syncMu.Lock()
	w.durable = max(w.durable, seq)
	w.syncMu.Unlock()
	if err := w.f.Truncate(magicLen); err != nil {
		w.fail(fmt.Errorf("truncate wal: %w", err))
		return w.failed()
	}
	if err := w.f.Sync(); err != nil {
		w.fail(fmt.Errorf("sync wal: %w", err))
		return w.failed()
	}
	w.off = magicLen
	return nil
}

func (w *wal) fail(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// failed returns the sticky failure, if any.
func (w *wal) failed() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

func (w *wal) close() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close wal: %w", err)
	}
	return nil
}
