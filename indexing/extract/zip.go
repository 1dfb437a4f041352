package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// ratioExempt is the entry size under which the expansion ratio is not
// checked: small entries cannot bomb, and tiny XML parts compress well.
const ratioExempt = 1 << 20

// archive is a zip file opened behind the zip-bomb guard: every format
// built on zip reads its entries through it. The archives this package
// reads are never nested: embedded zips (OLE objects, attachments) are not
// opened.
type archive struct {
	j     *job
	zr    *zip.Reader
	files map[string]*zip.File
	read  int64 // uncompressed bytes actually read so far
}

// openZip opens j.data as a zip and checks what its directory declares: the
// entry count, the total uncompressed size and each entry's ratio.
func (j *job) openZip() (*archive, error) {
	if bytes.HasPrefix(j.data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}) {
		return nil, j.invalid("encrypted or pre-2007 office file (OLE container), not a %s", j.format)
	}
	zr, err := zip.NewReader(bytes.NewReader(j.data), int64(len(j.data)))
	if err != nil {
		return nil, j.corrupt(err, "zip")
	}
	if len(zr.File) > j.lim.zipEntries {
		return nil, j.invalid("zip bomb: %d entries (limit %d)", len(zr.File), j.lim.zipEntries)
	}
	a := &archive{j: j, zr: zr, files: make(map[string]*zip.File, len(zr.File))}
	var total uint64
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if total > uint64(j.lim.zipTotal) {
			return nil, j.invalid("zip bomb: entries declare over %d bytes uncompressed", j.lim.zipTotal)
		}
		if err := a.checkRatio(f, f.UncompressedSize64); err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(path.Clean(strings.ReplaceAll(f.Name, `\`, "/")), "/")
		if _, dup := a.files[name]; !dup {
			a.files[name] = f
		}
	}
	return a, nil
}

func (a *archive) checkRatio(f *zip.File, size uint64) error {
	if size < ratioExempt {
		return nil
	}
	ratio := float64(size) / float64(max(f.CompressedSize64, 1))
	if ratio > a.j.lim.zipRatio {
		return a.j.invalid("zip bomb: entry %s expands %.0fx", f.Name, ratio)
	}
	return nil
}

// has reports whether the archive holds the named entry.
func (a *archive) has(name string) bool {
	_, ok := a.files[name]
	return ok
}

// open returns a reader of the named entry that enforces, on the bytes
// actually inflated (headers lie), the ratio, the entry's declared size
// and the archive's total. Errors past the limits are EINVALID zip bombs;
// a missing entry is an os.ErrNotExist.
func (a *archive) open(name string) (io.ReadCloser, error) {
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("zip entry %s: %w", name, errNoEntry)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, a.j.corrupt(err, "zip entry "+name)
	}
	return &guardReader{a: a, f: f, rc: rc}, nil
}

// errNoEntry says a zip entry does not exist.
var errNoEntry = errors.New("no such entry")

// readAll reads the named entry whole, through the guard.
func (a *archive) readAll(name string) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// verify reads every entry through the guard and discards it, for parsers
// that read the archive themselves.
func (a *archive) verify() error {
	for _, f := range a.zr.File {
		if err := a.j.ctx.Err(); err != nil {
			return err
		}
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return a.j.corrupt(err, "zip entry "+f.Name)
		}
		_, err = io.Copy(io.Discard, &guardReader{a: a, f: f, rc: rc})
		rc.Close()
		if err != nil {
			return a.j.corrupt(err, "zip entry "+f.Name)
		}
	}
	return nil
}

// guardReader counts the bytes inflated from one entry.
type guardReader struct {
	a  *archive
	f  *zip.File
	rc io.ReadCloser
	n  uint64
}

func (g *guardReader) Read(p []byte) (int, error) {
	n, err := g.rc.Read(p)
	g.n += uint64(n)
	g.a.read += int64(n)
	switch {
	case g.a.read > g.a.j.lim.zipTotal:
		return n, g.a.j.invalid("zip bomb: entries expand to over %d bytes", g.a.j.lim.zipTotal)
	case g.n > g.f.UncompressedSize64:
		return n, g.a.j.invalid("zip bomb: entry %s expands past its declared %d bytes", g.f.Name, g.f.UncompressedSize64)
	}
	if err := g.a.checkRatio(g.f, g.n); err != nil {
		return n, err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = g.a.j.corrupt(err, "zip entry "+g.f.Name)
	}
	return n, err
}

func (g *guardReader) Close() error { return g.rc.Close() }

// isNoEntry reports whether err says an entry is missing.
func isNoEntry(err error) bool { return errors.Is(err, errNoEntry) }
