package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/dfopt/dfopt/exec/ops"
)

// Page checksums. A Parquet page header may carry a CRC-32 (IEEE) of the
// page's bytes as stored, after the header: levels and values, compressed
// if the chunk is. arrow-go v18.8.0 neither verifies nor writes it, so the
// scan verifies it itself (verifyPageChecksums) for every column chunk it
// is about to decode: a page whose header has a crc that does not match
// its bytes fails the scan with a source_error naming the file, the row
// group, the column and the page, instead of decoding into wrong values or
// a panic. Pages without a crc are not checked. Only the page headers are
// parsed here (thrift compact protocol, the fields needed and a skip of the
// rest); the bodies are read only for pages that have a crc. A source
// verifies each chunk once while the file keeps its size and modification
// time (Source.verifyChecksums): re-reading every page of a file on
// every scan cost a quarter more CPU on the benchmark queries.

// maxPageHeader bounds a page header's encoded size; statistics with long
// string bounds make headers large, so the read grows up to this size.
const maxPageHeader = 16 << 20

// errChecksum marks a page whose bytes do not match its header's crc.
var errChecksum = errors.New("page checksum mismatch")

// chunkID names one column chunk: a row group and a leaf column.
type chunkID struct{ group, leaf int }

// verifyPageChecksums checks the crc of every page that has one, in the
// column chunks of the file r (size bytes), one chunk per unit of par. It
// returns each chunk's error (nil when its pages match), or the error of a
// panic.
func verifyPageChecksums(r io.ReaderAt, size int64, md *metadata.FileMetaData, chunks []chunkID, par ops.Parallel) ([]error, error) {
	errs := make([]error, len(chunks))
	runErr := par.Run(len(chunks), func(u int) {
		g, leaf := chunks[u].group, chunks[u].leaf
		cc, err := md.RowGroup(g).ColumnChunk(leaf)
		if err != nil {
			errs[u] = fmt.Errorf("row group %d, column %d: %w", g, leaf, err)
			return
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		end := start + cc.TotalCompressedSize()
		if start < 0 || end < start || end > size {
			return // the decoder reports the bad metadata
		}
		if err := verifyChunk(r, start, end); err != nil {
			errs[u] = fmt.Errorf("row group %d, column %q: %w", g, cc.PathInSchema().String(), err)
		}
	})
	return errs, runErr
}

// verifyChunk walks the pages in [start, end) and checks their crcs. A
// header it cannot parse ends the walk without an error: the decoder reads
// the same bytes and reports what is wrong with them.
func verifyChunk(r io.ReaderAt, start, end int64) error {
	var buf []byte // reused for every page body of the chunk
	for page, pos := 0, start; pos < end; page++ {
		h, hlen, err := readPageHeader(r, pos, end)
		if err != nil {
			return nil
		}
		body := pos + hlen
		if h.compressedSize < 0 || body+int64(h.compressedSize) > end {
			return nil
		}
		if h.hasCRC {
			if cap(buf) < int(h.compressedSize) {
				buf = make([]byte, h.compressedSize)
			}
			buf = buf[:h.compressedSize]
			if _, err := r.ReadAt(buf, body); err != nil {
				return fmt.Errorf("page %d at offset %d: %w", page, pos, err)
			}
			if got := crc32.ChecksumIEEE(buf); got != h.crc {
				return fmt.Errorf("page %d at offset %d: %w: the header says crc 0x%08x, the %d bytes hash to 0x%08x",
					page, pos, errChecksum, h.crc, len(buf), got)
			}
		}
		pos = body + int64(h.compressedSize)
	}
	return nil
}

// pageHeader holds the fields of a Parquet PageHeader the check needs.
type pageHeader struct {
	compressedSize int32
	hasCRC         bool
	crc            uint32
}

// readPageHeader parses the page header at pos (before limit), reading a
// growing window until the header fits; it returns the header and its
// encoded length.
func readPageHeader(r io.ReaderAt, pos, limit int64) (pageHeader, int64, error) {
	for window := int64(256); ; window *= 4 {
		n := min(window, limit-pos, maxPageHeader)
		buf := make([]byte, n)
		read, err := r.ReadAt(buf, pos)
		if err != nil && !(errors.Is(err, io.EOF) && read > 0) {
			return pageHeader{}, 0, err
		}
		buf = buf[:read]
		h, hlen, perr := parsePageHeader(buf)
		if perr == nil {
			return h, int64(hlen), nil
		}
		if !errors.Is(perr, errShortHeader) || n < window || n == maxPageHeader {
			return pageHeader{}, 0, perr
		}
	}
}

// errShortHeader is a header that runs past the bytes read so far.
var errShortHeader = errors.New("page header runs past the bytes read")

// parsePageHeader decodes a thrift compact PageHeader struct at the start
// of b: field 3 compressed_page_size (i32) and field 4 crc (i32); every
// other field is skipped.
func parsePageHeader(b []byte) (pageHeader, int, error) {
	d := compactReader{b: b}
	var h pageHeader
	seen := false
	var last int16
	for {
		id, typ, err := d.fieldHeader(&last)
		if err != nil {
			return h, 0, err
		}
		if typ == ctStop {
			break
		}
		switch {
		case id == 3 && typ == ctI32:
			v, err := d.zigzag()
			if err != nil {
				return h, 0, err
			}
			h.compressedSize, seen = int32(v), true
		case id == 4 && typ == ctI32:
			v, err := d.zigzag()
			if err != nil {
				return h, 0, err
			}
			h.hasCRC, h.crc = true, uint32(int32(v))
		default:
			if err := d.skip(typ, 0); err != nil {
				return h, 0, err
			}
		}
	}
	if !seen {
		return h, 0, fmt.Errorf("page header without compressed_page_size")
	}
	return h, d.pos, nil
}

// The thrift compact protocol's type codes.
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// maxThriftDepth bounds nesting while skipping, against hostile headers.
const maxThriftDepth = 32

// compactReader reads thrift compact protocol values from b.
type compactReader struct {
	b   []byte
	pos int
}

func (d *compactReader) byte() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, errShortHeader
	}
	c := d.b[d.pos]
	d.pos++
	return c, nil
}

func (d *compactReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b[d.pos:])
	switch {
	case n == 0:
		return 0, errShortHeader
	case n < 0:
		return 0, fmt.Errorf("varint overflows 64 bits")
	}
	d.pos += n
	return v, nil
}

func (d *compactReader) zigzag() (int64, error) {
	u, err := d.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// fieldHeader reads a field header: the field id (delta-coded against
// *last) and the type; a stop field has type ctStop.
func (d *compactReader) fieldHeader(last *int16) (int16, byte, error) {
	c, err := d.byte()
	if err != nil {
		return 0, 0, err
	}
	typ := c & 0x0f
	if typ == ctStop {
		return 0, ctStop, nil
	}
	if delta := int16(c >> 4); delta != 0 {
		*last += delta
	} else {
		v, err := d.zigzag()
		if err != nil {
			return 0, 0, err
		}
		*last = int16(v)
	}
	return *last, typ, nil
}

// skip reads past one value of type typ.
func (d *compactReader) skip(typ byte, depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("thrift value nested deeper than %d", maxThriftDepth)
	}
	switch typ {
	case ctTrue, ctFalse:
		return nil
	case ctByte:
		_, err := d.byte()
		return err
	case ctI16, ctI32, ctI64:
		_, err := d.uvarint()
		return err
	case ctDouble:
		return d.advance(8)
	case ctBinary:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		return d.advance(n)
	case ctList, ctSet:
		c, err := d.byte()
		if err != nil {
			return err
		}
		n, elem := uint64(c>>4), c&0x0f
		if n == 15 {
			if n, err = d.uvarint(); err != nil {
				return err
			}
		}
		return d.skipN(n, depth, elem)
	case ctMap:
		n, err := d.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := d.byte()
		if err != nil {
			return err
		}
		if n > uint64(len(d.b)-d.pos) {
			return errShortHeader // every entry takes at least two bytes
		}
		for i := uint64(0); i < n; i++ {
			if err := d.skipElem(kv>>4, depth); err != nil {
				return err
			}
			if err := d.skipElem(kv&0x0f, depth); err != nil {
				return err
			}
		}
		return nil
	case ctStruct:
		var last int16
		for {
			_, t, err := d.fieldHeader(&last)
			if err != nil || t == ctStop {
				return err
			}
			if err := d.skip(t, depth+1); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown thrift compact type %d", typ)
}

// skipN skips n elements of type elem.
func (d *compactReader) skipN(n uint64, depth int, elem byte) error {
	if n > uint64(len(d.b)-d.pos) {
		return errShortHeader // every element takes at least one byte
	}
	for i := uint64(0); i < n; i++ {
		if err := d.skipElem(elem, depth); err != nil {
			return err
		}
	}
	return nil
}

// skipElem skips one element of a list, set or map: as skip, except that a
// boolean element is a byte of its own (a boolean field has none).
func (d *compactReader) skipElem(elem byte, depth int) error {
	if elem == ctTrue || elem == ctFalse {
		_, err := d.byte()
		return err
	}
	return d.skip(elem, depth+1)
}

// advance moves past n bytes.
func (d *compactReader) advance(n uint64) error {
	if n > uint64(len(d.b)-d.pos) {
		return errShortHeader
	}
	d.pos += int(n)
	return nil
}
