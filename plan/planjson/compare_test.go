package planjson

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/dfopt/dfopt/plan"
)

// compareDocs reports how got differs from want, or "" when they are the
// same document as far as the format promises: tables bitwise (except that
// any NaN equals any NaN, since the format does not keep NaN payloads), and
// plans by plan.Equal after two normalizations — got's scans are pointed at
// want's sources by table name (plan.Equal compares sources by identity,
// and a decoded document has fresh ones), and NaN literals are canonical.
func compareDocs(want, got *Document) string {
	if want.Description != got.Description {
		return fmt.Sprintf("description %q != %q", want.Description, got.Description)
	}
	if d := compareTables(want.Tables, got.Tables); d != "" {
		return d
	}
	rebased, err := rebaseScans(got.Plan, got.Tables, want.Tables)
	if err != nil {
		return err.Error()
	}
	w, g := canonNaN(want.Plan), canonNaN(rebased)
	if !plan.Equal(w, g) {
		return fmt.Sprintf("plans differ:\n%s\n---\n%s", plan.Explain(w), plan.Explain(g))
	}
	if (want.Flags == nil) != (got.Flags == nil) || fmt.Sprint(want.Flags) != fmt.Sprint(got.Flags) {
		return fmt.Sprintf("flags %v != %v", want.Flags, got.Flags)
	}
	if (want.Expect == nil) != (got.Expect == nil) {
		return fmt.Sprintf("expect %v != %v", want.Expect, got.Expect)
	}
	if want.Expect != nil {
		we, ge := want.Expect, got.Expect
		if (we.Counters == nil) != (ge.Counters == nil) || fmt.Sprint(we.Counters) != fmt.Sprint(ge.Counters) {
			return fmt.Sprintf("counters %v != %v", we.Counters, ge.Counters)
		}
		if (we.Error == nil) != (ge.Error == nil) || (we.Error != nil && *we.Error != *ge.Error) {
			return "expect.error differs"
		}
	}
	return ""
}

func compareTables(want, got map[string]*TableSpec) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d tables != %d", len(want), len(got))
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		w, g := want[name], got[name]
		if g == nil {
			return fmt.Sprintf("table %q missing", name)
		}
		if w.Parquet != g.Parquet || (w.Inline == nil) != (g.Inline == nil) {
			return fmt.Sprintf("table %q: kind or parquet path differs", name)
		}
		if w.Inline == nil {
			continue
		}
		wt, gt := w.Inline, g.Inline
		if wt.Name() != gt.Name() || !wt.Schema().Equal(gt.Schema()) || wt.Rows() != gt.Rows() {
			return fmt.Sprintf("table %q: %s %s %d != %s %s %d", name, wt.Name(), wt.Schema(), wt.Rows(), gt.Name(), gt.Schema(), gt.Rows())
		}
		for c := 0; c < wt.Schema().Len(); c++ {
			for r, wv := range wt.Column(c) {
				if gv := gt.Column(c)[r]; !sameValue(wv, gv) {
					return fmt.Sprintf("table %q column %d row %d: %v (%x) != %v (%x)", name, c, r,
						wv, math.Float64bits(wv.Float()), gv, math.Float64bits(gv.Float()))
				}
			}
		}
	}
	return ""
}

// sameValue is Value.Identical, except that two NaNs are the same value.
func sameValue(a, b plan.Value) bool {
	if a.Type() == plan.Float64 && b.Type() == plan.Float64 && !a.IsNull() && !b.IsNull() &&
		math.IsNaN(a.Float()) && math.IsNaN(b.Float()) {
		return true
	}
	return a.Identical(b)
}

// rebaseScans points every scan of n at the source the other document has
// under the same table name.
func rebaseScans(n plan.Node, from, to map[string]*TableSpec) (plan.Node, error) {
	if n == nil {
		return nil, nil
	}
	if s, ok := n.(*plan.ScanNode); ok {
		for name, spec := range from {
			if sameSource(spec.Source(), s.Source) {
				target, ok := to[name]
				if !ok {
					return nil, fmt.Errorf("table %q missing", name)
				}
				c := s.WithChildren(nil).(*plan.ScanNode)
				c.Source = target.Source()
				return c, nil
			}
		}
		return nil, fmt.Errorf("scan %s reads no table of its document", s.Label())
	}
	children := n.Children()
	out := make([]plan.Node, len(children))
	for i, c := range children {
		r, err := rebaseScans(c, from, to)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return n.WithChildren(out), nil
}

// canonNaN replaces every NaN literal of a plan with math.NaN(), which is
// what the format reads back for any NaN.
func canonNaN(n plan.Node) plan.Node {
	if n == nil {
		return nil
	}
	children := n.Children()
	in := make([]plan.Node, len(children))
	for i, c := range children {
		in[i] = canonNaN(c)
	}
	n = n.WithChildren(in)
	es := func(xs []plan.Expr) []plan.Expr {
		out := make([]plan.Expr, len(xs))
		for i, x := range xs {
			out[i] = canonExpr(x)
		}
		return out
	}
	switch n := n.(type) {
	case *plan.ScanNode:
		n.Pushed = append([]plan.PushedPredicate(nil), n.Pushed...)
		for i := range n.Pushed {
			n.Pushed[i].Expr = canonExpr(n.Pushed[i].Expr)
		}
	case *plan.FilterNode:
		n.Predicates = es(n.Predicates)
	case *plan.ProjectNode:
		n.Exprs = es(n.Exprs)
	case *plan.WithColumnsNode:
		n.Exprs = es(n.Exprs)
	case *plan.WindowNode:
		n.Exprs = es(n.Exprs)
	case *plan.GuardNode:
		n.Exprs = es(n.Exprs)
	case *plan.SortNode:
		keys := append([]plan.SortKey(nil), n.Keys...)
		for i := range keys {
			keys[i].Expr = canonExpr(keys[i].Expr)
		}
		n.Keys = keys
	case *plan.AggregateNode:
		n.Keys, n.Aggs = es(n.Keys), es(n.Aggs)
	case *plan.TemporalGroupNode:
		n.Aggs = es(n.Aggs)
	case *plan.JoinNode:
		n.LeftOn, n.RightOn = es(n.LeftOn), es(n.RightOn)
	}
	return n
}

func canonExpr(x plan.Expr) plan.Expr {
	if l, ok := x.(*plan.Literal); ok {
		v := l.Value
		if v.Type() == plan.Float64 && !v.IsNull() && math.IsNaN(v.Float()) {
			return &plan.Literal{Value: plan.Float64Value(math.NaN())}
		}
		if v.Type() == plan.Float32 && !v.IsNull() && math.IsNaN(v.Float()) {
			return &plan.Literal{Value: plan.Float32Value(plan.Float64To32(math.NaN()))}
		}
		return x
	}
	if x == nil {
		return nil
	}
	args := x.Children()
	if len(args) == 0 {
		return x
	}
	out := make([]plan.Expr, len(args))
	for i, a := range args {
		out[i] = canonExpr(a)
	}
	return x.WithChildren(out)
}
