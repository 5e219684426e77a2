package parquet

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// thriftWriter writes thrift compact protocol structs, enough to build a
// small Parquet file by hand (arrow-go cannot write page checksums).
type thriftWriter struct {
	b    []byte
	last []int16 // the last field id of each open struct
}

func (w *thriftWriter) field(id int16, typ byte) {
	top := &w.last[len(w.last)-1]
	if d := id - *top; d > 0 && d <= 15 {
		w.b = append(w.b, byte(d)<<4|typ)
	} else {
		w.b = append(w.b, typ)
		w.b = binary.AppendUvarint(w.b, uint64((int64(id)<<1)^(int64(id)>>63)))
	}
	*top = id
}

func (w *thriftWriter) zigzag(v int64) { w.b = binary.AppendUvarint(w.b, uint64((v<<1)^(v>>63))) }

func (w *thriftWriter) i32(id int16, v int32) { w.field(id, ctI32); w.zigzag(int64(v)) }
func (w *thriftWriter) i64(id int16, v int64) { w.field(id, ctI64); w.zigzag(v) }
func (w *thriftWriter) str(id int16, s string) {
	w.field(id, ctBinary)
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// begin opens a struct: a field of the enclosing struct (id > 0) or a list
// element (id 0, no field header).
func (w *thriftWriter) begin(id int16) {
	if id > 0 {
		w.field(id, ctStruct)
	}
	w.last = append(w.last, 0)
}

func (w *thriftWriter) end() {
	w.b = append(w.b, ctStop)
	w.last = w.last[:len(w.last)-1]
}

func (w *thriftWriter) list(id int16, elem byte, n int) {
	w.field(id, ctList)
	w.b = append(w.b, byte(n)<<4|elem)
}

// crcPage is one data page of the hand-built file.
type crcPage struct {
	values []int64
	crc    bool // write the page's crc
}

// crcParquet builds a Parquet file with one row group and one required
// int64 column "a", written as PLAIN data pages, with a crc on the pages
// that ask for one. It returns the file and each page body's offset.
func crcParquet(pages []crcPage) ([]byte, []int) {
	file := []byte("PAR1")
	var bodies []int
	rows := 0
	for _, p := range pages {
		body := make([]byte, 0, 8*len(p.values))
		for _, v := range p.values {
			body = binary.LittleEndian.AppendUint64(body, uint64(v))
		}
		h := &thriftWriter{last: []int16{0}}
		h.i32(1, 0) // DATA_PAGE
		h.i32(2, int32(len(body)))
		h.i32(3, int32(len(body)))
		if p.crc {
			h.i32(4, int32(crc32.ChecksumIEEE(body)))
		}
		h.begin(5)
		h.i32(1, int32(len(p.values)))
		h.i32(2, 0) // PLAIN
		h.i32(3, 3) // RLE
		h.i32(4, 3)
		h.end()
		h.b = append(h.b, ctStop)
		file = append(file, h.b...)
		bodies = append(bodies, len(file))
		file = append(file, body...)
		rows += len(p.values)
	}
	chunkLen := int64(len(file) - 4)
	m := &thriftWriter{last: []int16{0}}
	m.i32(1, 1)
	m.list(2, ctStruct, 2)
	m.begin(0)
	m.str(4, "schema")
	m.i32(5, 1)
	m.end()
	m.begin(0)
	m.i32(1, 2) // INT64
	m.i32(3, 0) // REQUIRED
	m.str(4, "a")
	m.end()
	m.i64(3, int64(rows))
	m.list(4, ctStruct, 1)
	m.begin(0)
	m.list(1, ctStruct, 1)
	m.begin(0)
	m.i64(2, 4)
	m.begin(3)
	m.i32(1, 2)
	m.list(2, ctI32, 1)
	m.zigzag(0)
	m.list(3, ctBinary, 1)
	m.b = append(m.b, 1, 'a')
	m.i32(4, 0) // UNCOMPRESSED
	m.i64(5, int64(rows))
	m.i64(6, chunkLen)
	m.i64(7, chunkLen)
	m.i64(9, 4)
	m.end() // meta_data
	m.end() // column chunk
	m.i64(2, chunkLen)
	m.i64(3, int64(rows))
	m.end() // row group
	m.b = append(m.b, ctStop)
	file = append(file, m.b...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(m.b)))
	return append(file, "PAR1"...), bodies
}

// scanColumnA collects scan(t) over the Parquet file at path.
func scanColumnA(t *testing.T, path string) ([]int64, error) {
	t.Helper()
	src, err := OpenFile("t", path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	res, err := exec.Collect(context.Background(), plan.Scan(src).Node(), exec.Options{Mem: checked(t)})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	rows, err := res.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, r := range rows {
		out = append(out, r[0].Int())
	}
	return out, nil
}

// A page whose crc does not match its bytes fails the scan with a
// source_error naming the file and the page; without the check the
// corrupted value was read as data.
func TestParquetPageChecksums(t *testing.T) {
	dir := t.TempDir()
	data, bodies := crcParquet([]crcPage{{values: []int64{1, 2}, crc: true}, {values: []int64{3}, crc: true}})
	good := filepath.Join(dir, "good.parquet")
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := scanColumnA(t, good)
	if err != nil || len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("intact file: %v, %v; want [1 2 3]", got, err)
	}

	bad := append([]byte(nil), data...)
	bad[bodies[1]] ^= 0x40 // the second page's value 3 becomes 67
	badPath := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(badPath, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = scanColumnA(t, badPath)
	if err == nil {
		t.Fatalf("a corrupted page was read: %v", got)
	}
	pe, ok := plan.AsError(err)
	if !ok || pe.Kind != plan.SourceError || !errors.Is(err, errChecksum) ||
		!strings.Contains(err.Error(), badPath) || !strings.Contains(err.Error(), "page 1") {
		t.Errorf("error %v: want a source_error naming the file and page 1, wrapping errChecksum", err)
	}

	// A page without a crc is not checked: the same corruption reads.
	data, bodies = crcParquet([]crcPage{{values: []int64{1, 2}, crc: true}, {values: []int64{3}}})
	data[bodies[1]] ^= 0x40
	noCRC := filepath.Join(dir, "nocrc.parquet")
	if err := os.WriteFile(noCRC, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := scanColumnA(t, noCRC); err != nil || len(got) != 3 || got[2] != 67 {
		t.Errorf("page without crc: %v, %v; want [1 2 67]", got, err)
	}
}

// The header parser never panics and never reads past its input.
func FuzzParsePageHeader(f *testing.F) {
	data, bodies := crcParquet([]crcPage{{values: []int64{1}, crc: true}})
	f.Add(data[4:bodies[0]])
	f.Add([]byte{0x15, 0x00, 0x15, 0x10, 0x15, 0x10, 0x1c, 0x19, 0xfc, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, n, err := parsePageHeader(b); err == nil && (n <= 0 || n > len(b)) {
			t.Fatalf("parsed %d bytes of %d", n, len(b))
		}
	})
}

// A source verifies a chunk once, but a file rewritten since (another size
// or modification time) is verified again.
func TestParquetChecksumsReverifyAChangedFile(t *testing.T) {
	data, bodies := crcParquet([]crcPage{{values: []int64{1, 2}, crc: true}, {values: []int64{3}, crc: true}})
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile("t", path)
	if err != nil {
		t.Fatal(err)
	}
	scan := func() error {
		res, err := exec.Collect(context.Background(), plan.Scan(src).Node(), exec.Options{Mem: checked(t)})
		if err == nil {
			res.Release()
		}
		return err
	}
	for i := 0; i < 2; i++ {
		if err := scan(); err != nil {
			t.Fatalf("scan %d of the intact file: %v", i, err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data[bodies[0]] ^= 0x01
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if err := scan(); !errors.Is(err, errChecksum) {
		t.Errorf("scan of the file corrupted since the last scan: %v; want a checksum mismatch", err)
	}
}
