package legality

import "github.com/dfopt/dfopt/plan"

// Totality is what a table counts as total — unable to raise an error on
// any rows — whenever it asks whether an expression may meet other rows or
// be evaluated at another moment: a projection or sort a conjunct crosses,
// the conjuncts left above one that moves, an outer filter fused into the
// one below, an inlined value, a dead entry pruning would drop. Each tier
// of the optimizer has its own (rules.Tier chooses it, and rules.Optimize
// hands the rules Table.WithTotality of it); every such question goes
// through Table.Total, so the tier's totality is decided in one place.
type Totality uint8

// The totalities, the smaller first.
const (
	// BoundedTotality is the founding contract's (Total): column references,
	// literals, aliases of total expressions and declared-total UDFs over
	// total arguments, whatever their types.
	BoundedTotality Totality = iota
	// StandardTotality is the lattice over every built-in (plan.Total with
	// plan.TrustDeclared, docs/semantics.md, Totality), over the schema the
	// expression is evaluated on: comparisons, logic, float arithmetic,
	// casts that cannot fail and the like are total there. A table of this
	// totality also decides the crossings the standard tier adds, whose
	// conditions are stated in its terms: conjuncts below aggregates,
	// distincts and into every union input.
	StandardTotality
)

// String returns "bounded" or "standard", the names of the tiers that use
// them.
func (k Totality) String() string {
	if k == StandardTotality {
		return "standard"
	}
	return "bounded"
}

// Total reports whether e is provably unable to raise an error in the
// bounded tier (docs/design.md §3): column references and literals are total, an
// alias is as total as what it names, and a UDF call is total when the UDF
// is declared Total and every argument is total. Everything else — every
// built-in function, every cast, over() — is partial here: the seed contract
// admits nothing else as provably total. It is the totality of a table of
// BoundedTotality (Table.Total).
func Total(e plan.Expr) bool {
	for {
		switch x := e.(type) {
		case *plan.Column, *plan.Literal:
			return true
		case *plan.Alias:
			e = x.Expr
			continue
		case *plan.UDFCall:
			if x.UDF == nil || !x.UDF.Total {
				return false
			}
			for _, a := range x.Args {
				if !Total(a) {
					return false
				}
			}
			return true
		}
		return false
	}
}

// Totality returns the totality the table decides with.
func (t *Table) Totality() Totality { return t.orDefault().totality }

// WithTotality returns a table deciding like t, with the same cells and
// verdicts, under totality k; t is not changed. It shares t's cells, so it
// costs one small allocation (none for the default table, nor when t
// already has k).
func (t *Table) WithTotality(k Totality) *Table {
	t = t.orDefault()
	switch {
	case t.totality == k:
		return t
	case t == defaultTable && k == StandardTotality:
		return defaultStandardTable
	case t == defaultStandardTable && k == BoundedTotality:
		return defaultTable
	}
	c := *t
	c.totality = k
	return &c
}

// defaultStandardTable is Default() under StandardTotality, made once: the
// table every standard-tier Optimize call without a table of its own
// consults.
var defaultStandardTable = func() *Table {
	c := *defaultTable
	c.totality = StandardTotality
	return &c
}()

// Total reports whether e raises no error on any rows of schema in, the
// rows it is evaluated over (the input of the node that evaluates it), under
// the table's totality: Total(e) for BoundedTotality, which needs no schema;
// plan.Total(e, in, plan.TrustDeclared) for StandardTotality, which needs
// the types (an expression that does not type over in is not total). A
// missing (nil) expression is not total.
func (t *Table) Total(e plan.Expr, in plan.Schema) bool {
	if e == nil {
		return false
	}
	if t.orDefault().totality == StandardTotality {
		return plan.Total(e, in, plan.TrustDeclared)
	}
	return Total(e)
}

// firstImmovable returns the first expression of es that is not movable
// over schema in, with a short reason, or ok=true when all are. A movable
// expression may be evaluated over a different set of rows, or at a
// different moment, without changing any outcome: it is total for the
// table (it cannot raise on the rows it gains or loses) and deterministic
// (it gives the same values whatever else is evaluated around it). A
// missing (nil) expression is not movable.
func (t *Table) firstImmovable(es []plan.Expr, in plan.Schema) (ok bool, detail string) {
	for _, e := range es {
		if e == nil {
			return false, "missing expression"
		}
		if !t.Total(e, in) {
			return false, "`" + e.String() + "` is partial"
		}
		if !plan.IsDeterministic(e) {
			return false, "`" + e.String() + "` is non-deterministic"
		}
	}
	return true, ""
}
