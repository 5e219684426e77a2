package step

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// The semantics themselves are held against docs/semantics.md by the
// executor's and the eager chain's tests (both drive this package) and by
// the oracle; these tests pin what the drivers rely on: the order of
// evaluation inside a node, the frame algebra, and the helpers.

func col(n string) plan.E { return plan.Col(n) }
func lit(v any) plan.E    { return plan.Lit(v) }
func i64(v int64) plan.Value {
	return plan.Int64Value(v)
}

// env returns an Env over a checked allocator that the test asserts is
// back at zero when it ends.
func env(t *testing.T) *Env {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return NewEnv(plan.WithCallCounter(context.Background()), mem, nil, "test")
}

// table is a: 1, 2, 3 and z: 0, 0, 0 (both non-nullable int64).
func table(t *testing.T, name string) *plan.Table {
	t.Helper()
	tb, err := plan.NewTable(name, plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "z", Type: plan.Int64}),
		[][]plan.Value{{i64(1), i64(2), i64(3)}, {i64(0), i64(0), i64(0)}})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// collect is a minimal driver: resolve, then evaluate post-order, tables
// through ScanTable and every other node through Eval.
func collect(e *Env, n plan.Node) ([][]plan.Value, error) {
	resolved, err := plan.Resolve(n)
	if err != nil {
		return nil, err
	}
	tables := NewTables()
	defer tables.Release()
	var run func(n plan.Node) (*Frame, error)
	run = func(n plan.Node) (*Frame, error) {
		if s, ok := n.(*plan.ScanNode); ok {
			return ScanTable(e, tables, s)
		}
		var ins []*Frame
		defer func() { ReleaseFrames(ins) }()
		for _, c := range n.Children() {
			f, err := run(c)
			if err != nil {
				return nil, err
			}
			ins = append(ins, f)
		}
		return Eval(e, n, ins)
	}
	f, err := run(resolved)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	rec, err := e.Materialize(f)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return Rows(rec)
}

// TestOrderOfEvaluation: within a node, the first expression to raise (in
// the order the package documents) is the error. Every case has two
// failing expressions, a / z and a % z; swapping their places must swap
// the error, so no case passes by accident.
func TestOrderOfEvaluation(t *testing.T) {
	div, mod := col("a").Div(col("z")), col("a").Mod(col("z"))
	for _, c := range []struct {
		name  string
		build func(first, second plan.E, T *plan.Table) plan.Node
	}{
		{"filter: conjuncts in list order", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).Filter(x.Gt(lit(0)), y.Gt(lit(0))).Node()
		}},
		{"project: expressions in list order", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).Select(x.Alias("p"), y.Alias("q")).Node()
		}},
		{"with_columns: expressions in list order", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).WithColumns(x.Alias("p"), y.Alias("q")).Node()
		}},
		{"sort: keys in list order", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).Sort(plan.Asc(x), plan.Asc(y)).Node()
		}},
		{"aggregate: keys before aggregates", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).GroupBy(x.Alias("k")).Agg(y.Sum().Alias("s")).Node()
		}},
		{"aggregate: aggregates in list order", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).GroupBy(col("a")).Agg(x.Sum().Alias("s"), y.Sum().Alias("t")).Node()
		}},
		{"window: argument before partition keys", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).WithColumns(x.Sum().Over(y).Alias("w")).Node()
		}},
		{"join: left keys before right keys", func(x, y plan.E, T *plan.Table) plan.Node {
			return plan.Scan(T).Join(plan.Scan(table(t, "u")), plan.InnerJoin, []plan.E{x}, []plan.E{y}).Node()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, order := range []struct {
				first, second plan.E
				want          string
			}{{div, mod, "a / z"}, {mod, div, "a % z"}} {
				_, err := collect(env(t), c.build(order.first, order.second, table(t, "t")))
				pe, ok := plan.AsError(err)
				if !ok || pe.Expr != order.want {
					t.Fatalf("got %v, want an error in `%s`", err, order.want)
				}
			}
		})
	}
}

// TestScanConjunctsInOrder: a scan applies its Exact pushed conjuncts in
// list order, each over all rows; Inexact ones are left to the plan.
func TestScanConjunctsInOrder(t *testing.T) {
	T := table(t, "t")
	div := col("a").Div(col("z")).Gt(lit(0)).Expr()
	mod := col("a").Mod(col("z")).Gt(lit(0)).Expr()
	keep := col("a").Gt(lit(1)).Expr()
	scan := func(p ...plan.PushedPredicate) plan.Node {
		return &plan.ScanNode{Source: T, SourceSchema: T.Schema(), Pushed: p, Projected: true, Columns: []string{"a"}}
	}
	for _, c := range []struct {
		name string
		n    plan.Node
		want string // error expression, or the rows of a
	}{
		{"exact in order", scan(plan.PushedPredicate{Expr: div, Support: plan.Exact}, plan.PushedPredicate{Expr: mod, Support: plan.Exact}), "a / z"},
		{"exact swapped", scan(plan.PushedPredicate{Expr: mod, Support: plan.Exact}, plan.PushedPredicate{Expr: div, Support: plan.Exact}), "a % z"},
		{"inexact ignored", scan(plan.PushedPredicate{Expr: div, Support: plan.Inexact}), "[[1] [2] [3]]"},
		{"exact applied", scan(plan.PushedPredicate{Expr: keep, Support: plan.Exact}), "[[2] [3]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := collect(env(t), c.n)
			got := fmt.Sprint(rows)
			if pe, ok := plan.AsError(err); ok {
				got = pe.Expr
			} else if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestFrameAlgebra: gathers compose, slices clamp, a row index of -1 is a
// row of nulls, and every reference is released.
func TestFrameAlgebra(t *testing.T) {
	e := env(t)
	tb, err := plan.NewTable("f", plan.MustSchema(plan.Field{Name: "x", Type: plan.Int64}),
		[][]plan.Value{{i64(10), i64(11), i64(12), i64(13), i64(14)}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := kernel.TableRecord(e.Mem, tb)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	base, err := e.FromRecord(tb.Schema(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Release()
	nullable := plan.MustSchema(plan.Field{Name: "x", Type: plan.Int64, Nullable: true})
	must := func(f *Frame, err error) *Frame {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	g1 := must(e.gather(base, tb.Schema(), []int32{4, 2, 0}))
	defer g1.Release()
	g2 := must(e.WithParallel(ops.Parallel{Workers: 2, MinRows: 1}).gather(g1, nullable, []int32{2, -1, 0}))
	defer g2.Release()
	for _, c := range []struct {
		name string
		f    *Frame
		want string
	}{
		{"base", base, "[[10] [11] [12] [13] [14]]"},
		{"gather", g1, "[[14] [12] [10]]"},
		{"gather of a gather", g2, "[[10] [null(int64)] [14]]"},
		{"slice of a gather", g2.Slice(nullable, 1, 5), "[[null(int64)] [14]]"},
		{"slice clamped", base.Slice(tb.Schema(), 9, 2), "[]"},
		{"slice to the end", base.Slice(tb.Schema(), 3, -1), "[[13] [14]]"},
		{"identity reorder shares", must(e.reorder(base, tb.Schema(), []int32{0, 1, 2, 3, 4})), "[[10] [11] [12] [13] [14]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.f != base && c.f != g1 && c.f != g2 {
				defer c.f.Release()
			}
			out, err := e.Materialize(c.f)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			as, err := kernel.ArrowSchema(c.f.Schema())
			if err != nil {
				t.Fatal(err)
			}
			if !out.Schema().Equal(as) {
				t.Fatalf("schema %s, want %s", out.Schema(), as)
			}
			rows, err := Rows(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(rows); got != c.want {
				t.Fatalf("rows %s, want %s", got, c.want)
			}
		})
	}
}

// TestSameArrow: the record fast paths are taken only for a batch that is
// exactly the Arrow form of the schema.
func TestSameArrow(t *testing.T) {
	s := plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.String, Nullable: true})
	as, err := kernel.ArrowSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string, dt arrow.DataType, nullable bool) arrow.Field {
		return arrow.Field{Name: name, Type: dt, Nullable: nullable}
	}
	for _, c := range []struct {
		name string
		as   *arrow.Schema
		want bool
	}{
		{"kernel.ArrowSchema", as, true},
		{"nullability", arrow.NewSchema([]arrow.Field{field("a", arrow.PrimitiveTypes.Int64, true), field("b", arrow.BinaryTypes.String, true)}, nil), false},
		{"type", arrow.NewSchema([]arrow.Field{field("a", arrow.PrimitiveTypes.Int32, false), field("b", arrow.BinaryTypes.String, true)}, nil), false},
		{"name", arrow.NewSchema([]arrow.Field{field("a", arrow.PrimitiveTypes.Int64, false), field("c", arrow.BinaryTypes.String, true)}, nil), false},
		{"count", arrow.NewSchema([]arrow.Field{field("a", arrow.PrimitiveTypes.Int64, false)}, nil), false},
	} {
		if got := sameArrow(c.as, s); got != c.want {
			t.Errorf("%s: sameArrow = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEvalContract: Eval refuses what a driver must not pass it, with an
// internal error naming the driver.
func TestEvalContract(t *testing.T) {
	e := env(t)
	T := table(t, "t")
	scan, err := plan.Resolve(plan.Scan(T).Node())
	if err != nil {
		t.Fatal(err)
	}
	filter, err := plan.Resolve(plan.Scan(T).Filter(col("a").Gt(lit(1))).Node())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		n    plan.Node
		in   []*Frame
	}{
		{"unresolved", plan.Scan(T).Filter(col("a").Gt(lit(1))).Node(), []*Frame{{}}},
		{"a scan", scan, nil},
		{"missing input", filter, nil},
		{"nil input", filter, []*Frame{nil}},
	} {
		out, err := Eval(e, c.n, c.in)
		pe, ok := plan.AsError(err)
		if out != nil || !ok || pe.Kind != plan.InvalidPlan || !strings.HasPrefix(pe.Msg, "test: ") {
			t.Errorf("%s: got %v, %v; want an internal error", c.name, out, err)
		}
	}
}

// TestLocate fills in the node and path without overwriting a location
// already set, and turns foreign errors into *plan.Error values.
func TestLocate(t *testing.T) {
	for _, c := range []struct {
		name             string
		err              error
		kind             plan.ErrorKind
		wantNode, wantAt string
	}{
		{"bare plan error", &plan.Error{Kind: plan.Overflow, Expr: "a + 1"}, plan.Overflow, "node", "plan.input"},
		{"located", &plan.Error{Kind: plan.Overflow, Node: "inner", Path: "plan.x"}, plan.Overflow, "inner", "plan.x"},
		{"cancelled", fmt.Errorf("wrapped: %w", context.Canceled), plan.Cancelled, "node", "plan.input"},
		{"foreign", errors.New("boom"), plan.InvalidPlan, "node", "plan.input"},
	} {
		pe, ok := plan.AsError(Locate(c.err, "node", "plan.input"))
		if !ok || pe.Kind != c.kind || pe.Node != c.wantNode || pe.Path != c.wantAt {
			t.Errorf("%s: got %#v", c.name, pe)
		}
	}
	if Locate(nil, "node", "") != nil {
		t.Error("Locate(nil) is not nil")
	}
}

// TestReadColumns: what a scan reads when it applies conjuncts itself.
func TestReadColumns(t *testing.T) {
	T := table(t, "t")
	b := col("z").Gt(lit(0)).Expr()
	for _, c := range []struct {
		name string
		n    *plan.ScanNode
		want string
	}{
		{"unprojected", &plan.ScanNode{Source: T, SourceSchema: T.Schema()}, "[]"},
		{"projected", &plan.ScanNode{Source: T, SourceSchema: T.Schema(), Projected: true, Columns: []string{"a"}}, "[a]"},
		{"with a conjunct's column", &plan.ScanNode{Source: T, SourceSchema: T.Schema(), Projected: true, Columns: []string{"a"},
			Pushed: []plan.PushedPredicate{{Expr: b, Support: plan.Exact}}}, "[a z]"},
		{"nothing but a conjunct", &plan.ScanNode{Source: T, SourceSchema: T.Schema(), Projected: true, Columns: []string{},
			Pushed: []plan.PushedPredicate{{Expr: b, Support: plan.Exact}}}, "[z]"},
	} {
		got := ReadColumns(c.n, ExactConjuncts(c.n), c.n.Assumes)
		if fmt.Sprint(got) != c.want || (c.n.Projected && got == nil) || (!c.n.Projected && got != nil) {
			t.Errorf("%s: %#v, want %s", c.name, got, c.want)
		}
	}
}

// TestExtensionsRegistry: registration rules and the built-ins.
func TestExtensionsRegistry(t *testing.T) {
	r := NewExtensions()
	fn := func(context.Context, *plan.ExtensionNode, []arrow.RecordBatch, memory.Allocator) (arrow.RecordBatch, error) {
		return nil, nil
	}
	for _, c := range []struct {
		name string
		fn   ExtensionFunc
		ok   bool
	}{{"b", fn, true}, {"a", fn, true}, {"a", fn, false}, {"", fn, false}, {"c", nil, false}} {
		if err := r.Register(c.name, c.fn); (err == nil) != c.ok {
			t.Errorf("Register(%q): %v", c.name, err)
		}
	}
	if got := strings.Join(r.Names(), ","); got != "a,b" {
		t.Errorf("names %s", got)
	}
	if _, ok := r.Lookup("identity"); ok {
		t.Error("an empty registry knows identity")
	}
	if _, ok := BuiltinExtensions().Lookup("identity"); !ok {
		t.Error("the built-ins lack identity")
	}
}

// TestCellBounds: the cell readers refuse cells outside the batch.
func TestCellBounds(t *testing.T) {
	e := env(t)
	rec, err := kernel.TableRecord(e.Mem, table(t, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	for _, c := range [][2]int{{-1, 0}, {2, 0}, {0, 3}, {0, -1}} {
		if _, err := Cell(rec, c[0], c[1]); err == nil {
			t.Errorf("Cell(%d, %d) did not fail", c[0], c[1])
		}
	}
	if v, err := Cell(rec, 0, 2); err != nil || !v.Identical(i64(3)) {
		t.Errorf("Cell(0, 2) = %v, %v", v, err)
	}
}
