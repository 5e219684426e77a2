package step

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// benchGuardRows is the row count of the guard benchmarks.
const benchGuardRows = 1_000_000

// guardBench is a frame of a and b (int64, a in [-10^6, 10^6], b in
// [1, 1000], 1% nulls in a) and the nodes the benchmarks evaluate over it.
type guardBench struct {
	env   *Env
	frame *Frame
	scan  plan.Node
}

func newGuardBench(b *testing.B) *guardBench {
	b.Helper()
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	ab := array.NewInt64Builder(mem)
	bb := array.NewInt64Builder(mem)
	for i := 0; i < benchGuardRows; i++ {
		if r.Intn(100) == 0 {
			ab.AppendNull()
		} else {
			ab.Append(r.Int63n(2_000_001) - 1_000_000)
		}
		bb.Append(1 + r.Int63n(1000))
	}
	a, bcol := ab.NewArray(), bb.NewArray()
	defer a.Release()
	defer bcol.Release()
	as := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(as, []arrow.Array{a, bcol}, benchGuardRows)
	defer rec.Release()
	s := plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64, Nullable: true}, plan.Field{Name: "b", Type: plan.Int64, Nullable: true})
	env := NewEnv(context.Background(), mem, nil, "bench")
	f, err := env.FromRecord(s, rec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(f.Release)
	tb, err := plan.NewTable("t", s, [][]plan.Value{nil, nil})
	if err != nil {
		b.Fatal(err)
	}
	return &guardBench{env: env, frame: f, scan: plan.Scan(tb).Node()}
}

func (g *guardBench) run(b *testing.B, n plan.Node) {
	b.Helper()
	res, err := plan.Resolve(n)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := Eval(g.env, res, []*Frame{g.frame})
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchGuardRows, "ns/row")
}

// BenchmarkGuard compares a guard (the error condition only: a range test
// of a, or b = 0 and MinInt / -1) with evaluating the expression it guards
// (the checked arithmetic, materialized as a column), over 1,000,000 rows
// (docs/performance.md, "Error guards").
func BenchmarkGuard(b *testing.B) {
	g := newGuardBench(b)
	mulAdd := plan.Col("a").Mul(plan.Lit(2)).Add(plan.Lit(1))
	div := plan.Col("a").Div(plan.Col("b"))
	b.Run("expr=a*2+1/guard", func(b *testing.B) {
		g.run(b, &plan.GuardNode{Input: g.scan, Exprs: []plan.Expr{mulAdd.Expr()}})
	})
	b.Run("expr=a*2+1/with_columns", func(b *testing.B) {
		g.run(b, &plan.WithColumnsNode{Input: g.scan, Exprs: []plan.Expr{mulAdd.Alias("c").Expr()}})
	})
	b.Run("expr=a/b/guard", func(b *testing.B) {
		g.run(b, &plan.GuardNode{Input: g.scan, Exprs: []plan.Expr{div.Expr()}})
	})
	b.Run("expr=a/b/with_columns", func(b *testing.B) {
		g.run(b, &plan.WithColumnsNode{Input: g.scan, Exprs: []plan.Expr{div.Alias("c").Expr()}})
	})
}
