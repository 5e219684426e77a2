package exec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/internal/exectest"
	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
)

// The benchmark data: 1,000,000 rows, 20 columns — id, k1000 (1,000
// distinct keys), i2..i7 (int64), f0..f7 (float64 in [0, 1), 1% null),
// s0, s1 (short strings), b0 (bool), n32 (int32) — and a 1,000-row
// dimension table (key, name, weight).
const benchRows = 1_000_000

var (
	benchOnce sync.Once
	benchRec  arrow.RecordBatch
	benchDim  arrow.RecordBatch
)

func benchData() (arrow.RecordBatch, arrow.RecordBatch) {
	benchOnce.Do(func() {
		mem := memory.DefaultAllocator
		rng := rand.New(rand.NewPCG(1, 2))
		var fields []arrow.Field
		var cols []arrow.Array
		add := func(name string, dt arrow.DataType, nullable bool, a arrow.Array) {
			fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: nullable})
			cols = append(cols, a)
		}
		ib := array.NewInt64Builder(mem)
		for i := 0; i < benchRows; i++ {
			ib.Append(int64(i))
		}
		add("id", arrow.PrimitiveTypes.Int64, false, ib.NewArray())
		for i := 0; i < benchRows; i++ {
			ib.Append(int64(i*7919) % 1000)
		}
		add("k1000", arrow.PrimitiveTypes.Int64, false, ib.NewArray())
		for c := 2; c < 8; c++ {
			for i := 0; i < benchRows; i++ {
				ib.Append(rng.Int64N(1_000_000) - 500_000)
			}
			add(fmt.Sprintf("i%d", c), arrow.PrimitiveTypes.Int64, true, ib.NewArray())
		}
		ib.Release()
		fb := array.NewFloat64Builder(mem)
		for c := 0; c < 8; c++ {
			for i := 0; i < benchRows; i++ {
				if rng.IntN(100) == 0 {
					fb.AppendNull()
				} else {
					fb.Append(rng.Float64())
				}
			}
			add(fmt.Sprintf("f%d", c), arrow.PrimitiveTypes.Float64, true, fb.NewArray())
		}
		fb.Release()
		sb := array.NewStringBuilder(mem)
		for c := 0; c < 2; c++ {
			for i := 0; i < benchRows; i++ {
				sb.Append(fmt.Sprintf("s%d_%d", c, rng.IntN(100)))
			}
			add(fmt.Sprintf("s%d", c), arrow.BinaryTypes.String, true, sb.NewArray())
		}
		sb.Release()
		bb := array.NewBooleanBuilder(mem)
		for i := 0; i < benchRows; i++ {
			bb.Append(i%3 == 0)
		}
		add("b0", arrow.FixedWidthTypes.Boolean, true, bb.NewArray())
		bb.Release()
		i32 := array.NewInt32Builder(mem)
		for i := 0; i < benchRows; i++ {
			i32.Append(int32(rng.IntN(1000)))
		}
		add("n32", arrow.PrimitiveTypes.Int32, true, i32.NewArray())
		i32.Release()
		benchRec = array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, benchRows)
		for _, a := range cols {
			a.Release()
		}

		kb, nb, wb := array.NewInt64Builder(mem), array.NewStringBuilder(mem), array.NewFloat64Builder(mem)
		for i := 0; i < 1000; i++ {
			kb.Append(int64(i))
			nb.Append(fmt.Sprintf("name%d", i))
			wb.Append(rng.Float64())
		}
		dcols := []arrow.Array{kb.NewArray(), nb.NewArray(), wb.NewArray()}
		kb.Release()
		nb.Release()
		wb.Release()
		benchDim = array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "key", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "weight", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil),
			dcols, 1000)
		for _, a := range dcols {
			a.Release()
		}
	})
	return benchRec, benchDim
}

// benchQuery builds a query over a fact scan and a dimension scan.
type benchQuery struct {
	name    string
	columns []string // the fact columns the query reads (the pruned scan)
	build   func(fact, dim plan.Frame) plan.Node
}

var (
	c  = plan.Col
	lt = plan.Lit
)

var benchQueries = []benchQuery{
	{"filter_project", []string{"id", "f0", "f1", "s0"}, func(f, _ plan.Frame) plan.Node {
		return f.Filter(c("f0").Gt(lt(0.5))).Select(c("id"), c("f1"), c("s0")).Node()
	}},
	{"computed_then_filter", []string{"f0", "f1", "f2"}, func(f, _ plan.Frame) plan.Node {
		return f.WithColumns(c("f0").Mul(c("f1")).Add(c("f2")).Alias("x")).Filter(c("x").Gt(lt(1.0))).Node()
	}},
	{"sort_limit_100", []string{"id", "f3", "s1"}, func(f, _ plan.Frame) plan.Node {
		return f.Sort(plan.Desc(c("f3"))).Head(100).Node()
	}},
	{"groupby_1000_sum_mean_count", []string{"k1000", "f0", "f1", "i2"}, func(f, _ plan.Frame) plan.Node {
		return f.GroupBy(c("k1000")).Agg(c("f0").Sum().Alias("s"), c("f1").Mean().Alias("m"), c("i2").Count().Alias("n")).Node()
	}},
	{"join_dim_then_filter", []string{"id", "k1000", "f0"}, func(f, d plan.Frame) plan.Node {
		return f.Join(d, plan.InnerJoin, []plan.E{c("k1000")}, []plan.E{c("key")}).Filter(c("weight").Gt(lt(0.5))).Node()
	}},
	{"chain_10_steps", []string{"i2", "i3", "f0", "f1"}, func(f, _ plan.Frame) plan.Node {
		for s := 0; s < 5; s++ {
			f = f.WithColumns(c("i2").Add(c("i3")).Alias("i2"), c("f0").Mul(lt(1.5)).Alias(fmt.Sprintf("g%d", s)))
			f = f.Filter(c("i2").Gt(lt(int64(-600_000 - s))))
		}
		return f.Node()
	}},
}

func recordBytes(rec arrow.RecordBatch, columns []string) int64 {
	var n int64
	for _, name := range columns {
		for _, b := range rec.Column(rec.Schema().FieldIndices(name)[0]).Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}

func runBench(b *testing.B, n plan.Node, bytes int64) {
	b.ReportAllocs()
	b.SetBytes(bytes)
	ctx := context.Background()
	for b.Loop() {
		res, err := exec.Collect(ctx, n, exec.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res.Release()
	}
}

// BenchmarkCollect runs each query in memory (an ArrowSource over the
// generated batch, the plan as written: the scan outputs all 20 columns
// without copying) and from a Parquet file written by the benchmark (the
// scan projected to the columns the query reads, as projection pruning
// leaves it). MB/s counts the buffers of the columns the query reads.
func BenchmarkCollect(b *testing.B) {
	rec, dim := benchData()
	fact, err := exec.NewArrowSource("fact", rec)
	if err != nil {
		b.Fatal(err)
	}
	defer fact.Release()
	dimSrc, err := exec.NewArrowSource("dim", dim)
	if err != nil {
		b.Fatal(err)
	}
	defer dimSrc.Release()
	// DFOPT_EXEC_BENCH_DIR keeps the Parquet files, so that another engine
	// can be measured on the same bytes (docs/performance.md).
	dir := os.Getenv("DFOPT_EXEC_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	factPath, dimPath := filepath.Join(dir, "fact.parquet"), filepath.Join(dir, "dim.parquet")
	writeParquet(b, factPath, rec, 128*1024)
	writeParquet(b, dimPath, dim, 1024)
	pFact, err := parquet.OpenFile("fact", factPath)
	if err != nil {
		b.Fatal(err)
	}
	pDim, err := parquet.OpenFile("dim", dimPath)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range benchQueries {
		bytes := recordBytes(rec, q.columns)
		b.Run(q.name+"/memory", func(b *testing.B) {
			runBench(b, q.build(plan.Scan(fact), plan.Scan(dimSrc)), bytes)
		})
		b.Run(q.name+"/parquet", func(b *testing.B) {
			scan := &plan.ScanNode{Source: pFact, SourceSchema: pFact.Schema(), Projected: true, Columns: q.columns}
			runBench(b, q.build(plan.FromNode(scan), plan.Scan(pDim)), bytes)
		})
	}
}

// TestBenchQueriesAgree checks that every benchmark query gives the same
// rows in memory and from Parquet (on a smaller table), so the benchmark
// measures real work.
func TestBenchQueriesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the benchmark table")
	}
	rec, dim := benchData()
	small := rec.NewSlice(0, 50_000)
	defer small.Release()
	fact, err := exec.NewArrowSource("fact", small)
	if err != nil {
		t.Fatal(err)
	}
	defer fact.Release()
	dimSrc, err := exec.NewArrowSource("dim", dim)
	if err != nil {
		t.Fatal(err)
	}
	defer dimSrc.Release()
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "f.parquet"), small, 8192)
	writeParquet(t, filepath.Join(dir, "d.parquet"), dim, 1024)
	pFact, err := parquet.OpenFile("fact", filepath.Join(dir, "f.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	pDim, err := parquet.OpenFile("dim", filepath.Join(dir, "d.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range benchQueries {
		t.Run(q.name, func(t *testing.T) {
			mem := exectest.Checked(t)
			r1, err := exec.Collect(context.Background(), q.build(plan.Scan(fact), plan.Scan(dimSrc)), exec.Options{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer r1.Release()
			scan := &plan.ScanNode{Source: pFact, SourceSchema: pFact.Schema(), Projected: true, Columns: q.columns}
			r2, err := exec.Collect(context.Background(), q.build(plan.FromNode(scan), plan.Scan(pDim)), exec.Options{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Release()
			if r1.NumRows() == 0 || r1.NumRows() != r2.NumRows() {
				t.Fatalf("rows %d (memory) vs %d (parquet)", r1.NumRows(), r2.NumRows())
			}
			// Columns present in both (the pruned scan lacks unread ones).
			for i, name := range r2.Schema.Names() {
				j := r1.Schema.Index(name)
				if j < 0 {
					t.Fatalf("column %s missing in memory result", name)
				}
				a, b := r1.Record.Column(j), r2.Record.Column(i)
				for row := 0; row < r1.NumRows(); row++ {
					va, _ := r1.Value(j, row)
					vb, _ := r2.Value(i, row)
					if !va.Identical(vb) {
						t.Fatalf("column %s row %d: %s vs %s (%s, %s)", name, row, va, vb, a.DataType(), b.DataType())
					}
				}
			}
		})
	}
}

// writeParquet writes rec to path in row groups of at most groupRows rows,
// with statistics and page checksums, as dfopt's writers do.
func writeParquet(tb testing.TB, path string, rec arrow.RecordBatch, groupRows int64) {
	tb.Helper()
	exectest.WriteParquetRaw(tb, path, rec, groupRows)
	if err := parquet.AddPageChecksums(path); err != nil {
		tb.Fatal(err)
	}
}
