package kernel

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// everyExpr lists one expression per function and per cast (every pair of
// types, strict and not) over the propSchema columns.
func everyExpr() []plan.Expr {
	var es []plan.Expr
	c := func(n string) plan.Expr { return &plan.Column{Name: n} }
	for _, fn := range []plan.Func{plan.FuncAdd, plan.FuncSub, plan.FuncMul, plan.FuncDiv, plan.FuncMod} {
		es = append(es, call(fn, c("a"), c("b")), call(fn, c("x"), c("y")), call(fn, c("x"), c("a")), call(fn, c("f"), c("a")))
	}
	for _, fn := range []plan.Func{plan.FuncNeg, plan.FuncAbs} {
		es = append(es, call(fn, c("a")), call(fn, c("x")), call(fn, c("f")))
	}
	for _, fn := range []plan.Func{plan.FuncEq, plan.FuncNe, plan.FuncLt, plan.FuncLe, plan.FuncGt, plan.FuncGe} {
		es = append(es, call(fn, c("a"), c("b")), call(fn, c("x"), c("f")), call(fn, c("s"), c("t")), call(fn, c("p"), c("q")))
	}
	es = append(es, call(plan.FuncAnd, c("p"), c("q")), call(plan.FuncOr, c("p"), c("q")), call(plan.FuncNot, c("p")),
		call(plan.FuncIsNull, c("s")), call(plan.FuncIsNotNull, c("f")), call(plan.FuncIsNaN, c("f")),
		call(plan.FuncStrLen, c("s")), call(plan.FuncConcat, c("s"), c("t")),
		call(plan.FuncIf, c("p"), c("a"), c("x")), call(plan.FuncIf, c("p"), c("s"), c("t")),
		call(plan.FuncCoalesce, c("f"), c("a")), call(plan.FuncCoalesce, c("q"), c("p")))
	for _, fn := range []plan.Func{plan.FuncYear, plan.FuncMonth, plan.FuncDay, plan.FuncWeekday} {
		es = append(es, call(fn, c("d")), call(fn, c("m")))
	}
	for _, fn := range []plan.Func{plan.FuncHour, plan.FuncMinute, plan.FuncSecond} {
		es = append(es, call(fn, c("m")))
	}
	es = append(es, call(plan.FuncAdd, c("d"), c("u")), call(plan.FuncAdd, c("u"), c("m")), call(plan.FuncSub, c("d"), c("e")),
		call(plan.FuncSub, c("m"), c("n")), call(plan.FuncSub, c("u"), c("v")), call(plan.FuncLt, c("d"), c("e")),
		call(plan.FuncEq, c("u"), c("v")), call(plan.FuncIf, c("p"), c("m"), c("n")), call(plan.FuncCoalesce, c("d"), c("e")))
	for _, from := range plan.Types() {
		for _, to := range plan.Types() {
			if !plan.CanCast(from, to) {
				continue
			}
			for _, strictCast := range []bool{true, false} {
				es = append(es, &plan.Cast{Expr: c(colsOf[from][0]), To: to, Strict: strictCast})
			}
		}
	}
	u, _ := propUDFs.Lookup("inc_wrap")
	es = append(es, &plan.UDFCall{UDF: u, Args: []plan.Expr{c("a")}})
	return es
}

// TestEveryFunctionEmptyAndAllNull evaluates every function and cast over
// an empty batch and over all-null columns (with and without a slice): no
// error, the right length, and the reference's values.
func TestEveryFunctionEmptyAndAllNull(t *testing.T) {
	for _, rows := range []int{0, 3, 11} {
		data := map[string][]plan.Value{}
		var cols []column
		for _, f := range propSchema.Fields() {
			vs := make([]plan.Value, rows)
			for i := range vs {
				vs[i] = plan.NullValue(f.Type)
			}
			data[f.Name] = vs
			cols = append(cols, colOf(f.Name, f.Type, vs...))
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rec := mkBatch(t, mem, cols...)
		// The slice drops row 0, so its arrays start at bit offset 1.
		sl := rec.NewSlice(int64(min(1, rows)), int64(rows))
		for _, b := range []arrow.RecordBatch{rec, sl} {
			idx := make([]int, b.NumRows()) // every row is null: any rows of data will do
			for i := range idx {
				idx[i] = i
			}
			for _, e := range everyExpr() {
				want, werr := refEval(&refEnv{ctx: context.Background(), cols: data, schema: propSchema}, e, idx)
				if werr != nil {
					t.Fatalf("%s: reference failed: %s", e, werr)
				}
				got, err := evalValues(t, mem, e, b, 0)
				checkOutcome(t, e, got, err, want, nil)
			}
		}
		sl.Release()
		rec.Release()
		mem.AssertSize(t, 0)
	}
}
