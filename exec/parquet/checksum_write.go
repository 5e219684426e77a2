package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// AddPageChecksums rewrites the Parquet file at path so that every page
// header carries the CRC-32 of its page (the optional crc field of the
// format), which the scan verifies (checksum.go). arrow-go v18.8.0
// writes no page checksums, so dfopt's writers call this after closing a
// file. The page bodies are copied unchanged; each header is re-encoded
// with its crc, and the footer's offsets and sizes are shifted by the bytes
// the headers grew. The new file replaces path through a rename, so a
// failure leaves the original. Files with a page index, bloom filters,
// column chunks in other files or an encrypted footer are refused (dfopt's
// writers produce none of them).
func AddPageChecksums(path string) (err error) {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("add page checksums: %w", err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return fmt.Errorf("add page checksums: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".crc*")
	if err != nil {
		return fmt.Errorf("add page checksums: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(st.Mode().Perm()); err != nil {
		return fmt.Errorf("add page checksums: %w", err)
	}
	if err = rewriteWithChecksums(in, st.Size(), tmp); err != nil {
		return fmt.Errorf("add page checksums to %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("add page checksums: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("add page checksums: %w", err)
	}
	return nil
}

// chunkRange is one column chunk's bytes in the file.
type chunkRange struct{ start, end int64 }

// growth records that the page header at old offset at grew, so that every
// offset after it moves by total (the sum of the growths up to this one).
type growth struct{ at, total int64 }

// rewriteWithChecksums copies the Parquet file in (size bytes) to out with
// a crc in every page header.
func rewriteWithChecksums(in io.ReaderAt, size int64, out io.Writer) error {
	meta, footerStart, err := readFooter(in, size)
	if err != nil {
		return err
	}
	chunks, err := columnChunks(meta, footerStart)
	if err != nil {
		return err
	}
	w := &errWriter{w: out}
	w.Write([]byte("PAR1"))
	var grown []growth
	var total int64
	pos := int64(4)
	for _, c := range chunks {
		if c.start < pos {
			return fmt.Errorf("column chunks overlap at offset %d", c.start)
		}
		if err := copyRange(w, in, pos, c.start); err != nil {
			return err
		}
		for pos = c.start; pos < c.end; {
			fields, hlen, err := readThriftStruct(in, pos, c.end)
			if err != nil {
				return fmt.Errorf("page header at offset %d: %w", pos, err)
			}
			bodyLen, ok := fieldInt(fields, 3)
			body := pos + hlen
			if !ok || bodyLen < 0 || body+bodyLen > c.end {
				return fmt.Errorf("page header at offset %d: bad compressed_page_size", pos)
			}
			data := make([]byte, bodyLen)
			if _, err := in.ReadAt(data, body); err != nil {
				return fmt.Errorf("page at offset %d: %w", pos, err)
			}
			fields = setField(fields, thriftField{id: 4, v: thriftValue{typ: ctI32, i: int64(int32(crc32.ChecksumIEEE(data)))}})
			hdr := encodeThriftStruct(nil, fields)
			if d := int64(len(hdr)) - hlen; d != 0 {
				total += d
				grown = append(grown, growth{at: pos, total: total})
			}
			w.Write(hdr)
			w.Write(data)
			pos = body + bodyLen
		}
		if pos != c.end {
			return fmt.Errorf("the pages of the column chunk at %d end at %d, not at %d", c.start, pos, c.end)
		}
	}
	if err := copyRange(w, in, pos, footerStart); err != nil {
		return err
	}
	shift := func(off int64) int64 {
		i, _ := slices.BinarySearchFunc(grown, off, func(g growth, off int64) int {
			return compareInt64(g.at, off)
		})
		if i == 0 {
			return off
		}
		return off + grown[i-1].total
	}
	shiftFooter(meta, shift)
	footer := encodeThriftStruct(nil, meta)
	w.Write(footer)
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	w.Write([]byte("PAR1"))
	return w.err
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readFooter decodes the file's FileMetaData and returns where it starts.
func readFooter(in io.ReaderAt, size int64) ([]thriftField, int64, error) {
	if size < 12 {
		return nil, 0, fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	tail := make([]byte, 8)
	if _, err := in.ReadAt(tail, size-8); err != nil {
		return nil, 0, err
	}
	if string(tail[4:]) != "PAR1" {
		return nil, 0, fmt.Errorf("no PAR1 magic at the end (an encrypted footer is PARE)")
	}
	n := int64(binary.LittleEndian.Uint32(tail))
	start := size - 8 - n
	if n <= 0 || start < 4 {
		return nil, 0, fmt.Errorf("footer length %d does not fit the file", n)
	}
	buf := make([]byte, n)
	if _, err := in.ReadAt(buf, start); err != nil {
		return nil, 0, err
	}
	d := compactReader{b: buf}
	meta, err := d.readStruct(0)
	if err != nil {
		return nil, 0, fmt.Errorf("footer: %w", err)
	}
	return meta, start, nil
}

// columnChunks lists the file's column chunks in file order, refusing the
// layouts the rewrite does not shift (see AddPageChecksums).
func columnChunks(meta []thriftField, footerStart int64) ([]chunkRange, error) {
	var out []chunkRange
	for _, rg := range fieldList(meta, 4) {
		for _, cc := range fieldList(rg.fields, 1) {
			for _, id := range []int16{1, 4, 6, 8, 9} {
				if _, ok := findField(cc.fields, id); ok {
					return nil, fmt.Errorf("a column chunk has field %d (file path, page index or encryption), which the rewrite cannot shift", id)
				}
			}
			md, ok := findField(cc.fields, 3)
			if !ok || md.typ != ctStruct {
				return nil, fmt.Errorf("a column chunk has no metadata")
			}
			if _, ok := findField(md.fields, 14); ok {
				return nil, fmt.Errorf("a column chunk has a bloom filter, which the rewrite cannot shift")
			}
			start, _ := fieldInt(md.fields, 9)
			if dict, ok := fieldInt(md.fields, 11); ok && dict > 0 && dict < start {
				start = dict
			}
			length, _ := fieldInt(md.fields, 7)
			if length == 0 {
				continue // an empty chunk (a table of no rows): no page to check
			}
			if start < 4 || length < 0 || start+length > footerStart {
				return nil, fmt.Errorf("a column chunk's range [%d, %d) lies outside the data", start, start+length)
			}
			out = append(out, chunkRange{start: start, end: start + length})
		}
	}
	slices.SortFunc(out, func(a, b chunkRange) int { return compareInt64(a.start, b.start) })
	return out, nil
}

// shiftFooter moves every offset of the FileMetaData by shift and grows
// the chunk and row group sizes by what their page headers grew.
func shiftFooter(meta []thriftField, shift func(int64) int64) {
	for _, rg := range fieldList(meta, 4) {
		var rgGrowth int64
		for _, cc := range fieldList(rg.fields, 1) {
			md := fieldRef(cc.fields, 3)
			start, _ := fieldInt(md.fields, 9)
			if dict, ok := fieldInt(md.fields, 11); ok && dict > 0 && dict < start {
				start = dict
			}
			length, _ := fieldInt(md.fields, 7)
			g := shift(start+length) - shift(start) - length
			rgGrowth += g
			addInt(md.fields, 6, g)
			addInt(md.fields, 7, g)
			for _, id := range []int16{9, 10, 11} {
				mapInt(md.fields, id, shift)
			}
			mapInt(cc.fields, 2, shift)
		}
		addInt(rg.fields, 2, rgGrowth)
		addInt(rg.fields, 6, rgGrowth)
		mapInt(rg.fields, 5, shift)
	}
}

// thriftValue is one decoded thrift compact value; thriftField a struct
// field.
type thriftValue struct {
	typ    byte
	i      int64         // bool (as 1/0 in containers: the raw byte), byte, i16, i32, i64
	raw    []byte        // double, binary
	elem   byte          // list or set element type; map key type
	val    byte          // map value type
	items  []thriftValue // list or set elements; map keys and values, interleaved
	fields []thriftField // struct
}

type thriftField struct {
	id int16
	v  thriftValue
}

// readThriftStruct decodes the struct at pos (before limit), reading a
// growing window, and returns its fields and encoded length.
func readThriftStruct(r io.ReaderAt, pos, limit int64) ([]thriftField, int64, error) {
	for window := int64(256); ; window *= 4 {
		n := min(window, limit-pos, maxPageHeader)
		buf := make([]byte, n)
		read, err := r.ReadAt(buf, pos)
		if err != nil && !(errors.Is(err, io.EOF) && read > 0) {
			return nil, 0, err
		}
		d := compactReader{b: buf[:read]}
		fields, perr := d.readStruct(0)
		if perr == nil {
			return fields, int64(d.pos), nil
		}
		if !errors.Is(perr, errShortHeader) || n < window || n == maxPageHeader {
			return nil, 0, perr
		}
	}
}

func (d *compactReader) readStruct(depth int) ([]thriftField, error) {
	if depth > maxThriftDepth {
		return nil, fmt.Errorf("thrift value nested deeper than %d", maxThriftDepth)
	}
	var fields []thriftField
	var last int16
	for {
		id, typ, err := d.fieldHeader(&last)
		if err != nil {
			return nil, err
		}
		if typ == ctStop {
			return fields, nil
		}
		var v thriftValue
		if typ == ctTrue || typ == ctFalse {
			v = thriftValue{typ: typ}
		} else if v, err = d.readValue(typ, depth); err != nil {
			return nil, err
		}
		fields = append(fields, thriftField{id: id, v: v})
	}
}

// readValue decodes one value of type typ; a boolean here is a container
// element, one byte.
func (d *compactReader) readValue(typ byte, depth int) (thriftValue, error) {
	v := thriftValue{typ: typ}
	var err error
	switch typ {
	case ctTrue, ctFalse, ctByte:
		var c byte
		c, err = d.byte()
		v.i = int64(c)
	case ctI16, ctI32, ctI64:
		v.i, err = d.zigzag()
	case ctDouble:
		v.raw, err = d.take(8)
	case ctBinary:
		var n uint64
		if n, err = d.uvarint(); err == nil {
			v.raw, err = d.take(n)
		}
	case ctList, ctSet:
		var c byte
		if c, err = d.byte(); err != nil {
			return v, err
		}
		n := uint64(c >> 4)
		v.elem = c & 0x0f
		if n == 15 {
			if n, err = d.uvarint(); err != nil {
				return v, err
			}
		}
		if n > uint64(len(d.b)-d.pos) {
			return v, errShortHeader
		}
		for k := uint64(0); k < n && err == nil; k++ {
			var e thriftValue
			e, err = d.readValue(v.elem, depth+1)
			v.items = append(v.items, e)
		}
	case ctMap:
		var n uint64
		if n, err = d.uvarint(); err != nil || n == 0 {
			return v, err
		}
		var kv byte
		if kv, err = d.byte(); err != nil {
			return v, err
		}
		v.elem, v.val = kv>>4, kv&0x0f
		if n > uint64(len(d.b)-d.pos) {
			return v, errShortHeader
		}
		for k := uint64(0); k < n && err == nil; k++ {
			var key, val thriftValue
			if key, err = d.readValue(v.elem, depth+1); err == nil {
				val, err = d.readValue(v.val, depth+1)
			}
			v.items = append(v.items, key, val)
		}
	case ctStruct:
		v.fields, err = d.readStruct(depth + 1)
	default:
		err = fmt.Errorf("unknown thrift compact type %d", typ)
	}
	return v, err
}

// take returns the next n bytes.
func (d *compactReader) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)-d.pos) {
		return nil, errShortHeader
	}
	out := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return out, nil
}

// encodeThriftStruct appends the compact encoding of a struct to b.
func encodeThriftStruct(b []byte, fields []thriftField) []byte {
	var last int16
	for _, f := range fields {
		if d := f.id - last; d > 0 && d <= 15 {
			b = append(b, byte(d)<<4|f.v.typ)
		} else {
			b = append(b, f.v.typ)
			b = appendZigzag(b, int64(f.id))
		}
		last = f.id
		if f.v.typ != ctTrue && f.v.typ != ctFalse {
			b = encodeThriftValue(b, f.v)
		}
	}
	return append(b, ctStop)
}

func encodeThriftValue(b []byte, v thriftValue) []byte {
	switch v.typ {
	case ctTrue, ctFalse, ctByte:
		return append(b, byte(v.i))
	case ctI16, ctI32, ctI64:
		return appendZigzag(b, v.i)
	case ctDouble:
		return append(b, v.raw...)
	case ctBinary:
		return append(binary.AppendUvarint(b, uint64(len(v.raw))), v.raw...)
	case ctList, ctSet:
		if n := len(v.items); n < 15 {
			b = append(b, byte(n)<<4|v.elem)
		} else {
			b = binary.AppendUvarint(append(b, 0xf0|v.elem), uint64(n))
		}
		for _, e := range v.items {
			b = encodeThriftValue(b, e)
		}
		return b
	case ctMap:
		b = binary.AppendUvarint(b, uint64(len(v.items)/2))
		if len(v.items) > 0 {
			b = append(b, v.elem<<4|v.val)
		}
		for _, e := range v.items {
			b = encodeThriftValue(b, e)
		}
		return b
	case ctStruct:
		return encodeThriftStruct(b, v.fields)
	}
	return b
}

func appendZigzag(b []byte, v int64) []byte {
	return binary.AppendUvarint(b, uint64((v<<1)^(v>>63)))
}

// findField returns the value of field id.
func findField(fields []thriftField, id int16) (thriftValue, bool) {
	for _, f := range fields {
		if f.id == id {
			return f.v, true
		}
	}
	return thriftValue{}, false
}

// fieldRef returns a pointer to the value of field id (a zero value when
// absent, not added).
func fieldRef(fields []thriftField, id int16) *thriftValue {
	for i := range fields {
		if fields[i].id == id {
			return &fields[i].v
		}
	}
	return &thriftValue{}
}

// fieldInt returns an integer field's value.
func fieldInt(fields []thriftField, id int16) (int64, bool) {
	v, ok := findField(fields, id)
	if !ok || v.typ < ctByte || v.typ > ctI64 {
		return 0, false
	}
	return v.i, true
}

// fieldList returns the struct elements of list field id.
func fieldList(fields []thriftField, id int16) []thriftValue {
	v, ok := findField(fields, id)
	if !ok || v.typ != ctList || v.elem != ctStruct {
		return nil
	}
	return v.items
}

// addInt adds d to integer field id, when present.
func addInt(fields []thriftField, id int16, d int64) {
	mapInt(fields, id, func(v int64) int64 { return v + d })
}

// mapInt replaces integer field id, when present, by f of its value.
func mapInt(fields []thriftField, id int16, f func(int64) int64) {
	for i := range fields {
		if fields[i].id == id && fields[i].v.typ >= ctI16 && fields[i].v.typ <= ctI64 {
			fields[i].v.i = f(fields[i].v.i)
		}
	}
}

// setField replaces field f.id or inserts it in id order.
func setField(fields []thriftField, f thriftField) []thriftField {
	for i := range fields {
		switch {
		case fields[i].id == f.id:
			fields[i] = f
			return fields
		case fields[i].id > f.id:
			return slices.Insert(fields, i, f)
		}
	}
	return append(fields, f)
}

// copyRange copies the bytes [from, to) of in to w.
func copyRange(w io.Writer, in io.ReaderAt, from, to int64) error {
	if to <= from {
		return nil
	}
	_, err := io.Copy(w, io.NewSectionReader(in, from, to-from))
	return err
}

// errWriter writes to w until the first error, which it keeps.
type errWriter struct {
	w   io.Writer
	err error
}

func (c *errWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}
