package parquet

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// groupedFile writes a 4-row-group file: id 0..3999 (int64), x float64
// (NaN in every 7th row, null in every 11th), s = "k" + id/1000.
func groupedFile(tb testing.TB, dir string) (string, *plan.Table) {
	tb.Helper()
	const n = 4000
	id, x, s := make([]plan.Value, n), make([]plan.Value, n), make([]plan.Value, n)
	for i := 0; i < n; i++ {
		id[i] = plan.Int64Value(int64(i))
		switch {
		case i%11 == 0:
			x[i] = plan.NullValue(plan.Float64)
		case i%7 == 0:
			x[i] = plan.Float64Value(math.NaN())
		default:
			x[i] = plan.Float64Value(float64(i) / 2)
		}
		s[i] = plan.StringValue("k" + string(rune('0'+i/1000)))
	}
	t := mustTable(tb, "g", []plan.Field{{Name: "id", Type: plan.Int64}, {Name: "x", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}}, id, x, s)
	rec, err := kernel.TableRecord(memory.DefaultAllocator, t)
	if err != nil {
		tb.Fatal(err)
	}
	defer rec.Release()
	path := filepath.Join(dir, "g.parquet")
	writeParquet(tb, path, rec, 1000)
	return path, t
}

func TestParquetScanProjectionAndPruning(t *testing.T) {
	path, tbl := groupedFile(t, t.TempDir())
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Schema().Equal(tbl.Schema()) {
		t.Fatalf("schema %s, want %s", src.Schema(), tbl.Schema())
	}
	gt := func(col string, v plan.Value) plan.PushedPredicate {
		return plan.PushedPredicate{Expr: &plan.Call{Fn: plan.FuncGt, Args: []plan.Expr{&plan.Column{Name: col}, &plan.Literal{Value: v}}}, Support: plan.Inexact}
	}
	call := func(fn plan.Func, col string, vs ...plan.Value) plan.PushedPredicate {
		args := []plan.Expr{&plan.Column{Name: col}}
		for _, v := range vs {
			args = append(args, &plan.Literal{Value: v})
		}
		return plan.PushedPredicate{Expr: &plan.Call{Fn: fn, Args: args}, Support: plan.Inexact}
	}
	flip := func(fn plan.Func, col string, v plan.Value) plan.PushedPredicate {
		return plan.PushedPredicate{Expr: &plan.Call{Fn: fn, Args: []plan.Expr{&plan.Literal{Value: v}, &plan.Column{Name: col}}}, Support: plan.Inexact}
	}
	// match tells the rows (by id) the pushed conjuncts keep, when the
	// scan tests them row by row (late.go); nil: every row of the groups
	// read. A group where at least 7/8 of the rows match is kept whole.
	xAbove := func(v float64) func(int64) bool {
		return func(i int64) bool { return i%11 != 0 && i%7 != 0 && float64(i)/2 > v }
	}
	cases := []struct {
		name     string
		columns  []string
		pushed   []plan.PushedPredicate
		read     int64
		firstRow int64 // id of the first row of the groups read
		match    func(id int64) bool
	}{
		{"all", nil, nil, 4, 0, nil},
		{"projected", []string{"s", "id"}, nil, 4, 0, nil},
		{"id > 2500 reads 2 groups", []string{"id"}, []plan.PushedPredicate{gt("id", plan.Int64Value(2500))}, 2, 2000,
			func(i int64) bool { return i > 2500 }},
		{"id > 2500, other columns compacted", []string{"s", "x", "id"}, []plan.PushedPredicate{gt("id", plan.Int64Value(2500))}, 2, 2000,
			func(i int64) bool { return i > 2500 }},
		{"int32 literal", []string{"id"}, []plan.PushedPredicate{gt("id", plan.Int32Value(2999))}, 1, 3000, nil},
		{"x > 1600 (NaN rows do not match)", []string{"x"}, []plan.PushedPredicate{gt("x", plan.Float64Value(1600))}, 1, 3000, xAbove(1600)},
		{"x > 1600 with id and s", []string{"id", "x", "s"}, []plan.PushedPredicate{gt("x", plan.Float64Value(1600))}, 1, 3000, xAbove(1600)},
		{"literal left: 1000 > id", []string{"id"}, []plan.PushedPredicate{flip(plan.FuncGt, "id", plan.Int64Value(1000))}, 1, 0, nil},
		{"string eq", []string{"s"}, []plan.PushedPredicate{flip(plan.FuncEq, "s", plan.StringValue("k2"))}, 1, 2000, nil},
		{"nothing matches", []string{"id"}, []plan.PushedPredicate{gt("id", plan.Int64Value(5000))}, 0, -1, nil},
		{"is_in reads the groups of its values", []string{"id"}, []plan.PushedPredicate{call(plan.FuncIsIn, "id",
			plan.Int64Value(2005), plan.NullValue(plan.Int64), plan.Int32Value(3500), plan.Int64Value(9999))}, 2, 2000,
			func(i int64) bool { return i == 2005 || i == 3500 }},
		{"is_in of strings", []string{"s"}, []plan.PushedPredicate{call(plan.FuncIsIn, "s", plan.StringValue("k3"), plan.StringValue("k"))}, 1, 3000, nil},
		{"is_in of nulls only", []string{"id"}, []plan.PushedPredicate{call(plan.FuncIsIn, "id", plan.NullValue(plan.Int64))}, 0, -1, nil},
		{"starts_with", []string{"s"}, []plan.PushedPredicate{call(plan.FuncStartsWith, "s", plan.StringValue("k1"))}, 1, 1000, nil},
		{"starts_with a shorter prefix", []string{"s"}, []plan.PushedPredicate{call(plan.FuncStartsWith, "s", plan.StringValue("k"))}, 4, 0, nil},
		{"starts_with no group", []string{"s"}, []plan.PushedPredicate{call(plan.FuncStartsWith, "s", plan.StringValue("j"))}, 0, -1, nil},
		{"starts_with \\xff", []string{"s"}, []plan.PushedPredicate{call(plan.FuncStartsWith, "s", plan.StringValue("\xff"))}, 0, -1, nil},
		{"an or of string tests reads the groups of either", []string{"s"}, []plan.PushedPredicate{{Expr: &plan.Call{Fn: plan.FuncOr, Args: []plan.Expr{
			call(plan.FuncEq, "s", plan.StringValue("k2")).Expr, call(plan.FuncEq, "s", plan.StringValue("k3")).Expr}}, Support: plan.Inexact}}, 2, 2000, nil},
		{"an or of id tests", []string{"id", "s"}, []plan.PushedPredicate{{Expr: &plan.Call{Fn: plan.FuncOr, Args: []plan.Expr{
			flip(plan.FuncGt, "id", plan.Int64Value(1500)).Expr, call(plan.FuncIsIn, "id", plan.Int64Value(99999)).Expr}}, Support: plan.Inexact}}, 2, 0,
			func(i int64) bool { return i < 1500 }},
		{"no columns", []string{}, []plan.PushedPredicate{gt("id", plan.Int64Value(1999))}, 2, -1, nil},
		{"an Exact-marked conjunct is not tested row by row", []string{"id"},
			[]plan.PushedPredicate{{Expr: gt("id", plan.Int64Value(2500)).Expr, Support: plan.Exact}}, 2, 2000, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			before := src.Stats()
			rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: c.columns, Predicates: c.pushed, Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			names, cols, rows := readAll(t, rr)
			after := src.Stats()
			if got := after.RowGroupsRead - before.RowGroupsRead; got != c.read {
				t.Errorf("read %d row groups, want %d", got, c.read)
			}
			if got := after.RowGroupsSkipped - before.RowGroupsSkipped; got != 4-c.read {
				t.Errorf("skipped %d row groups, want %d", got, 4-c.read)
			}
			// The rows expected: those of the groups read that match,
			// a group kept whole when a quarter of its rows match.
			var ids []int64
			for g := int64(0); g < c.read && c.firstRow >= 0; g++ {
				var kept []int64
				for i := c.firstRow + g*1000; i < c.firstRow+(g+1)*1000; i++ {
					if c.match == nil || c.match(i) {
						kept = append(kept, i)
					}
				}
				if len(kept)*8 >= 1000*2 {
					kept = kept[:0]
					for i := c.firstRow + g*1000; i < c.firstRow+(g+1)*1000; i++ {
						kept = append(kept, i)
					}
				}
				ids = append(ids, kept...)
			}
			want := int64(len(ids))
			if c.firstRow < 0 {
				want = c.read * 1000
			}
			if rows != want {
				t.Errorf("rows = %d, want %d", rows, want)
			}
			if got, wantDropped := after.RowsDropped-before.RowsDropped, c.read*1000-want; got != wantDropped {
				t.Errorf("RowsDropped grew by %d, want %d", got, wantDropped)
			}
			wantNames := c.columns
			if wantNames == nil {
				wantNames = tbl.Schema().Names()
			}
			if strings.Join(names, ",") != strings.Join(wantNames, ",") {
				t.Errorf("columns %v, want %v", names, wantNames)
			}
			for i, name := range names {
				full := tbl.Column(tbl.Schema().Index(name))
				if c.firstRow < 0 {
					continue
				}
				exp := make([]plan.Value, len(ids))
				for j, id := range ids {
					exp[j] = full[id]
				}
				if !sameValues(cols[i], exp) {
					t.Errorf("column %s differs from the table's matching rows", name)
				}
			}
		})
	}
}

func TestParquetClassify(t *testing.T) {
	path, _ := groupedFile(t, t.TempDir())
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	col := func(n string) plan.Expr { return &plan.Column{Name: n} }
	lit := func(v plan.Value) plan.Expr { return &plan.Literal{Value: v} }
	cmp := func(fn plan.Func, a, b plan.Expr) plan.Expr { return &plan.Call{Fn: fn, Args: []plan.Expr{a, b}} }
	conj := []plan.Expr{
		cmp(plan.FuncLe, col("id"), lit(plan.Int64Value(3))),
		cmp(plan.FuncNe, lit(plan.StringValue("a")), col("s")),
		cmp(plan.FuncLt, col("x"), lit(plan.Int64Value(3))),             // mixed int/float: not used
		cmp(plan.FuncLt, col("id"), lit(plan.NullValue(plan.Int64))),    // null literal
		cmp(plan.FuncLt, col("id"), col("id")),                          // two columns
		cmp(plan.FuncAdd, col("id"), lit(plan.Int64Value(1))),           // not a comparison
		cmp(plan.FuncEq, col("nope"), lit(plan.Int64Value(1))),          // unknown column
		&plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{col("x")}},    // unary
		cmp(plan.FuncGe, col("x"), lit(plan.Float64Value(math.Inf(1)))), // float
		&plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{col("id"), lit(plan.Int64Value(1)), lit(plan.NullValue(plan.Int64))}},
		&plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{col("id"), lit(plan.Float64Value(1))}}, // mixed int/float
		&plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{col("id")}},                            // empty: nothing matches
		cmp(plan.FuncStartsWith, col("s"), lit(plan.StringValue("k"))),
		cmp(plan.FuncStartsWith, col("s"), col("s")),
		cmp(plan.FuncEndsWith, col("s"), lit(plan.StringValue("k"))),
		cmp(plan.FuncOr, cmp(plan.FuncEq, col("s"), lit(plan.StringValue("a"))), cmp(plan.FuncLt, lit(plan.StringValue("k")), col("s"))),
		cmp(plan.FuncOr, cmp(plan.FuncEq, col("s"), lit(plan.StringValue("a"))), cmp(plan.FuncEq, col("id"), lit(plan.Int64Value(1)))), // two columns
		cmp(plan.FuncOr, cmp(plan.FuncLe, col("id"), lit(plan.Int64Value(1))), cmp(plan.FuncLt, col("id"), col("id"))),                 // a disjunct not a test
		cmp(plan.FuncOr, cmp(plan.FuncOr, cmp(plan.FuncLe, col("id"), lit(plan.Int64Value(1))), &plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{col("id"), lit(plan.Int64Value(7))}}),
			cmp(plan.FuncGe, col("id"), lit(plan.Int64Value(9)))), // nested
	}
	got := src.ClassifyPredicates(conj)
	want := []plan.PredicateSupport{plan.Inexact, plan.Inexact, plan.Unsupported, plan.Unsupported, plan.Unsupported,
		plan.Unsupported, plan.Unsupported, plan.Unsupported, plan.Inexact,
		plan.Inexact, plan.Unsupported, plan.Inexact, plan.Inexact, plan.Unsupported, plan.Unsupported,
		plan.Inexact, plan.Unsupported, plan.Unsupported, plan.Inexact}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: %s, want %s", conj[i], got[i], want[i])
		}
	}
}

func TestParquetFloatNeAndNaNBoundsAreNotPruned(t *testing.T) {
	// A group whose only non-null values are 1.0 and NaN: `x != 1.0` is true
	// on the NaN rows, so ne on floats must not prune.
	dir := t.TempDir()
	tbl := mustTable(t, "f", []plan.Field{{Name: "x", Type: plan.Float64, Nullable: true}},
		floats(1.0, math.NaN(), 1.0, nil))
	rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	path := filepath.Join(dir, "f.parquet")
	writeParquet(t, path, rec, 10)
	src, err := OpenFile("f", path)
	if err != nil {
		t.Fatal(err)
	}
	ne := plan.PushedPredicate{Expr: &plan.Call{Fn: plan.FuncNe, Args: []plan.Expr{&plan.Column{Name: "x"}, &plan.Literal{Value: plan.Float64Value(1)}}}}
	rr, err := src.Scan(context.Background(), exec.ScanRequest{Predicates: []plan.PushedPredicate{ne}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, rows := readAll(t, rr); rows != 4 {
		t.Fatalf("rows = %d, want 4 (the group must be read)", rows)
	}
}

func TestParquetErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open("m", filepath.Join(dir, "missing.parquet")); err == nil {
		t.Fatal("opening a missing file succeeded")
	} else if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.SourceError || !strings.Contains(err.Error(), "missing.parquet") || pe.Expr != "m" {
		t.Fatalf("error %v: want a source_error naming m and the file", err)
	}
	path, _ := groupedFile(t, dir)
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	// Replace the file by one with another schema: the scan must refuse it.
	other := mustTable(t, "o", []plan.Field{{Name: "id", Type: plan.Int32}}, []plan.Value{plan.Int32Value(1)})
	rec, err := kernel.TableRecord(memory.DefaultAllocator, other)
	if err != nil {
		t.Fatal(err)
	}
	writeParquet(t, path, rec, 10)
	rec.Release()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err = src.Scan(context.Background(), exec.ScanRequest{Mem: mem})
	if err == nil || !strings.Contains(err.Error(), `column "id" is now int32, was int64`) {
		t.Fatalf("scan of a changed file: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err = src.Scan(context.Background(), exec.ScanRequest{Mem: mem}); err == nil || !strings.Contains(err.Error(), "g.parquet") {
		t.Fatalf("scan of a removed file: %v", err)
	}
}

// TestParquetScanAll: ScanAll (arrow-go's reader, the eager chain's) reads
// back exactly what WriteTable wrote, as Scan (dfopt's decoder) does:
// every row, NaN payloads (two in one row group: a dictionary encoder would
// merge them), -0.0 and nulls included, over several row groups.
func TestParquetScanAll(t *testing.T) {
	nan := math.Float64frombits(0x7ff8_0000_dead_beef)
	tbl := mustTable(t, "w", []plan.Field{{Name: "i", Type: plan.Int32, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String}, {Name: "b", Type: plan.Bool, Nullable: true}},
		[]plan.Value{plan.Int32Value(1), plan.NullValue(plan.Int32), plan.Int32Value(-7), plan.Int32Value(math.MinInt32), plan.Int32Value(0)},
		[]plan.Value{plan.Float64Value(nan), plan.Float64Value(math.Float64frombits(0x7ff0_0000_0000_0123)), plan.Float64Value(math.Copysign(0, -1)),
			plan.NullValue(plan.Float64), plan.Float64Value(math.Inf(-1))},
		[]plan.Value{plan.StringValue(""), plan.StringValue("é"), plan.StringValue("x"), plan.StringValue(""), plan.StringValue("zz")},
		[]plan.Value{plan.BoolValue(true), plan.NullValue(plan.Bool), plan.BoolValue(false), plan.BoolValue(true), plan.NullValue(plan.Bool)})
	path := filepath.Join(t.TempDir(), "w.parquet")
	if err := WriteTable(path, tbl, 2); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile("w", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Schema().Equal(tbl.Schema()) {
		t.Fatalf("schema %s, want %s", src.Schema(), tbl.Schema())
	}
	mem := checked(t)
	rec, err := src.ScanAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	cols := []col{{"i", tbl.Column(0)}, {"f", tbl.Column(1)}, {"s", tbl.Column(2)}, {"b", tbl.Column(3)}}
	compare(t, &exec.Result{Schema: tbl.Schema(), Record: rec}, cols)
	// Through Collect (the decoder) the same values.
	check(t, plan.Scan(src).Node(), want{cols: cols})
}

// TestWriteParquetEmptyTable: a table of no rows writes (page checksums
// included) and reads back as no rows, through both readers.
func TestWriteParquetEmptyTable(t *testing.T) {
	tbl := mustTable(t, "e", []plan.Field{{Name: "a", Type: plan.Int64, Nullable: true}, {Name: "s", Type: plan.String}}, []plan.Value{}, []plan.Value{})
	path := filepath.Join(t.TempDir(), "e.parquet")
	if err := WriteTable(path, tbl, 2); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile("e", path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := src.ScanAll(context.Background(), checked(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumRows() != 0 || rec.NumCols() != 2 {
		t.Fatalf("ScanAll: %d rows, %d columns", rec.NumRows(), rec.NumCols())
	}
	check(t, plan.Scan(src).Node(), want{cols: []col{{"a", nil}, {"s", nil}}})
}

// TestParquetLateMaterialization checks that a scan tests its Inexact
// conjuncts row by row before it decodes the other columns: a row group
// its statistics cannot refute but none of whose rows passes has only its
// tested column decoded (ChunksSkipped counts the others), and the rows
// that pass come back with every column, in file order, whatever the
// parallelism.
func TestParquetLateMaterialization(t *testing.T) {
	path, tbl := groupedFile(t, t.TempDir())
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	cmp := func(fn plan.Func, col string, v plan.Value) plan.PushedPredicate {
		return plan.PushedPredicate{Expr: &plan.Call{Fn: fn, Args: []plan.Expr{&plan.Column{Name: col}, &plan.Literal{Value: v}}}, Support: plan.Inexact}
	}
	cases := []struct {
		name          string
		pushed        []plan.PushedPredicate
		read          int64   // row groups read (not refuted by statistics)
		ids           []int64 // the rows expected
		chunksSkipped int64
	}{
		// x = id/2 (or null, or NaN): 700.25 lies within group 1's x
		// range [500, 999.5] but no row holds it.
		{"no row of the group passes", []plan.PushedPredicate{cmp(plan.FuncEq, "x", plan.Float64Value(700.25))}, 1, nil, 2},
		{"two rows pass", []plan.PushedPredicate{cmp(plan.FuncEq, "x", plan.Float64Value(700.5))}, 1, []int64{1401}, 0},
		// Groups 1 and 3 hold x values around 999.5 and 1500.25 (group 2
		// is refuted by x's statistics); only row 1999 passes both, so
		// group 3 decodes id and x but not s.
		{"two conjuncts, one group empty", []plan.PushedPredicate{cmp(plan.FuncGe, "id", plan.Int64Value(1998)),
			{Expr: &plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{&plan.Column{Name: "x"},
				&plan.Literal{Value: plan.Float64Value(999.5)}, &plan.Literal{Value: plan.Float64Value(1500.25)}}}, Support: plan.Inexact}},
			2, []int64{1999}, 1},
		// The string column is tested second, over the 200 rows the
		// first test passed (from its dictionary), and its strings are
		// decoded for those rows only.
		{"a string tested after an int", []plan.PushedPredicate{cmp(plan.FuncGe, "id", plan.Int64Value(1800)),
			cmp(plan.FuncEq, "s", plan.StringValue("k1"))}, 1, seq(1800, 2000), 0},
		// A string tested first, from its dictionary: group 2 is the
		// one the statistics leave, and each of its rows passes.
		{"a string tested alone", []plan.PushedPredicate{{Expr: &plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{&plan.Column{Name: "s"},
			&plan.Literal{Value: plan.StringValue("k2")}, &plan.Literal{Value: plan.StringValue("k9")}}}, Support: plan.Inexact}},
			1, seq(2000, 3000), 0},
	}
	for _, c := range cases {
		for _, par := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/parallelism=%d", c.name, par), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				before := src.Stats()
				rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: []string{"s", "x", "id"},
					Predicates: c.pushed, Mem: mem, Parallelism: par})
				if err != nil {
					t.Fatal(err)
				}
				_, cols, rows := readAll(t, rr)
				after := src.Stats()
				if got := after.RowGroupsRead - before.RowGroupsRead; got != c.read {
					t.Errorf("read %d row groups, want %d", got, c.read)
				}
				if got := after.ChunksSkipped - before.ChunksSkipped; got != c.chunksSkipped {
					t.Errorf("ChunksSkipped grew by %d, want %d", got, c.chunksSkipped)
				}
				if got := after.RowsDropped - before.RowsDropped; got != c.read*1000-int64(len(c.ids)) {
					t.Errorf("RowsDropped grew by %d, want %d", got, c.read*1000-int64(len(c.ids)))
				}
				if rows != int64(len(c.ids)) {
					t.Fatalf("rows = %d, want %d", rows, len(c.ids))
				}
				for i, name := range []string{"s", "x", "id"} {
					full := tbl.Column(tbl.Schema().Index(name))
					exp := make([]plan.Value, len(c.ids))
					for j, id := range c.ids {
						exp[j] = full[id]
					}
					if !sameValues(cols[i], exp) {
						t.Errorf("column %s differs from the table's matching rows", name)
					}
				}
			})
		}
	}
}

// seq returns lo, lo+1, ..., hi-1.
func seq(lo, hi int64) []int64 {
	out := make([]int64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestParquetGuardsKeepRowGroups: given guards (exec.ScanRequest.Guards),
// the source skips a row group a pushed conjunct rules out only when the
// group's statistics prove every guard total there; a group where a guard
// may raise is read, so the executor's guard meets its rows.
func TestParquetGuardsKeepRowGroups(t *testing.T) {
	path, _ := groupedFile(t, t.TempDir())
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.HonoursGuards() {
		t.Fatal("the Parquet source must honour guards")
	}
	id := &plan.Column{Name: "id"}
	lit := func(v int64) plan.Expr { return &plan.Literal{Value: plan.Int64Value(v)} }
	call := func(fn plan.Func, args ...plan.Expr) plan.Expr { return &plan.Call{Fn: fn, Args: args} }
	gt2500 := []plan.PushedPredicate{{Expr: call(plan.FuncGt, id, lit(2500)), Support: plan.Inexact}}
	cases := []struct {
		name   string
		guards []plan.Expr
		read   int64
	}{
		{"no guard: 2 groups skipped", nil, 2},
		{"id * 2 cannot overflow: 2 groups skipped", []plan.Expr{call(plan.FuncMul, id, lit(2))}, 2},
		{"id * 2^62 may overflow everywhere: every group read", []plan.Expr{call(plan.FuncMul, id, lit(1<<62))}, 4},
		{"1000 / (id - 1500): group 1 holds a divisor 0", []plan.Expr{call(plan.FuncDiv, lit(1000), call(plan.FuncSub, id, lit(1500)))}, 3},
		{"x * 2 is total (float): 2 groups skipped", []plan.Expr{call(plan.FuncMul, &plan.Column{Name: "x"}, &plan.Literal{Value: plan.Float64Value(2)})}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			before := src.Stats()
			rr, err := src.Scan(context.Background(), exec.ScanRequest{Columns: []string{"id"}, Predicates: gt2500, Guards: c.guards, Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			_, _, rows := readAll(t, rr)
			after := src.Stats()
			if got := after.RowGroupsRead - before.RowGroupsRead; got != c.read {
				t.Errorf("read %d row groups, want %d", got, c.read)
			}
			// Given guards, the source drops no row of a group it reads
			// (no late materialization): the guards meet every one.
			if c.guards != nil && rows != c.read*1000 {
				t.Errorf("rows = %d, want %d", rows, c.read*1000)
			}
		})
	}
}
