package kernel

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

const benchRows = 1_000_000

// benchBatch builds benchRows rows of a, b (int64, small values so nothing
// overflows), f, g (float64), p, q (bool), with nullPct percent nulls.
func benchBatch(b *testing.B, nullPct int) arrow.RecordBatch {
	b.Helper()
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	valid := func() []bool {
		v := make([]bool, benchRows)
		for i := range v {
			v[i] = r.Intn(100) >= nullPct
		}
		return v
	}
	ints := func() arrow.Array {
		vals := make([]int64, benchRows)
		for i := range vals {
			vals[i] = r.Int63n(2_000_000) - 1_000_000
		}
		bld := array.NewInt64Builder(mem)
		defer bld.Release()
		bld.AppendValues(vals, valid())
		return bld.NewArray()
	}
	floats := func() arrow.Array {
		vals := make([]float64, benchRows)
		for i := range vals {
			vals[i] = r.NormFloat64() * 1000
		}
		bld := array.NewFloat64Builder(mem)
		defer bld.Release()
		bld.AppendValues(vals, valid())
		return bld.NewArray()
	}
	bools := func() arrow.Array {
		vals := make([]bool, benchRows)
		for i := range vals {
			vals[i] = r.Intn(2) == 0
		}
		bld := array.NewBooleanBuilder(mem)
		defer bld.Release()
		bld.AppendValues(vals, valid())
		return bld.NewArray()
	}
	cols := []arrow.Array{ints(), ints(), floats(), floats(), bools(), bools()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "g", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "p", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "q", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, benchRows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// benchEvalOn times Eval of e over the batch that batch builds, without
// and with 10% nulls, and reports ns/row; bytesPerRow, when positive, is
// the input read per row (for MB/s).
func benchEvalOn(b *testing.B, batch func(*testing.B, int) arrow.RecordBatch, e plan.E, bytesPerRow int64) {
	for _, nulls := range []struct {
		name string
		pct  int
	}{{"nonull", 0}, {"nulls10", 10}} {
		b.Run(nulls.name, func(b *testing.B) {
			rec := batch(b, nulls.pct)
			defer rec.Release()
			ev := &Evaluator{Mem: memory.NewGoAllocator()}
			ctx := context.Background()
			if bytesPerRow > 0 {
				b.SetBytes(bytesPerRow * benchRows)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := ev.Eval(ctx, e.Expr(), rec, 0)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
		})
	}
}

// benchEval times Eval of e over benchRows rows, without and with 10%
// nulls, and reports ns/row; bytesPerRow is the input read per row.
func benchEval(b *testing.B, e plan.E, bytesPerRow int64) {
	benchEvalOn(b, benchBatch, e, bytesPerRow)
}

func BenchmarkAddInt64Checked(b *testing.B) { benchEval(b, col("a").Add(col("b")), 16) }

func BenchmarkAddInt64Scalar(b *testing.B) { benchEval(b, col("a").Add(lit(7)), 8) }

func BenchmarkCmpInt64Lit(b *testing.B) { benchEval(b, col("a").Lt(lit(500)), 8) }

func BenchmarkMulFloat64(b *testing.B) { benchEval(b, col("f").Mul(col("g")), 16) }

func BenchmarkKleeneAnd(b *testing.B) { benchEval(b, col("p").And(col("q")), 1) }

func BenchmarkArith3Deep(b *testing.B) {
	benchEval(b, col("a").Add(col("b")).Mul(lit(3)).Sub(col("a")), 16)
}

func BenchmarkCastStrictInt64ToInt32(b *testing.B) { benchEval(b, col("a").Cast(plan.Int32), 8) }

func BenchmarkCastStrictFloat64ToInt64(b *testing.B) { benchEval(b, col("f").Cast(plan.Int64), 8) }

func BenchmarkDivInt64(b *testing.B) {
	benchEval(b, plan.If(col("b").Ne(lit(0)), col("a").Div(col("b")), lit(0)), 16)
}

// BenchmarkDivInt64TempDivisor divides by a computed divisor, a temporary
// whose buffer the division reuses for its quotients.
func BenchmarkDivInt64TempDivisor(b *testing.B) {
	benchEval(b, col("a").Div(col("b").Abs().Add(lit(1))), 16)
}

func BenchmarkPredicate2(b *testing.B) {
	for _, pct := range []int{0, 10} {
		name := map[int]string{0: "nonull", 10: "nulls10"}[pct]
		b.Run(name, func(b *testing.B) {
			rec := benchBatch(b, pct)
			defer rec.Release()
			ev := &Evaluator{Mem: memory.NewGoAllocator()}
			conj := []plan.Expr{col("a").Gt(lit(0)).Expr(), col("f").Lt(lit(100.0)).Expr()}
			b.SetBytes(16 * benchRows)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sel, err := ev.EvalPredicate(context.Background(), conj, rec, 0)
				if err != nil {
					b.Fatal(err)
				}
				sel.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
		})
	}
}

// BenchmarkKernelOnlyAddAA times the checked-add loop alone (preallocated
// output, no Arrow, no allocation), to separate the kernel from the cost of
// allocating and zeroing the result buffer in the Eval benchmarks.
func BenchmarkKernelOnlyAddAA(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y, out := make([]int64, benchRows), make([]int64, benchRows), make([]int64, benchRows)
	for i := range x {
		x[i], y[i] = r.Int63n(1<<40), r.Int63n(1<<40)
	}
	b.SetBytes(16 * benchRows)
	b.ResetTimer()
	acc := func(o []int64, lo int) bool { return addAccAA(o, x[lo:], y[lo:]) }
	early := func(lo, hi int) int { return lo + addAA(out[lo:hi], x[lo:], y[lo:]) }
	for i := 0; i < b.N; i++ {
		if runChecked(out, 0, acc, early, false) != benchRows {
			b.Fatal("overflow")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// BenchmarkKernelOnlyCmpAS times the compare-with-literal loop alone.
func BenchmarkKernelOnlyCmpAS(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := make([]int64, benchRows)
	for i := range x {
		x[i] = r.Int63n(1000)
	}
	out := make([]byte, benchRows/8+1)
	b.SetBytes(8 * benchRows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmpNum(plan.FuncLt, out, x, []int64{500}, true)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// benchStrBatch builds benchRows rows of s (strings of 4 to 16 characters,
// mostly lower-case ASCII with some upper case and "é", about 1 in 8
// holding "abc") and k (int64 in [0, 100)), with nullPct percent nulls.
func benchStrBatch(b *testing.B, nullPct int) arrow.RecordBatch {
	b.Helper()
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJé"
	runes := []rune(alphabet)
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	kb := array.NewInt64Builder(mem)
	defer kb.Release()
	buf := make([]rune, 0, 16)
	for i := 0; i < benchRows; i++ {
		if r.Intn(100) < nullPct {
			sb.AppendNull()
		} else {
			buf = buf[:0]
			for n := 4 + r.Intn(13); n > 0; n-- {
				buf = append(buf, runes[r.Intn(len(runes))])
			}
			s := string(buf)
			if r.Intn(8) == 0 {
				s += "abc"
			}
			sb.Append(s)
		}
		if r.Intn(100) < nullPct {
			kb.AppendNull()
		} else {
			kb.Append(r.Int63n(100))
		}
	}
	cols := []arrow.Array{sb.NewArray(), kb.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, benchRows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// benchStrEval is benchEval over benchStrBatch.
func benchStrEval(b *testing.B, e plan.E) {
	benchEvalOn(b, benchStrBatch, e, 0)
}

// The string, set and range kernels beside str_len, the string function
// that existed before them.
func BenchmarkStrLen(b *testing.B)      { benchStrEval(b, col("s").StrLen()) }
func BenchmarkStrLower(b *testing.B)    { benchStrEval(b, col("s").Lower()) }
func BenchmarkStrUpper(b *testing.B)    { benchStrEval(b, col("s").Upper()) }
func BenchmarkStrContains(b *testing.B) { benchStrEval(b, col("s").Contains(lit("abc"))) }
func BenchmarkStrStartsWith(b *testing.B) {
	benchStrEval(b, col("s").StartsWith(lit("ab")))
}
func BenchmarkStrLikeInfix(b *testing.B) { benchStrEval(b, col("s").Like(lit("%abc%"))) }
func BenchmarkStrLikeUnderscore(b *testing.B) {
	benchStrEval(b, col("s").Like(lit("%a_c%"))) // the character-by-character matcher
}
func BenchmarkStrSubstring(b *testing.B) { benchStrEval(b, col("s").Substring(lit(1), lit(3))) }
func BenchmarkStrReplaceAll(b *testing.B) {
	benchStrEval(b, col("s").ReplaceAll(lit("abc"), lit("x")))
}
func BenchmarkStrStrip(b *testing.B) { benchStrEval(b, col("s").StripChars(lit("ab"))) }
func BenchmarkIsInInt64x5(b *testing.B) {
	benchStrEval(b, col("k").IsIn(i64(3), i64(17), i64(42), i64(64), i64(99)))
}
func BenchmarkIsInString5(b *testing.B) {
	benchStrEval(b, col("s").IsIn(str("abcd"), str("hello"), str("xyzzy"), str("qwerty"), str("éabc")))
}
func BenchmarkBetweenInt64(b *testing.B) { benchStrEval(b, col("k").Between(lit(10), lit(20))) }
