package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// TestScanGuards: a scan's guards (plan.ScanNode.Guards) meet every row
// its source yields before the pushed conjuncts — over an in-memory table
// (exactly filtered by the executor, or zone-mapped), and over a host
// source that does not honour guards (given no conjunct) — raising the
// error the guard node above the scan would raise, at the same source row,
// and else yielding the rows the pushed conjuncts keep; the guard's
// columns are read even where the scan's projection leaves them out.
func TestScanGuards(t *testing.T) {
	i64 := plan.Int64Value
	k := []plan.Value{i64(5), i64(1), i64(5), i64(1)}
	a := []plan.Value{i64(10), i64(20), i64(30), i64(40)}
	bOK := []plan.Value{i64(2), i64(4), i64(5), i64(8)}
	bZero := []plan.Value{i64(2), i64(4), i64(0), i64(8)} // 0 on a row k = 1 drops
	fields := []plan.Field{{Name: "k", Type: plan.Int64}, {Name: "a", Type: plan.Int64}, {Name: "b", Type: plan.Int64}}
	div := &plan.Call{Fn: plan.FuncGt, Args: []plan.Expr{
		&plan.Call{Fn: plan.FuncDiv, Args: []plan.Expr{&plan.Column{Name: "a"}, &plan.Column{Name: "b"}}},
		&plan.Literal{Value: i64(1)}}}
	keq := &plan.Call{Fn: plan.FuncEq, Args: []plan.Expr{&plan.Column{Name: "k"}, &plan.Literal{Value: i64(1)}}}
	sources := map[string]func(t *testing.T, b []plan.Value) plan.Source{
		"table exact": func(t *testing.T, b []plan.Value) plan.Source {
			return mustTable(t, "t", fields, k, a, b).WithPushdown(plan.Exact)
		},
		"table zone maps": func(t *testing.T, b []plan.Value) plan.Source {
			return mustTable(t, "t", fields, k, a, b).WithZoneMaps(1)
		},
		"arrow host": func(t *testing.T, b []plan.Value) plan.Source {
			rec, err := kernel.TableRecord(memory.DefaultAllocator, mustTable(t, "t", fields, k, a, b))
			if err != nil {
				t.Fatal(err)
			}
			at := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
			rec.Release()
			src, err := NewArrowSource("t", at)
			at.Release()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(src.Release)
			return src
		},
	}
	for name, mk := range sources {
		for _, c := range []struct {
			name    string
			b       []plan.Value
			support plan.PredicateSupport
			want    want
		}{
			{"no error", bOK, plan.Exact, want{cols: []col{{"a", []plan.Value{i64(20), i64(40)}}}}},
			{"error on a row k = 1 drops", bZero, plan.Exact, want{errKind: plan.DivideByZero, errExpr: "a / b"}},
			{"inexact: error too", bZero, plan.Inexact, want{errKind: plan.DivideByZero, errExpr: "a / b"}},
		} {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				src := mk(t, c.b)
				scan := &plan.ScanNode{Source: src, SourceSchema: src.Schema(), Projected: true, Columns: []string{"a"},
					Pushed: []plan.PushedPredicate{{Expr: keq, Support: c.support}}, Guards: []plan.Expr{div}}
				if c.support == plan.Inexact {
					// The plan keeps an Inexact conjunct above; the
					// projection must then keep k.
					scan.Columns = []string{"k", "a"}
					n := &plan.ProjectNode{Input: &plan.FilterNode{Input: scan, Predicates: []plan.Expr{keq}},
						Exprs: []plan.Expr{&plan.Column{Name: "a"}}}
					check(t, resolved(t, n), c.want)
					return
				}
				check(t, resolved(t, scan), c.want)
				if c.want.errKind != "" {
					err := checkWith(t, resolved(t, scan), c.want, Options{Parallelism: 1})
					if pe, _ := plan.AsError(err); pe == nil || pe.Row != 2 {
						t.Errorf("error %v: want row 2 of the source", err)
					}
				}
			})
		}
	}
}

func resolved(t *testing.T, n plan.Node) plan.Node {
	t.Helper()
	r, err := plan.Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
