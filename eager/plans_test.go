package eager_test

import (
	"testing"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/eager/internal/eagertest"
	"github.com/dfopt/dfopt/plan"
)

// TestPlans runs every case through FromPlan over the tree as written, over
// the resolved tree and over its Unresolved copy (which keeps the
// synthesized window nodes), and through the DataFrame methods, and holds
// each outcome against the expectation and against plan.Resolve: the same
// schema (names, types, nullability) on success, the same error (kind and
// expression) when Resolve fails.
func TestPlans(t *testing.T) {
	for _, c := range eagertest.AllCases() {
		t.Run(c.Name, func(t *testing.T) {
			mem := eagertest.Checked(t)
			opts := eager.Options{Mem: mem}
			resolved, rerr := plan.Resolve(c.Node)
			if c.Err == nil && rerr != nil {
				t.Fatalf("case does not resolve: %v", rerr)
			}
			df, err := eager.FromPlan(bg, c.Node, opts)
			verify(t, "FromPlan", c, df, err, resolved, rerr)
			if rerr == nil {
				df, err = eager.FromPlan(bg, resolved, opts)
				verify(t, "FromPlan(resolved)", c, df, err, resolved, rerr)
				df, err = eager.FromPlan(bg, plan.Unresolved(resolved), opts)
				verify(t, "FromPlan(Unresolved(resolved))", c, df, err, resolved, rerr)
			}
			if !c.NoMethods {
				df, err = viaMethods(eager.NewSession(bg, opts), c.Node)
				verify(t, "methods", c, df, err, resolved, rerr)
			}
		})
	}
}

// verify checks one outcome and releases the frame.
func verify(t *testing.T, what string, c eagertest.Case, df *eager.DataFrame, err error, resolved plan.Node, rerr error) {
	t.Helper()
	defer df.Release()
	if c.Err != nil {
		eagertest.CheckErr(t, what, err, c.Err)
		if rerr != nil {
			eagertest.SameError(t, what+" vs Resolve", err, rerr)
			if pe, _ := plan.AsError(err); what != "methods" && pe.Path != rerr.(*plan.Error).Path {
				t.Errorf("%s: path %q, Resolve says %q", what, pe.Path, rerr.(*plan.Error).Path)
			}
		}
		if df != nil {
			t.Fatalf("%s: a frame alongside the error", what)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !df.Schema().Equal(resolved.Schema()) {
		t.Fatalf("%s: schema %s, Resolve says %s", what, df.Schema(), resolved.Schema())
	}
	if d := eagertest.DiffRows(rowsOf(t, df), c.Want); d != "" {
		t.Fatalf("%s: %s", what, d)
	}
}

// viaMethods evaluates an unresolved plan through the public DataFrame
// methods, one step at a time, bottom-up: an independent driver of the
// same operations, so that the methods are tested on every case.
func viaMethods(s *eager.Session, n plan.Node) (*eager.DataFrame, error) {
	var ins []*eager.DataFrame
	defer func() {
		for _, f := range ins {
			f.Release()
		}
	}()
	if _, ok := n.(*plan.ScanNode); !ok && n != nil {
		for _, c := range n.Children() {
			f, err := viaMethods(s, c)
			if err != nil {
				return nil, err
			}
			ins = append(ins, f)
		}
	}
	switch n := n.(type) {
	case *plan.ScanNode:
		t, ok := n.Source.(*plan.Table)
		if !ok {
			return eager.NewSession(bg, eager.Options{}).FromPlan(n)
		}
		if len(n.Pushed) > 0 || n.Projected {
			return s.FromPlan(n) // projections and pushed conjuncts are the scan's own
		}
		return s.FromTable(t)
	case *plan.FilterNode:
		return ins[0].Filter(n.Predicates...)
	case *plan.ProjectNode:
		return ins[0].Select(n.Exprs...)
	case *plan.WithColumnsNode:
		return ins[0].WithColumns(n.Exprs...)
	case *plan.WindowNode:
		return ins[0].Window(n.Exprs...)
	case *plan.SortNode:
		return ins[0].Sort(n.Keys...)
	case *plan.LimitNode:
		return ins[0].Head(n.N)
	case *plan.SliceNode:
		return ins[0].Slice(n.Offset, n.Len)
	case *plan.AggregateNode:
		return ins[0].GroupBy(n.Keys...).Agg(n.Aggs...)
	case *plan.JoinNode:
		if n.HasOptions() {
			return ins[0].JoinWith(ins[1], n.How, n.LeftOn, n.RightOn, n.Suffix, plan.JoinOptions{Coalesce: n.Coalesce,
				NullsEqual: n.NullsEqual, Validate: n.Validate, Residual: plan.Wrap(n.Residual)})
		}
		return ins[0].Join(ins[1], n.How, n.LeftOn, n.RightOn, n.Suffix)
	case *plan.UnionNode:
		if len(ins) == 0 {
			return s.FromPlan(n)
		}
		if n.Diagonal {
			return ins[0].ConcatDiagonal(ins[1:]...)
		}
		return ins[0].Concat(ins[1:]...)
	case *plan.DistinctNode:
		return ins[0].Distinct(n.Subset...)
	case *plan.ExtensionNode:
		if len(ins) == 0 {
			return s.FromPlan(n)
		}
		return ins[0].Extension(n.Def, ins[1:]...)
	}
	return s.FromPlan(n)
}
