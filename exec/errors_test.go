package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// Errors raised after a node has already computed some of its columns must
// release them (every case runs on a checked allocator), and the first
// error in evaluation order wins.
func TestErrorsMidNode(t *testing.T) {
	T := tableT(t)
	L := plan.Scan(T)
	divK := c("k").Div(lt(0))
	overflow := mustTable(t, "o", []plan.Field{{Name: "x", Type: plan.Int64}}, []plan.Value{plan.Int64Value(1 << 62), plan.Int64Value(1 << 62)})
	cases := []struct {
		name string
		plan plan.Node
		kind plan.ErrorKind
		expr string
	}{
		{"second projection", L.Select(c("k"), c("v").Alias("w"), divK.Alias("z")).Node(), plan.DivideByZero, "k / 0"},
		{"first of two errors wins", L.Select(c("k").Cast(plan.Int32).Alias("a"), c("s").Cast(plan.Int64).Alias("b"), divK.Alias("z")).Node(), plan.InvalidCast, "cast(s, int64)"},
		{"second with_columns", L.WithColumns(c("k").Mul(lt(2)).Alias("k2"), divK.Alias("z")).Node(), plan.DivideByZero, "k / 0"},
		{"second sort key", L.Sort(plan.Asc(c("k")), plan.Asc(divK)).Node(), plan.DivideByZero, "k / 0"},
		{"second aggregate", L.GroupBy(c("k")).Agg(c("v").Sum().Alias("a"), divK.Sum().Alias("b")).Node(), plan.DivideByZero, "k / 0"},
		{"aggregate reduction after keys", plan.Scan(overflow).GroupBy(c("x")).Agg(plan.Len().Alias("n"), c("x").Sum().Alias("s")).Node(), plan.Overflow, "sum(x)"},
		{"reduction error before a later argument error", plan.Scan(overflow).Agg(c("x").Sum().Alias("s"), c("x").Div(lt(0)).Sum().Alias("d")).Node(), plan.Overflow, "sum(x)"},
		{"second window", L.WithColumns(c("v").Sum().Over(c("k")).Alias("a"), c("v").Sum().Over(divK).Alias("b")).Node(), plan.DivideByZero, "k / 0"},
		{"window argument before keys", L.WithColumns(c("s").Cast(plan.Int64).Sum().Over(divK).Alias("a")).Node(), plan.InvalidCast, "cast(s, int64)"},
		{"right join key", L.Join(plan.Scan(T), plan.InnerJoin, []plan.E{c("k")}, []plan.E{divK}).Node(), plan.DivideByZero, "k / 0"},
		{"left join key before right", L.Join(plan.Scan(T), plan.InnerJoin, []plan.E{c("s").Cast(plan.Int64)}, []plan.E{divK}).Node(), plan.InvalidCast, "cast(s, int64)"},
		{"left input before right", L.Filter(c("s").Cast(plan.Int64).Gt(lt(0))).JoinOn(plan.Scan(T).Filter(divK.Gt(lt(0))), plan.InnerJoin, "k").Node(), plan.InvalidCast, "cast(s, int64)"},
		{"second union input", L.Union(plan.Scan(T).Filter(divK.Gt(lt(0)))).Node(), plan.DivideByZero, "k / 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, tc.plan, want{errKind: tc.kind, errExpr: tc.expr})
		})
	}
}

func TestExtensionFailures(t *testing.T) {
	T := tableT(t)
	exts := BuiltinExtensions()
	reg := func(name string, fn ExtensionFunc) *plan.ExtensionDef {
		if err := exts.Register(name, fn); err != nil {
			t.Fatal(err)
		}
		return &plan.ExtensionDef{Name: name, Inputs: 1}
	}
	failing := reg("failing", func(context.Context, *plan.ExtensionNode, []arrow.RecordBatch, memory.Allocator) (arrow.RecordBatch, error) {
		return nil, errors.New("boom")
	})
	panicking := reg("panicking", func(context.Context, *plan.ExtensionNode, []arrow.RecordBatch, memory.Allocator) (arrow.RecordBatch, error) {
		panic("bad host")
	})
	wrong := reg("wrong_shape", func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
		b := array.NewInt64Builder(mem)
		b.AppendValues([]int64{1, 2}, nil)
		a := b.NewArray()
		b.Release()
		defer a.Release()
		return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "q", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{a}, 2), nil
	})
	if err := exts.Register("failing", ops.BuiltinExtensionImpls()["identity"]); err == nil {
		t.Error("registering a name twice succeeded")
	}
	for _, tc := range []struct {
		def  *plan.ExtensionDef
		kind plan.ErrorKind
	}{{failing, plan.UDFError}, {panicking, plan.UDFError}, {wrong, plan.InvalidPlan}} {
		t.Run(tc.def.Name, func(t *testing.T) {
			_, err := Collect(context.Background(), plan.Scan(T).Extension(tc.def).Node(), Options{Mem: checked(t), Extensions: exts})
			pe, ok := plan.AsError(err)
			if !ok || pe.Kind != tc.kind || pe.Expr != tc.def.Name {
				t.Fatalf("error %v, want %s naming %s", err, tc.kind, tc.def.Name)
			}
		})
	}
}
