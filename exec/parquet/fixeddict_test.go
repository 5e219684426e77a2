package parquet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// randomFixedTests draws one or two conjuncts on fixed-width column x of
// type typ, their literals taken from the column's values a (so that a
// comparison flips at a dictionary value), null, or, for floats, NaN, -0
// and +0; sometimes an or of two comparisons.
func randomFixedTests(r *rand.Rand, typ plan.Type, a arrow.Array) []plan.Expr {
	lit := func() plan.Expr {
		if r.Intn(6) == 0 || a.Len() == 0 {
			if typ == plan.Float64 || typ == plan.Float32 {
				specials := []float64{math.NaN(), math.Copysign(0, -1), 0}
				f := specials[r.Intn(len(specials))]
				if typ == plan.Float32 {
					return &plan.Literal{Value: plan.Float32Value(float32(f))}
				}
				return &plan.Literal{Value: plan.Float64Value(f)}
			}
			return &plan.Literal{Value: plan.NullValue(typ)}
		}
		v, err := kernel.ValueAt(a, r.Intn(a.Len()))
		if err != nil {
			return &plan.Literal{Value: plan.NullValue(typ)}
		}
		return &plan.Literal{Value: v}
	}
	x := &plan.Column{Name: "x"}
	var out []plan.Expr
	for range 1 + r.Intn(2) {
		fn := []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe}[r.Intn(6)]
		switch r.Intn(9) {
		case 0:
			out = append(out, &plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{x, lit(), lit(), lit()}})
		case 8:
			g := []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe}[r.Intn(6)]
			out = append(out, &plan.Call{Fn: plan.FuncOr, Args: []plan.Expr{
				&plan.Call{Fn: fn, Args: []plan.Expr{x, lit()}}, &plan.Call{Fn: g, Args: []plan.Expr{x, lit()}}}})
		case 1:
			out = append(out, &plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{x}})
		default:
			out = append(out, &plan.Call{Fn: fn, Args: []plan.Expr{x, lit()}})
		}
	}
	return out
}

// checkFixedDictTest tests the fixed-width column of a random file, every
// row group, with random conjuncts (and, for integer and date columns,
// sometimes a key filter, or a key filter alone) over all rows and over
// random rows, last and not, both from the dictionary (fixedDictTest) and
// over the decoded values (test), and reports the first difference in the
// rows passed or in the values fixedDictTest keeps for the second phase,
// or that it tested a chunk it must give up; and how many tests it took
// on.
func checkFixedDictTest(c pageCase) (string, int) {
	data, s, err := writePageCase(c)
	if err != nil {
		return "writing: " + err.Error(), 0
	}
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return "opening: " + err.Error(), 0
	}
	defer rdr.Close()
	cols, err := pqColumns(rdr, s, []int{0})
	if err != nil {
		return err.Error(), 0
	}
	if c.seed%2 == 0 {
		cols[0].src = bytes.NewReader(data)
	}
	col := cols[0]
	w := fixedWidth(col.typ)
	ctx := context.Background()
	mem := memory.DefaultAllocator
	ev := kernel.Evaluator{Mem: mem}
	r := rand.New(rand.NewSource(c.seed ^ 0xf1d))
	handled := 0
	for g := range rdr.NumRowGroups() {
		rows := int(rdr.MetaData().RowGroup(g).NumRows())
		buf := fixedWidthBuffers(mem, cols, rows)[0]
		full := decodeUnitReader(ctx, rdr, g, col, buf, 0, rows)
		if full.err != nil {
			return fmt.Sprintf("row group %d: the reader failed: %v", g, full.err), handled
		}
		a, err := assembleColumn(mem, ops.Parallel{}, col, buf, []*pqUnit{&full}, []int{0, rows})
		if err != nil {
			return err.Error(), handled
		}
		for try := range 6 {
			conj := randomFixedTests(r, c.typ, a)
			var ks *keySet
			if (c.typ == plan.Int32 || c.typ == plan.Int64 || c.typ == plan.Date) && try >= 3 {
				var keys []int64
				for i := range a.Len() {
					if r.Intn(2) == 0 && a.IsValid(i) {
						v, _ := kernel.ValueAt(a, i)
						keys = append(keys, v.Int())
					}
				}
				keys = append(keys, int64(r.Intn(1000)))
				slices.Sort(keys)
				ks = newKeySet(slices.Compact(keys))
				if try == 5 {
					conj = nil
				}
			}
			filt := &rowFilter{cols: []int{0}, conj: [][]plan.Expr{conj}, keys: []*keySet{ks},
				schema: []*arrow.Schema{arrow.NewSchema([]arrow.Field{{Name: "x", Type: col.dt, Nullable: col.maxDef > 0}}, nil)}}
			var keep []int32
			if try%3 != 0 {
				keep = []int32{}
				density := []int{2, 30}[r.Intn(2)]
				for i := range rows {
					if r.Intn(density) == 0 {
						keep = append(keep, int32(i))
					}
				}
				if len(keep) == 0 {
					keep = nil
				}
			}
			last := r.Intn(2) == 0
			// The rows that pass: the conjuncts' (test, without the key
			// filter), then those whose value is among the keys.
			sc := &groupScratch{rows: rows, units: []pqUnit{full}, bufs: []*memory.Buffer{buf}, base: [][]int32{nil}}
			conjOnly := &rowFilter{cols: filt.cols, conj: filt.conj, keys: []*keySet{nil}, schema: filt.schema}
			var want []int32
			if len(conj) > 0 {
				var ok bool
				if want, ok = sc.test(ctx, ev, mem, col, 0, conjOnly, keep, false); !ok {
					return fmt.Sprintf("row group %d: the test over the values failed", g), handled
				}
			}
			if want == nil {
				want = keep
				if want == nil {
					want = make([]int32, rows)
					for i := range want {
						want[i] = int32(i)
					}
				}
			}
			if ks != nil {
				var in []int32
				for _, row := range want {
					var v int64
					if w == 4 {
						v = int64(int32(binary.LittleEndian.Uint32(buf.Bytes()[int(row)*4:])))
					} else {
						v = int64(binary.LittleEndian.Uint64(buf.Bytes()[int(row)*8:]))
					}
					if ks.has(v) {
						in = append(in, row)
					}
				}
				want = in
			}
			fs := &groupScratch{rows: rows, fdict: make([]*fixedDictRows, 1)}
			got, ok := fs.fixedDictTest(ctx, ev, mem, rdr, g, col, 0, filt, keep, last)
			if !ok {
				continue
			}
			handled++
			if (!c.dict || c.nullable) && rows > 0 && (keep == nil || len(keep) > 0) {
				return fmt.Sprintf("row group %d: fixedDictTest tested a chunk it must give up", g), handled
			}
			// nil: every row passes, or, for the last test over all rows,
			// enough of them that the group is kept whole.
			whole := keep == nil && (len(want) == rows || (last && len(want)*8 >= rows*keepWhole))
			if (got == nil) != whole || (got != nil && !slices.Equal(got, want)) {
				return fmt.Sprintf("row group %d, conjuncts %v, keys %v, keep %v, last %v: passed %v, want %v (whole %v)", g, conj, ks != nil, keep, last, got, want, whole), handled
			}
			f := fs.fdict[0]
			if f == nil {
				if keep == nil || len(keep) > 0 {
					return fmt.Sprintf("row group %d: no indices kept", g), handled
				}
				continue
			}
			// Only the passing rows' values are kept (the group is then
			// compacted) after other tests, or where too few pass for the
			// group to be kept whole.
			if partial := keep != nil || len(want)*8 < rows*keepWhole; fs.partial != partial || (f.rows == nil) == partial {
				return fmt.Sprintf("row group %d: partial %v, rows kept %v, with keep %v and %d of %d passing", g, fs.partial, f.rows != nil, keep != nil, len(want), rows), handled
			}
			// The values the second phase gathers: of the passing rows,
			// or of every row when the group is kept whole.
			at := got
			if got == nil {
				at = make([]int32, rows)
				for i := range at {
					at[i] = int32(i)
				}
			}
			if got != nil || f.rows != nil {
				f.narrow(at)
			}
			dst := make([]byte, len(at)*w)
			if !f.gather(dst) {
				return fmt.Sprintf("row group %d: gather failed for %d rows", g, len(at)), handled
			}
			f.release()
			for k, row := range at {
				if v, want := dst[k*w:(k+1)*w], buf.Bytes()[int(row)*w:(int(row)+1)*w]; !bytes.Equal(v, want) {
					return fmt.Sprintf("row group %d, row %d: value %x, want %x", g, row, v, want), handled
				}
			}
		}
		a.Release()
		buf.Release()
	}
	return "", handled
}

// TestFixedDictTestMatchesTest checks that testing a fixed-width column
// from its dictionary passes exactly the rows that testing its decoded
// values passes, and keeps exactly their values for the second phase, on
// random files: every fixed-width type, comparisons and is_in at the
// dictionary's own values, null literals, NaN (several payloads in the
// data), -0 and +0, key filters with and without conjuncts, data pages v1
// and v2, codecs, many pages, several row groups, dictionaries past 16-bit
// indices, all rows or some (dense and sparse: a column tested after
// others); and that it gives up where the chunk is not dictionary encoded
// throughout or the column is optional. At least 100 of the tests must be
// taken from the dictionary, so that the property cannot hold vacuously.
func TestFixedDictTestMatchesTest(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	handled := 0
	props.Property("fixedDictTest = test", prop.ForAll(func(seed int64) string {
		c := randomPageCase(seed)
		if fixedWidth(c.typ) == 0 {
			c.typ = []plan.Type{plan.Int32, plan.Int64, plan.Float64, plan.Date}[seed&3]
			c.encoding = parquet.Encodings.Plain
		}
		if c.nullable && seed%3 != 0 {
			c.nullable, c.nullRate = false, 0 // mostly required columns: the ones it takes
		}
		if c.rows == 70000 {
			c.rows = 3000
		}
		d, n := checkFixedDictTest(c)
		handled += n
		if d != "" {
			return c.String() + ": " + d
		}
		return ""
	}, gen.Int64()))
	props.TestingRun(t)
	t.Logf("fixedDictTest took %d tests", handled)
	if handled < 100 {
		t.Errorf("fixedDictTest handled %d tests, want 100 or more", handled)
	}
}

// FuzzIndicesAt checks indicesAt against the bulk unpacking
// (pageScratch.unpackRLE) on arbitrary page bodies: wherever unpacking the
// rows up to the last asked for succeeds, indicesAt succeeds with their
// values, and the other way round; it never panics.
func FuzzIndicesAt(f *testing.F) {
	f.Add([]byte{3, 0x03, 0x88, 0xc6, 0xfa}, uint16(0), uint8(1))
	f.Add([]byte{17, 0x10, 0x05, 0x00, 0x01, 0x07, 0xff, 0xff, 0xff, 0x01, 0x02}, uint16(3), uint8(2))
	f.Add([]byte{0, 0x21, 0x10}, uint16(5), uint8(7))
	f.Add(binary.AppendUvarint([]byte{32}, 2*9), uint16(1), uint8(3))
	f.Fuzz(func(t *testing.T, values []byte, seed uint16, step uint8) {
		r := rand.New(rand.NewSource(int64(seed)))
		n := 1 + r.Intn(600)
		var at []int32
		for i := 0; i < n; i += 1 + int(step)%9 + r.Intn(3) {
			at = append(at, int32(i))
		}
		if len(at) == 0 {
			return
		}
		base := r.Intn(100)
		for i := range at {
			at[i] += int32(base)
		}
		got := make([]uint32, len(at))
		ok := indicesAt(values, at, base, got)
		sc := &pageScratch{}
		m := int(at[len(at)-1]) - base + 1
		wantOK := sc.pageIndices(values, m)
		if ok != wantOK {
			t.Fatalf("indicesAt ok %v, unpacking ok %v (body %x, rows %v)", ok, wantOK, values, at)
		}
		if !ok {
			return
		}
		for k, row := range at {
			if got[k] != sc.idx[int(row)-base] {
				t.Fatalf("row %d: index %d, want %d (body %x)", row, got[k], sc.idx[int(row)-base], values)
			}
		}
	})
}

// FuzzGatherRLE checks gatherRLE against unpacking the indices
// (pageScratch.pageIndices) and gathering them (gather) on arbitrary page
// bodies and dictionary sizes: both succeed or fail together, and agree on
// the values; it never panics.
func FuzzGatherRLE(f *testing.F) {
	f.Add([]byte{3, 0x03, 0x88, 0xc6, 0xfa}, uint16(8), uint16(7))
	f.Add([]byte{17, 0x10, 0x05, 0x00, 0x01, 0x07, 0xff, 0xff, 0xff, 0x01, 0x02}, uint16(3), uint16(2000))
	f.Add([]byte{0, 0x21, 0x10}, uint16(5), uint16(1))
	f.Add([]byte{0, 0x21, 0x10}, uint16(5), uint16(0))
	f.Add(append([]byte{4, 0x81, 0x10}, make([]byte, 1100)...), uint16(2100), uint16(16))
	f.Fuzz(func(t *testing.T, values []byte, n, dictN uint16) {
		dict := make([]uint64, int(dictN)%3000)
		for i := range dict {
			dict[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
		}
		want := make([]uint64, int(n)%5000)
		sc := &pageScratch{}
		wantOK := sc.pageIndices(values, len(want)) && (len(want) == 0 || gather(want, dict, sc.idx, values[0]))
		got := make([]uint64, len(want))
		ok := len(want) == 0 || (len(values) >= 1 && values[0] <= 32 && gatherRLE(&pageScratch{}, values[1:], int(values[0]), dict, got))
		if ok != wantOK {
			t.Fatalf("gatherRLE ok %v, unpack and gather ok %v (body %x, %d values, dictionary of %d)", ok, wantOK, values, len(want), len(dict))
		}
		if ok && !slices.Equal(got, want) {
			t.Fatalf("values %v, want %v", got, want)
		}
	})
}
