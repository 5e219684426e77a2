package legality

import "github.com/dfopt/dfopt/plan"

// Total reports whether e is provably unable to raise an error in the
// bounded tier (docs/design.md §3): column references and literals are total, an
// alias is as total as what it names, and a UDF call is total when the UDF
// is declared Total and every argument is total. Everything else — every
// built-in function, every cast, over() — is partial here: the seed contract
// admits nothing else as provably total.
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

// firstImmovable returns the first expression of es that is not movable,
// with a short reason, or ok=true when all are. A movable expression may be
// evaluated over a different set of rows, or at a different moment, without
// changing any outcome: it is total (it cannot raise on the rows it gains or
// loses) and deterministic (it gives the same values whatever else is
// evaluated around it). A missing (nil) expression is not movable.
func firstImmovable(es []plan.Expr) (ok bool, detail string) {
	for _, e := range es {
		if e == nil {
			return false, "missing expression"
		}
		if !Total(e) {
			return false, "`" + e.String() + "` is partial"
		}
		if !plan.IsDeterministic(e) {
			return false, "`" + e.String() + "` is non-deterministic"
		}
	}
	return true, ""
}
