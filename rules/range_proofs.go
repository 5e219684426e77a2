package rules

import (
	"reflect"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// range_proofs proves partial expressions total on THIS input from the
// facts the sources state (plan.FactsReporter: in-memory tables compute
// them, Parquet files read them from their row-group statistics, a host
// source states them), so that the rules after it treat them as total:
//
//	filter [b > 0]                          filter [b > 0]
//	  project [a * 2 + 1 as y, b]    ==>      project [a * 2 + 1 as y, b]   (total by facts: a in [-1000000, 1000000])
//	    scan t                                  scan t assumes=[a in [-1000000, 1000000]]
//
// after which predicate pushdown may move the filter below the projection,
// since `a * 2 + 1` cannot overflow when |a| <= 10^6. The proof is
// interval arithmetic through the expression tree (plan.Prove) over the
// facts carried through the plan (plan.FactsAnalysis); the rule marks
// every call and strict cast it proved (plan.WithProof), which plan.Total
// then counts total in the standard tier, and adds each fact a proof used
// to every scan of the source that stated it (plan.ScanNode.Assumes: the
// fact is the source's, and identical scans stay identical for the
// executor's memo). Every
// executor checks a scan's assumptions against the rows its source yields
// and fails with a source_error naming the source, the column, the fact
// and the value when one does not hold: a proof is only as good as its
// facts, and a lying source gets a clear error, never a wrong answer.
//
// It considers the expressions of filters, projections, with_columns and
// sort keys that hold something partial (rp.facts decides each); the
// explain --why line of an allowed one names the facts ("total by facts: a
// in [-1000000, 1000000]"). It runs before the rules that move
// expressions, once. Standard tier; with its flag off no fact is used and
// no scan assumes anything.
func rangeProofs() Rule {
	return Rule{
		Name:        FlagRangeProofs,
		Doc:         "proves partial expressions total from the facts sources state about their columns; scans record the facts used, which executors check",
		Tier:        TierStandard,
		Counters:    []CounterDef{{Name: counterProvenExprs}, {Name: counterAssumedFacts}},
		Verbs:       Verbs{Verb: Verb{Allowed: "proved total at", Refused: "not proved total at"}},
		Application: "one expression proved total",
		Matches:     []plan.Kind{plan.KindFilter, plan.KindProject, plan.KindWithColumns, plan.KindSort},
		Rewrite: func(c *Context, root plan.Node) (plan.Node, error) {
			return proveRanges(c, root), nil
		},
	}
}

// FlagRangeProofs is range_proofs' flag (its name).
const FlagRangeProofs = legality.RuleRangeProofs

const (
	// counterProvenExprs counts the expressions proved total.
	counterProvenExprs = "provenExprs"
	// counterAssumedFacts counts the facts added to scans' assumptions.
	counterAssumedFacts = "assumedFacts"
)

// proveRanges is the rule's rewrite: decide over the plan as it came, then
// rebuild it with the proven expressions and the scans' assumptions.
func proveRanges(c *Context, root plan.Node) plan.Node {
	fa := plan.NewFactsAnalysis()
	proven := map[plan.Node]map[int]plan.Expr{} // node -> expression index -> proven expression
	var assumes sourceFacts
	bottomUp(root, &plan.Path{}, func(orig, n plan.Node, path *plan.Path) plan.Node {
		exprs, input := provableExprs(orig)
		if input == nil || proven[orig] != nil {
			return n
		}
		for i, e := range exprs {
			if plan.Total(e, input.Schema(), plan.TrustLanguage) {
				// Nothing to prove. Asking for the facts of the columns
				// it reads would walk down to each one's definition: a
				// select of n columns defined along a chain of n nodes
				// would cost n^2.
				continue
			}
			pr := fa.Prove(e, input)
			if !pr.Partial || (!pr.Total && !pr.Informed) {
				// Nothing to prove, or nothing to prove it with: no
				// source states anything of the columns it reads.
				continue
			}
			d := c.table.RangeProof(pr)
			if !c.Apply(d, orig, path, e) {
				continue
			}
			if proven[orig] == nil {
				proven[orig] = map[int]plan.Expr{}
			}
			proven[orig][i] = pr.Expr
			c.Count(counterProvenExprs, 1)
			for _, u := range pr.Uses {
				if u.Scan != nil && assumes.add(u.Scan, u.Fact) {
					c.Count(counterAssumedFacts, 1)
				}
			}
		}
		return n
	})
	if len(proven) == 0 {
		return root
	}
	return bottomUp(root, &plan.Path{}, func(orig, n plan.Node, path *plan.Path) plan.Node {
		if s, ok := orig.(*plan.ScanNode); ok {
			if more := assumes.newFor(s); len(more) > 0 {
				out := n.WithChildren(nil).(*plan.ScanNode)
				out.Assumes = append(append([]plan.Assumption(nil), s.Assumes...), more...)
				return out
			}
		}
		repl := proven[orig]
		if repl == nil {
			return n
		}
		out := n.WithChildren(n.Children())
		switch x := out.(type) {
		case *plan.FilterNode:
			x.Predicates = replaced(x.Predicates, repl)
		case *plan.ProjectNode:
			x.Exprs = replaced(x.Exprs, repl)
		case *plan.WithColumnsNode:
			x.Exprs = replaced(x.Exprs, repl)
		case *plan.SortNode:
			keys := append([]plan.SortKey(nil), x.Keys...)
			for i, e := range repl {
				keys[i].Expr = e
			}
			x.Keys = keys
		}
		return out
	})
}

// provableExprs returns the expressions of n the rule tries to prove, and
// the node whose output they are evaluated over (nil: none).
func provableExprs(n plan.Node) ([]plan.Expr, plan.Node) {
	switch n := n.(type) {
	case *plan.FilterNode:
		return n.Predicates, n.Input
	case *plan.ProjectNode:
		return n.Exprs, n.Input
	case *plan.WithColumnsNode:
		return n.Exprs, n.Input
	case *plan.SortNode:
		out := make([]plan.Expr, len(n.Keys))
		for i, k := range n.Keys {
			out[i] = k.Expr
		}
		return out, n.Input
	}
	return nil, nil
}

// replaced returns exprs with the entries of repl in place.
func replaced(exprs []plan.Expr, repl map[int]plan.Expr) []plan.Expr {
	out := append([]plan.Expr(nil), exprs...)
	for i, e := range repl {
		out[i] = e
	}
	return out
}

// sourceFacts collects the facts proofs used, by source: a fact is the
// source's, so every scan of that source assumes it (identical scans stay
// identical, and the executor's memo still serves one for the other; a
// scan that does not read the column does not check it).
type sourceFacts struct {
	sources []plan.Source
	facts   [][]plan.Assumption
}

// index returns the position of src, or -1.
func (f *sourceFacts) index(src plan.Source) int {
	for i, s := range f.sources {
		if sameSource(s, src) {
			return i
		}
	}
	return -1
}

// add records fact for scan's source, unless the source already has a fact
// about that column (recorded here or assumed by the scan), and reports
// whether it did.
func (f *sourceFacts) add(scan *plan.ScanNode, fact plan.Assumption) bool {
	for _, a := range scan.Assumes {
		if a.Column == fact.Column {
			return false
		}
	}
	i := f.index(scan.Source)
	if i < 0 {
		f.sources = append(f.sources, scan.Source)
		f.facts = append(f.facts, nil)
		i = len(f.sources) - 1
	}
	for _, a := range f.facts[i] {
		if a.Column == fact.Column {
			return false
		}
	}
	f.facts[i] = append(f.facts[i], fact)
	return true
}

// newFor returns the facts of s's source that s does not assume yet.
func (f *sourceFacts) newFor(s *plan.ScanNode) []plan.Assumption {
	i := f.index(s.Source)
	if i < 0 {
		return nil
	}
	var out []plan.Assumption
	for _, a := range f.facts[i] {
		have := false
		for _, b := range s.Assumes {
			have = have || b.Column == a.Column
		}
		if !have {
			out = append(out, a)
		}
	}
	return out
}

// sameSource compares sources by identity; a source of a non-comparable
// type is never the same as anything (plan.Source's contract).
func sameSource(a, b plan.Source) bool {
	if a == nil || b == nil {
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}
