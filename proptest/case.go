package proptest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/gen"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// Case is one generated test case: source tables, a plan over them, and the
// seed that generated it.
type Case struct {
	// Seed is the seed Generate was called with; Generate(Seed, Config)
	// rebuilds the case (before any shrinking).
	Seed int64
	// Config is the configuration Generate used, normalized (zero fields
	// replaced by the defaults).
	Config Config
	// Tables are the plan's sources (one to three), named t0, t1, t2. Every
	// scan in Plan reads one of them (by pointer identity).
	Tables []*plan.Table
	// Plan is the plan as a user would write it: unresolved, with over()
	// still inside project and with_columns (Resolve synthesizes the window
	// nodes). Subtrees may be shared by pointer (union(S, S)).
	Plan plan.Node
	// IllTyped reports that the plan does not resolve: it was corrupted on
	// purpose (see Corruption), and the three ways must fail with the same
	// resolution error. The shrinker keeps it accurate for its candidates.
	IllTyped bool
	// Corruption names how an ill-typed plan was broken (unknown_column,
	// type_error, aggregate_outside, duplicate_name, window_outside); empty
	// for a well-typed case.
	Corruption string
}

// UDFs returns the registry whose definitions generated plans call. Plan
// files written from a Case must be read back through it (for example as
// planjson.Options.UDFs) so that the UDF pointers, which plan.Equal
// compares, are the same.
func UDFs() *plan.UDFRegistry { return gen.UDFs() }

// Extensions returns the registry whose declarations generated plans use.
func Extensions() *plan.ExtensionRegistry { return gen.Extensions() }

// Table returns the case's table with the given name, or nil.
func (c Case) Table(name string) *plan.Table {
	for _, t := range c.Tables {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// String renders the case for failure reports: the seed, every table with
// its schema and values (NaN payloads shown), and the plan as explain prints
// it. gopter prints candidates with %+v, which uses this method.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "case seed=%d %s", c.Seed, Size(c))
	if c.Config != DefaultConfig() && c.Config != (Config{}) {
		fmt.Fprintf(&b, " config=%+v", c.Config)
	}
	if c.IllTyped {
		fmt.Fprintf(&b, " ill-typed(%s)", c.Corruption)
	}
	b.WriteByte('\n')
	for _, t := range c.Tables {
		fmt.Fprintf(&b, "table %s (%d rows) %s\n", t.Name(), t.Rows(), t.Schema())
		for i := 0; i < t.Schema().Len(); i++ {
			col := t.Column(i)
			parts := make([]string, len(col))
			for r, v := range col {
				parts[r] = formatValue(v)
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", t.Schema().Field(i).Name, strings.Join(parts, ", "))
		}
	}
	b.WriteString("plan:\n")
	if c.Plan == nil {
		b.WriteString("<nil>\n")
	} else {
		b.WriteString(plan.Explain(c.Plan))
	}
	return b.String()
}

// TablesEqual reports whether two tables have the same name, schema,
// pushdown policy and values, floats compared by bits.
func TablesEqual(a, b *plan.Table) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Name() != b.Name() || a.Rows() != b.Rows() || a.Pushdown() != b.Pushdown() || a.ExactAllPushdown() != b.ExactAllPushdown() ||
		a.ZoneRows() != b.ZoneRows() || !a.Schema().Equal(b.Schema()) {
		return false
	}
	for i := 0; i < a.Schema().Len(); i++ {
		ca, cb := a.Column(i), b.Column(i)
		for r := range ca {
			if !ca[r].Identical(cb[r]) {
				return false
			}
		}
	}
	return true
}

// Equal reports whether two cases are the same case: equal seeds, configs
// and flags,
// bitwise-equal tables, and structurally equal plans once b's scans are
// mapped to a's tables (plan.Equal compares sources by identity, and two
// generations of one seed build distinct but identical tables).
func Equal(a, b Case) bool {
	if a.Seed != b.Seed || a.Config != b.Config || a.IllTyped != b.IllTyped || a.Corruption != b.Corruption || len(a.Tables) != len(b.Tables) {
		return false
	}
	remap := make(map[*plan.Table]*plan.Table, len(b.Tables))
	for i := range a.Tables {
		if !TablesEqual(a.Tables[i], b.Tables[i]) {
			return false
		}
		remap[b.Tables[i]] = a.Tables[i]
	}
	return plan.Equal(a.Plan, rebindScans(b.Plan, remap))
}

// CanonicalNaNs returns c with every NaN, in the tables and in the plan's
// literals, replaced by math.NaN(). The plan file format (dfopt-plan/1)
// keeps no NaN payloads, so before a minimized counterexample is written to
// the regression corpus the oracle should check that this form still fails
// (Shrink already prefers it when the failure does not need the payload).
func CanonicalNaNs(c Case) Case {
	remap := map[*plan.Table]*plan.Table{}
	tables := make([]*plan.Table, len(c.Tables))
	for i, t := range c.Tables {
		tables[i] = t
		cols := make([][]plan.Value, t.Schema().Len())
		changed := false
		for j := range cols {
			src := t.Column(j)
			out := make([]plan.Value, len(src))
			for r, v := range src {
				out[r] = canonical(v)
				changed = changed || !out[r].Identical(v)
			}
			cols[j] = out
		}
		if !changed {
			continue
		}
		if nt, err := plan.NewTable(t.Name(), t.Schema(), cols); err == nil {
			nt = planutil.WithPolicyOf(nt, t)
			tables[i] = nt
			remap[t] = nt
		}
	}
	c.Tables = tables
	p := rebindScans(c.Plan, remap)
	c.Plan = rewrite(p, func(n plan.Node) plan.Node {
		return mapEntries(n, func(_ int, e plan.Expr) plan.Expr { return canonicalExpr(e) })
	})
	return c
}

// canonicalExpr replaces NaN literal payloads inside e, returning e itself
// when it holds none.
func canonicalExpr(e plan.Expr) plan.Expr {
	if l, ok := e.(*plan.Literal); ok {
		if v := canonical(l.Value); !v.Identical(l.Value) {
			return lit(v)
		}
		return e
	}
	ch := e.Children()
	if len(ch) == 0 {
		return e
	}
	var args []plan.Expr
	for i, a := range ch {
		if na := canonicalExpr(a); na != a {
			if args == nil {
				args = append([]plan.Expr(nil), ch...)
			}
			args[i] = na
		}
	}
	if args == nil {
		return e
	}
	return e.WithChildren(args)
}

// formatValue renders a table cell for Case.String: as plan.Value.String,
// with the NaN payload shown so that two NaNs can be told apart.
func formatValue(v plan.Value) string {
	if !v.IsNull() && v.Type() == plan.Float64 && math.IsNaN(v.Float()) {
		return "NaN(0x" + strconv.FormatUint(math.Float64bits(v.Float()), 16) + ")"
	}
	return v.String()
}
