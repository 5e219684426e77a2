package parquet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// pageCase is one random Parquet column file of the page decoder's
// property test: its column and the writer's options.
type pageCase struct {
	typ      plan.Type
	nullable bool
	rows     int
	nullRate float64 // of a nullable column's rows
	distinct int     // values drawn from a pool this large (0: any value, -1: every row's its own)
	dict     bool
	codec    compress.Compression
	pageSize int64
	batch    int64
	dictMax  int64 // dictionary page size limit (small: falls back to PLAIN mid-chunk)
	v2       bool
	groupMax int64
	encoding parquet.Encoding // with dict off: PLAIN, or another encoding the decoder declines
	oneByte  bool             // strings of one byte each (a dictionary of flags)
	seed     int64
}

func (c pageCase) String() string {
	return fmt.Sprintf("%s nullable=%v rows=%d nullRate=%.2f distinct=%d dict=%v codec=%s page=%d batch=%d dictMax=%d v2=%v group=%d enc=%s oneByte=%v seed=%d",
		c.typ, c.nullable, c.rows, c.nullRate, c.distinct, c.dict, c.codec, c.pageSize, c.batch, c.dictMax, c.v2, c.groupMax, c.encoding, c.oneByte, c.seed)
}

// declined reports whether the decoder is expected to give the case's
// chunks up (an encoding it does not decode).
func (c pageCase) declined() bool {
	return !c.dict && c.encoding != parquet.Encodings.Plain
}

// pageTypes are the column types the decoder handles (booleans it
// declines, which TestPageDecoderDeclinesBooleans checks).
var pageTypes = []plan.Type{plan.Int32, plan.Int64, plan.Float64, plan.Float32, plan.String, plan.Date, plan.Int8,
	plan.Int16, plan.Uint32, plan.Uint64, plan.Datetime}

// randomPageCase draws a case from seed.
func randomPageCase(seed int64) pageCase {
	r := rand.New(rand.NewSource(seed))
	c := pageCase{seed: seed, typ: pageTypes[r.Intn(len(pageTypes))], nullable: r.Intn(2) == 0,
		rows: []int{0, 1, 7, 100, 1000, 3000}[r.Intn(6)], dict: r.Intn(3) > 0, v2: r.Intn(2) == 0,
		codec:    []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd, compress.Codecs.Gzip}[r.Intn(4)],
		pageSize: []int64{64, 256, 1024, 8192, 1 << 20}[r.Intn(5)], batch: []int64{1, 7, 64, 1024}[r.Intn(4)],
		dictMax: []int64{64, 512, 1 << 20}[r.Intn(3)], groupMax: []int64{5, 300, 1 << 20}[r.Intn(3)],
		distinct: []int{0, 1, 3, 50, 500}[r.Intn(5)], encoding: parquet.Encodings.Plain}
	if r.Intn(25) == 0 {
		// Dictionaries of more than 65,536 values: indices over 16 bits.
		c.rows, c.distinct, c.dictMax, c.groupMax = 70000, -1, 1<<20, 1<<20
	}
	if c.nullable {
		c.nullRate = []float64{0, 0.1, 0.5, 0.95, 1}[r.Intn(5)]
	}
	if !c.dict && r.Intn(4) == 0 {
		switch c.typ {
		case plan.String:
			c.encoding = []parquet.Encoding{parquet.Encodings.DeltaByteArray, parquet.Encodings.DeltaLengthByteArray}[r.Intn(2)]
		case plan.Float32, plan.Float64:
			c.encoding = parquet.Encodings.ByteStreamSplit
		default:
			c.encoding = parquet.Encodings.DeltaBinaryPacked
		}
	}
	return c
}

// randomArray draws the case's column values: NaNs with several payloads,
// signed zeros, infinities, extremes, empty and long strings among them.
func randomArray(c pageCase, mem memory.Allocator) (arrow.Array, error) {
	r := rand.New(rand.NewSource(c.seed ^ 0x5eed))
	dt, err := kernel.ArrowType(c.typ)
	if err != nil {
		return nil, err
	}
	bits := func() uint64 {
		switch r.Intn(8) {
		case 0:
			return 0
		case 1:
			return math.MaxUint64
		case 2:
			return uint64(r.Intn(10))
		}
		return r.Uint64()
	}
	float := func() float64 {
		specials := []float64{math.NaN(), math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff0000000000123),
			math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}
		if r.Intn(4) == 0 {
			return specials[r.Intn(len(specials))]
		}
		return r.NormFloat64() * 1e3
	}
	str := func() string {
		n := []int{0, 1, 3, 10, 40, 300}[r.Intn(6)]
		if c.oneByte {
			n = 1
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Intn(256))
		}
		return string(b)
	}
	var pool []int
	next := func(i int) int { // which of the pool's draws row i uses (-1: a fresh one)
		if c.distinct == 0 {
			return -1
		}
		return pool[r.Intn(len(pool))]
	}
	for i := range c.distinct {
		pool = append(pool, i)
	}
	draws := map[int]any{}
	value := func(i int, fresh func() any) any {
		if c.distinct < 0 {
			return unique(c.typ, i)
		}
		k := next(i)
		if k < 0 {
			return fresh()
		}
		if v, ok := draws[k]; ok {
			return v
		}
		v := fresh()
		draws[k] = v
		return v
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := range c.rows {
		if c.nullable && r.Float64() < c.nullRate {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Int32Builder:
			bb.Append(value(i, func() any { return int32(bits()) }).(int32))
		case *array.Int64Builder:
			bb.Append(value(i, func() any { return int64(bits()) }).(int64))
		case *array.Int8Builder:
			bb.Append(value(i, func() any { return int8(bits()) }).(int8))
		case *array.Int16Builder:
			bb.Append(value(i, func() any { return int16(bits()) }).(int16))
		case *array.Uint32Builder:
			bb.Append(value(i, func() any { return uint32(bits()) }).(uint32))
		case *array.Uint64Builder:
			bb.Append(value(i, func() any { return bits() }).(uint64))
		case *array.Float64Builder:
			bb.Append(value(i, func() any { return float() }).(float64))
		case *array.Float32Builder:
			bb.Append(value(i, func() any { return float32(float()) }).(float32))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(value(i, func() any { return int32(bits() % 100000) }).(int32)))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(value(i, func() any { return int64(bits() >> 8) }).(int64)))
		case *array.StringBuilder:
			bb.Append(value(i, func() any { return str() }).(string))
		default:
			return nil, fmt.Errorf("no builder case for %T", b)
		}
	}
	return b.NewArray(), nil
}

// unique is row i's value of a column of type t whose rows all differ, as
// randomArray's builders take it.
func unique(t plan.Type, i int) any {
	switch t {
	case plan.Int32:
		return int32(i * 7919)
	case plan.Int64:
		return int64(i) * 7919
	case plan.Int8:
		return int8(i)
	case plan.Int16:
		return int16(i)
	case plan.Uint32:
		return uint32(i * 7919)
	case plan.Uint64:
		return uint64(i) * 7919
	case plan.Float64:
		return float64(i) + 0.5
	case plan.Float32:
		return float32(i) + 0.5
	case plan.Date:
		return int32(i)
	case plan.Datetime:
		return int64(i) * 1000
	}
	return fmt.Sprintf("s%d", i)
}

// writePageCase writes the case's column to a Parquet file in memory.
func writePageCase(c pageCase) ([]byte, plan.Schema, error) {
	mem := memory.DefaultAllocator
	a, err := randomArray(c, mem)
	if err != nil {
		return nil, plan.Schema{}, err
	}
	defer a.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: a.DataType(), Nullable: c.nullable}}, nil)
	rec := array.NewRecordBatch(sch, []arrow.Array{a}, int64(c.rows))
	defer rec.Release()
	opts := []parquet.WriterProperty{parquet.WithDictionaryDefault(c.dict), parquet.WithCompression(c.codec),
		parquet.WithDataPageSize(c.pageSize), parquet.WithBatchSize(c.batch), parquet.WithDictionaryPageSizeLimit(c.dictMax),
		parquet.WithMaxRowGroupLength(c.groupMax), parquet.WithStats(false)}
	if c.v2 {
		opts = append(opts, parquet.WithDataPageVersion(parquet.DataPageV2))
	}
	if !c.dict {
		opts = append(opts, parquet.WithEncoding(c.encoding))
	}
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &out, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, plan.Schema{}, err
	}
	if err := w.Write(rec); err != nil {
		return nil, plan.Schema{}, err
	}
	if err := w.Close(); err != nil {
		return nil, plan.Schema{}, err
	}
	s, err := plan.NewSchema(plan.Field{Name: "x", Type: c.typ, Nullable: c.nullable})
	return out.Bytes(), s, err
}

// sameUnit reports how two decoded units differ ("" if they do not).
func sameUnit(a, b pqUnit) string {
	switch {
	case !bytes.Equal(a.valid, b.valid):
		return fmt.Sprintf("validity %x, want %x", a.valid, b.valid)
	case a.nulls != b.nulls:
		return fmt.Sprintf("%d nulls, want %d", a.nulls, b.nulls)
	case !bytes.Equal(a.bits, b.bits):
		return "boolean bits differ"
	case !slices.Equal(a.offs, b.offs):
		return fmt.Sprintf("offsets %v, want %v", a.offs, b.offs)
	case !bytes.Equal(a.data, b.data):
		return fmt.Sprintf("string bytes %q, want %q", a.data, b.data)
	case (a.err == nil) != (b.err == nil):
		return fmt.Sprintf("error %v, want %v", a.err, b.err)
	}
	return ""
}

// checkPageCase decodes every row group of the case's file with the page
// decoder and with arrow-go's column chunk reader, whole, as a prefix, and
// (strings, required fixed-width columns) at random rows, and reports the first difference, or that the
// decoder gave up a chunk it handles.
func checkPageCase(c pageCase) string {
	data, s, err := writePageCase(c)
	if err != nil {
		return "writing: " + err.Error()
	}
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return "opening: " + err.Error()
	}
	defer rdr.Close()
	cols, err := pqColumns(rdr, s, []int{0})
	if err != nil {
		return err.Error()
	}
	if c.seed%2 == 0 {
		cols[0].src = bytes.NewReader(data) // pooled page readers streaming from the file
	}
	col := cols[0]
	ctx := context.Background()
	mem := memory.DefaultAllocator
	r := rand.New(rand.NewSource(c.seed ^ 0x10))
	w := fixedWidth(col.typ)
	for g := range rdr.NumRowGroups() {
		rows := int(rdr.MetaData().RowGroup(g).NumRows())
		for _, n := range []int{rows, r.Intn(rows + 1)} {
			want := fixedWidthBuffers(mem, cols, n)[0]
			wu := decodeUnitReader(ctx, rdr, g, col, want, 0, n)
			if wu.err != nil {
				return fmt.Sprintf("row group %d: the reader failed: %v", g, wu.err)
			}
			got := fixedWidthBuffers(mem, cols, n)[0]
			var region []byte
			if w > 0 {
				region = got.Bytes()[:n*w]
				for i := range region {
					region[i] = 0xa5 // every byte must be written
				}
			}
			gu, ok := decodeFast(ctx, rdr, g, col, region, n)
			if !ok {
				if c.declined() {
					continue
				}
				return fmt.Sprintf("row group %d, %d rows: the page decoder gave the chunk up", g, n)
			}
			if c.declined() && n > 0 {
				return fmt.Sprintf("row group %d: the page decoder decoded a %s chunk", g, c.encoding)
			}
			if d := sameUnit(gu, wu); d != "" {
				return fmt.Sprintf("row group %d, %d rows: %s", g, n, d)
			}
			if w > 0 && !bytes.Equal(got.Bytes()[:n*w], want.Bytes()[:n*w]) {
				return fmt.Sprintf("row group %d, %d rows: values %x, want %x", g, n, got.Bytes()[:n*w], want.Bytes()[:n*w])
			}
			releaseBuffers([]*memory.Buffer{got, want})
		}
		if w > 0 && col.maxDef == 0 {
			// The values at random rows (required columns).
			var keep []int32
			density := []int{3, 40}[r.Intn(2)] // dense, and sparse: indices read from the runs
			for i := range rows {
				if r.Intn(density) == 0 {
					keep = append(keep, int32(i))
				}
			}
			full := fixedWidthBuffers(mem, cols, rows)[0]
			if wu := decodeUnitReader(ctx, rdr, g, col, full, 0, rows); wu.err != nil {
				return fmt.Sprintf("row group %d: the reader failed: %v", g, wu.err)
			}
			got := make([]byte, len(keep)*w)
			for i := range got {
				got[i] = 0xa5 // every byte must be written
			}
			ok := decodeFixedAt(ctx, rdr, g, col, got, keep)
			if ok == c.declined() && len(keep) > 0 {
				return fmt.Sprintf("row group %d, rows %v: the page decoder decoded %v", g, keep, ok)
			}
			for i, k := range keep {
				if v, want := got[i*w:(i+1)*w], full.Bytes()[int(k)*w:(int(k)+1)*w]; ok && !bytes.Equal(v, want) {
					return fmt.Sprintf("row group %d, row %d of %v: value %x, want %x", g, k, keep, v, want)
				}
			}
			releaseBuffers([]*memory.Buffer{full})
		}
		if col.typ == plan.String {
			// Dense, sparse (whose pages' indices are read one by one)
			// and very sparse rows, sometimes only among the first rows
			// (later pages hold none).
			every, upto := []int{3, 20, 300}[r.Intn(3)], rows
			if r.Intn(4) == 0 {
				upto = min(rows, 300)
			}
			var keep []int32
			for i := range upto {
				if r.Intn(every) == 0 {
					keep = append(keep, int32(i))
				}
			}
			wu := decodeStringsAtReader(ctx, rdr, g, col, rows, keep)
			gu, ok := decodeStringsFast(ctx, rdr, g, col, keep)
			if ok == c.declined() && len(keep) > 0 {
				return fmt.Sprintf("row group %d, rows %v: the page decoder decoded %v", g, keep, ok)
			}
			if d := sameUnit(gu, wu); ok && d != "" {
				return fmt.Sprintf("row group %d, rows %v: %s", g, keep, d)
			}
		}
	}
	return ""
}

// TestPageDecoderMatchesReader checks that the page decoder's output is bit
// for bit that of arrow-go's column chunk reader on random files: every
// handled column type, required and optional (no, some, only nulls),
// dictionary and PLAIN pages (and a dictionary that overflows into PLAIN
// pages mid-chunk), data pages v1 and v2, no compression, snappy, zstd and
// gzip, pages of a few values to one page a chunk, several row groups,
// NaN payloads, signed zeros, empty and one-byte strings; and that it declines the
// encodings it does not decode (DELTA_*, BYTE_STREAM_SPLIT), which the
// reader then decodes.
func TestPageDecoderMatchesReader(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	props.Property("page decoder = column chunk reader", prop.ForAll(func(seed int64) string {
		c := randomPageCase(seed)
		if seed%7 == 0 {
			// Strings of one byte each, as flag columns hold them.
			c.typ, c.encoding, c.oneByte = plan.String, parquet.Encodings.Plain, true
		}
		if d := checkPageCase(c); d != "" {
			return c.String() + ": " + d
		}
		return ""
	}, gen.Int64()))
	props.TestingRun(t)
}

// TestPageDecoderDeclinesBooleans checks that booleans are left to the
// column chunk reader.
func TestPageDecoderDeclinesBooleans(t *testing.T) {
	tbl := mustTable(t, "t", []plan.Field{{Name: "b", Type: plan.Bool, Nullable: true}},
		[]plan.Value{plan.BoolValue(true), plan.NullValue(plan.Bool), plan.BoolValue(false)})
	path := t.TempDir() + "/b.parquet"
	if err := WriteTable(path, tbl, 2); err != nil {
		t.Fatal(err)
	}
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	cols, err := pqColumns(rdr, tbl.Schema(), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeFast(context.Background(), rdr, 0, cols[0], nil, 2); ok {
		t.Fatal("the page decoder decoded a boolean column")
	}
}

// FuzzPageDecoder feeds Parquet files with corrupted pages to the page
// decoder: it must give a chunk up or decode it, never panic or read out of
// bounds. The files are valid ones of every page kind the decoder handles
// (file picks one) with patch written over their pages at offset (the
// footer is left intact: reading it is arrow-go's).
func FuzzPageDecoder(f *testing.F) {
	var files [][]byte
	var schemas []plan.Schema
	for _, c := range []pageCase{
		{typ: plan.Float64, rows: 50, distinct: 5, dict: true, codec: compress.Codecs.Uncompressed, pageSize: 64, batch: 7, dictMax: 1 << 20, groupMax: 30},
		{typ: plan.Int32, nullable: true, nullRate: 0.3, rows: 50, distinct: 5, dict: true, codec: compress.Codecs.Uncompressed, pageSize: 64, batch: 7, dictMax: 1 << 20, groupMax: 30, v2: true},
		{typ: plan.String, nullable: true, nullRate: 0.3, rows: 50, distinct: 5, dict: true, codec: compress.Codecs.Uncompressed, pageSize: 64, batch: 7, dictMax: 1 << 20, groupMax: 30},
		{typ: plan.String, rows: 50, codec: compress.Codecs.Uncompressed, pageSize: 64, batch: 7, dictMax: 1 << 20, groupMax: 30, encoding: parquet.Encodings.Plain},
		{typ: plan.Int64, nullable: true, nullRate: 0.3, rows: 50, codec: compress.Codecs.Snappy, pageSize: 64, batch: 7, dictMax: 1 << 20, groupMax: 30, encoding: parquet.Encodings.Plain, v2: true},
	} {
		data, s, err := writePageCase(c)
		if err != nil {
			f.Fatal(err)
		}
		files, schemas = append(files, data), append(schemas, s)
	}
	for i := range files {
		f.Add(uint8(i), uint16(0), []byte{})
		f.Add(uint8(i), uint16(20), []byte{0xff, 0xff})
		f.Add(uint8(i), uint16(40), []byte{0x03, 0x01, 0x80})
	}
	f.Fuzz(func(t *testing.T, which uint8, offset uint16, patch []byte) {
		data := slices.Clone(files[int(which)%len(files)])
		s := schemas[int(which)%len(files)]
		footer := len(data) - 8 - int(binary.LittleEndian.Uint32(data[len(data)-8:]))
		if at := 4 + int(offset); at < footer {
			copy(data[at:footer], patch)
		}
		rdr, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer rdr.Close()
		cols, err := pqColumns(rdr, s, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		if offset%2 == 0 {
			cols[0].src = bytes.NewReader(data)
		}
		ctx := context.Background()
		for g := range rdr.NumRowGroups() {
			rows := int(rdr.MetaData().RowGroup(g).NumRows())
			// A panic of arrow-go's page reader is no failure of the
			// decoder (decodeUnit turns it into an error); any other is.
			defer func() {
				if r := recover(); r != nil {
					if !panickedInArrow(string(debug.Stack())) {
						t.Fatalf("panic: %v\n%s", r, debug.Stack())
					}
				}
			}()
			if w := fixedWidth(cols[0].typ); w > 0 {
				decodeFast(ctx, rdr, g, cols[0], make([]byte, rows*w), rows)
				if cols[0].maxDef == 0 {
					// The dictionary test (all rows, then every third) and
					// the decode at sparse rows.
					var keep []int32
					for i := int32(0); i < int32(rows); i += 3 {
						keep = append(keep, i)
					}
					filt := &rowFilter{cols: []int{0}, conj: [][]plan.Expr{{plan.Col("x").Ge(plan.Lit(0.0)).Expr()}}, keys: []*keySet{nil},
						schema: []*arrow.Schema{arrow.NewSchema([]arrow.Field{{Name: "x", Type: cols[0].dt}}, nil)}}
					for _, k := range [][]int32{nil, keep} {
						fs := &groupScratch{rows: rows, fdict: make([]*fixedDictRows, 1)}
						fs.fixedDictTest(ctx, kernel.Evaluator{Mem: memory.DefaultAllocator}, memory.DefaultAllocator, rdr, g, cols[0], 0, filt, k, true)
						fs.fdict[0].release()
					}
					decodeFixedAt(ctx, rdr, g, cols[0], make([]byte, len(keep)*w), keep)
				}
				continue
			}
			decodeFast(ctx, rdr, g, cols[0], nil, rows)
			var keep []int32
			for i := int32(0); i < int32(rows); i += 2 {
				keep = append(keep, i)
			}
			decodeStringsFast(ctx, rdr, g, cols[0], keep)
		}
	})
}

// panickedInArrow reports whether the panic whose stack is stack was raised
// in arrow-go (its first frame past the panic call is arrow-go's).
func panickedInArrow(stack string) bool {
	_, after, ok := strings.Cut(stack, "panic(")
	if !ok {
		return false
	}
	lines := strings.Split(after, "\n")
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "\t") {
			continue
		}
		if strings.HasPrefix(l, "runtime.") {
			continue // the runtime's own frames (e.g. a bounds check)
		}
		return strings.HasPrefix(l, "github.com/apache/arrow-go/")
	}
	return false
}
