package legality

// equivalentMutants documents the cells whose mutant (Flip) cannot change
// any outcome of any plan, each with the reason. The mutation campaign
// (oracle.Mutation, dfopt mutate) still runs them, leaves them out of its
// score, and reports a killed one as an error of this list.
var equivalentMutants = map[CellID]string{
	PPUnknown: "unreachable: the plan's node interface is sealed and every node kind has its own pushdown cell, " +
		"so predicate_pushdown never consults the closed-world catch-all",
	PRUnknown: "unreachable: the plan's node interface is sealed and every node kind has its own pruning cell, " +
		"so projection_pruning never consults the closed-world catch-all",
	FFBoolean: "unreachable guard: plan.Resolve rejects a filter whose conjunct is not bool and the optimizer sees only " +
		"resolved plans, so the condition always holds and crosses decides the same",
	PFOnce: "reachable (a value read twice is inlined into every reader) but harmless while pf.deterministic, pf.text " +
		"and pf.inline stand: every copy is then a bare reference to a deterministic value, evaluated after total " +
		"operands only, so the first copy raises what the with_columns raised and the others recompute the same values " +
		"(time, never an outcome); with pf.deterministic flipped too, a duplicated nd_tick diverges",
	PRScan: "the condition holds wherever the cell is consulted (a scan always narrows to the required columns and " +
		"the executor keeps the row count of a scan with no column), so crosses decides the same",
	PRAggregate: "the condition holds wherever the cell is consulted (an aggregate's input always narrows to its key and " +
		"aggregate columns, and len() needs none), so crosses decides the same",
	PRPassthrough: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, " +
		"never a different outcome)",
}

// EquivalentMutant returns why flipping cell id cannot change any outcome
// (an equivalent mutant, rendered in docs/legality.md), or "" for a cell
// the mutation campaign must kill.
func EquivalentMutant(id CellID) string { return equivalentMutants[id] }
