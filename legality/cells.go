package legality

// The cell IDs of the bounded tier; docs/legality.md lists them with their
// conditions. Each belongs to one rule and is decided by exactly one query
// of this package (a method of Table, NodeCheck or InlineCheck; Pushdown
// and PushdownNode delegate to those), which its rule may ask at several
// places. The closed-world catch-alls pp.unknown and pr.unknown are the
// fallback of every query of their rule.
const (
	// predicate_pushdown
	PPProject           CellID = "pp.project"
	PPProjectShadow     CellID = "pp.project.shadow"
	PPWithColumns       CellID = "pp.with_columns"
	PPWithColumnsShadow CellID = "pp.with_columns.shadow"
	PPSort              CellID = "pp.sort"
	PPScan              CellID = "pp.scan"
	// PPScanMerge decides whether an Exact conjunct may join a scan's
	// pushed list after another filter's Exact conjuncts.
	PPScanMerge CellID = "pp.scan.merge"
	// PPScanSkip decides whether an Inexact conjunct may join a scan's
	// pushed list that holds an Exact conjunct: a source may skip rows by
	// an Inexact conjunct before its Exact ones meet them.
	PPScanSkip      CellID = "pp.scan.skip"
	PPSplit         CellID = "pp.split"
	PPDeterministic CellID = "pp.deterministic"
	PPFilter        CellID = "pp.filter"
	PPLimit         CellID = "pp.limit"
	PPSlice         CellID = "pp.slice"
	PPAggregate     CellID = "pp.aggregate"
	PPJoin          CellID = "pp.join"
	PPWindow        CellID = "pp.window"
	PPUnion         CellID = "pp.union"
	PPDistinct      CellID = "pp.distinct"
	PPExtension     CellID = "pp.extension"
	// PPExtensionRowPreserving, PPExtensionOrderPreserving,
	// PPExtensionDeterministic and PPExtensionPassthrough decide whether a
	// conjunct crosses a one-input extension that declares properties.
	PPExtensionRowPreserving   CellID = "pp.extension.row_preserving"
	PPExtensionOrderPreserving CellID = "pp.extension.order_preserving"
	PPExtensionDeterministic   CellID = "pp.extension.deterministic"
	PPExtensionPassthrough     CellID = "pp.extension.passthrough"
	PPUnknown                  CellID = "pp.unknown"
	FFTotalOuter               CellID = "ff.total_outer"
	FFBoolean                  CellID = "ff.boolean"
	PFInline                   CellID = "pf.inline"
	PFDeterministic            CellID = "pf.deterministic"
	PFOnce                     CellID = "pf.once"
	PFCapture                  CellID = "pf.capture"
	PFHolder                   CellID = "pf.holder"
	PRProject                  CellID = "pr.project"
	PRWithColumns              CellID = "pr.with_columns"
	// PRWithColumnsEmpty decides whether a with_columns left with no entry
	// goes.
	PRWithColumnsEmpty CellID = "pr.with_columns.empty"
	PRScan             CellID = "pr.scan"
	PRAggregate        CellID = "pr.aggregate"
	PRJoin             CellID = "pr.join"
	PRPassthrough      CellID = "pr.passthrough"
	PRDistinct         CellID = "pr.distinct"
	PRWindow           CellID = "pr.window"
	PRUnion            CellID = "pr.union"
	PRExtension        CellID = "pr.extension"
	// PRExtensionPassthrough decides whether requirements narrow below a
	// one-input extension that declares properties.
	PRExtensionPassthrough CellID = "pr.extension.passthrough"
	PRUnknown              CellID = "pr.unknown"
	SSDeterministic        CellID = "ss.deterministic"
	SSStructural           CellID = "ss.structural"
	SSNested               CellID = "ss.nested"
	// SSExtensionDeterministic decides whether a subtree holding extensions
	// may be shared.
	SSExtensionDeterministic CellID = "ss.extension.deterministic"
	// collapse_cross_join (standard tier): decided by Table.CollapseKey,
	// CollapseKeyColumn and CollapseRest.
	CCJDeterministic CellID = "ccj.deterministic"
	CCJTotal         CellID = "ccj.total"
	CCJFloat         CellID = "ccj.float"
	CCJKeyColumn     CellID = "ccj.key_column"
	CCJRest          CellID = "ccj.rest"
	// semi_pushdown (standard tier): decided by Table.SemiPush.
	SPSide       CellID = "sp.side"
	SPOptions    CellID = "sp.options"
	SPKeys       CellID = "sp.keys"
	SPRightInput CellID = "sp.right_input"
	// join_order (standard tier): decided by Table.JoinOrder.
	JODeterministic CellID = "jo.deterministic"
	JOErrors        CellID = "jo.errors"
	// JOReduce decides whether a reordered chain's input may be numbered
	// after a semi join against another input of the chain.
	JOReduce CellID = "jo.reduce"
	// semi_reduction (standard tier): decided by Table.SemiReduce.
	SRRows   CellID = "sr.rows"
	SRSource CellID = "sr.source"
	// build_side (standard tier): decided by Table.BuildLeft.
	BSKind     CellID = "bs.kind"
	BSEstimate CellID = "bs.estimate"
	// limit_pushdown (standard tier): lp.* are decided by Table.LimitPast.
	LPProject       CellID = "lp.project"
	LPWithColumns   CellID = "lp.with_columns"
	LPDeterministic CellID = "lp.deterministic"
	LPSort          CellID = "lp.sort"
	LPUnion         CellID = "lp.union"
	LPScan          CellID = "lp.scan"
	LPFilter        CellID = "lp.filter"
	LPAggregate     CellID = "lp.aggregate"
	LPJoin          CellID = "lp.join"
	LPDistinct      CellID = "lp.distinct"
	LPWindow        CellID = "lp.window"
	LPExtension     CellID = "lp.extension"
	LPLimit         CellID = "lp.limit"
	LPUnknown       CellID = "lp.unknown"
)

// The cells of the standard tier's crossings of predicate_pushdown and
// projection_pruning: each decides a rewrite the bounded tier leaves to the
// barrier next to it (pp.filter, pp.aggregate, pp.join, pp.union,
// pp.distinct, pr.union), which in the standard tier still refuses what its
// counterexample is about.
const (
	// PPFilterTotal decides whether a total conjunct moves below another
	// filter's remaining conjuncts.
	PPFilterTotal CellID = "pp.filter.total"
	// PPAggregateTotal and PPAggregateKeys decide whether a conjunct moves
	// below an aggregate: its keys and aggregates must not raise, and the
	// conjunct must see a group's rows alike.
	PPAggregateTotal CellID = "pp.aggregate.total"
	PPAggregateKeys  CellID = "pp.aggregate.keys"
	// PPDistinctKeys decides whether a conjunct on a distinct's subset moves
	// below it.
	PPDistinctKeys CellID = "pp.distinct.keys"
	// PPUnionInputs lets a total conjunct into every union input.
	PPUnionInputs CellID = "pp.union.inputs"
	// The join cells (arm join_pushdown): the keys must not raise
	// (PPJoinKeys), a conjunct moves into an input the join preserves
	// (PPJoinPreserved), never into one that supplies nulls (one barrier
	// per such input), and a conjunct on an inner join's keys also filters
	// the other input by its keys (PPJoinKeyEquivalence).
	PPJoinKeys           CellID = "pp.join.keys"
	PPJoinPreserved      CellID = "pp.join.preserved"
	PPJoinLeftRightSide  CellID = "pp.join.left.right_side"
	PPJoinRightLeftSide  CellID = "pp.join.right.left_side"
	PPJoinFullLeftSide   CellID = "pp.join.full.left_side"
	PPJoinFullRightSide  CellID = "pp.join.full.right_side"
	PPJoinKeyEquivalence CellID = "pp.join.key_equivalence"
	// The join option cells (arm join_pushdown): a conjunct never enters
	// an input whose key uniqueness validate checks (PPJoinValidate), and
	// moves into a semi or anti join's left input only when the residual
	// cannot raise (PPJoinResidual).
	PPJoinValidate CellID = "pp.join.validate"
	PPJoinResidual CellID = "pp.join.residual"
	// PRUnionInputs passes the requirement into every union input (arm
	// union_pruning).
	PRUnionInputs CellID = "pr.union.inputs"
	// PRTwins prunes subtrees that were equal before pruning for the union
	// of their consumers' requirements (arm twin_pruning), so that they stay
	// equal and the executor's memo evaluates them once.
	PRTwins CellID = "pr.twins"
)

// defaultCells is every built-in cell: the founding rules' (coreCells),
// then the groups of the rules that declare their cells in a file of their
// own. Order: by rule, in the order the rules run; docs/legality.md and the
// mutation table list them in this order.
var defaultCells = concatCells(
	simplifyCells,
	rangeProofsCells,
	orImpliedCells,
	coreCells,
	orderNodeCells,
	asofNodeCells,
	reshapeNodeCells,
	nestedNodeCells,
	errorGuardCells,
)

// concatCells returns the groups' cells in one new slice.
func concatCells(groups ...[]Cell) []Cell {
	var out []Cell
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// coreCells is the table of the first rules (docs/legality.md, extended
// where the code needs a cell of its own). Each cell carries its whole
// argument: its condition and counterexample, and, where they apply, why
// its mutant is equivalent and which outcomes its condition rules out.
var coreCells = []Cell{
	// predicate_pushdown: conjunct-level cells first, then one per node kind.
	{ID: PPDeterministic, Rule: RulePredicatePushdown, Node: "any", Verdict: CrossesIf,
		Condition: "the conjunct calls no non-deterministic UDF",
		Reason:    "nd_seq(a) > 5 pushed below a sort sees its rows in another order, so the counter gives other values"},
	{ID: PPSplit, Rule: RulePredicatePushdown, Node: "filter", Verdict: CrossesIf,
		Condition: "a filter's conjuncts separate only when every conjunct left above is total and deterministic; moved conjuncts keep their order; at a scan, a lone Inexact conjunct (none Exact) does not count as left above: the source skips only rows on which it is false or null, without raising",
		Reason:    "filter(a / b > 1, k = 1) over a rename of k: if k = 1 moves alone, a / b meets fewer rows and its error vanishes"},
	{ID: PPFilter, Rule: RulePredicatePushdown, Node: "filter", Verdict: Barrier,
		Reason: "conjuncts never move below another filter's remaining conjuncts (adjacent filters are filter_fusion's): filter(a / b > 1) . filter(b != 0) must keep the guard first"},
	{ID: PPFilterTotal, Rule: RulePredicatePushdown, Node: "filter", Verdict: CrossesIf,
		Condition: "standard tier: a conjunct moves below another filter's remaining conjuncts when it is total and deterministic (pp.filter stops the others) and so is every conjunct left in place, as fusing the two filters (ff.total_outer) and separating them (pp.split) would ask",
		Reason:    "filter(k > 0) . filter(x / b > 1) . with_columns(a as x): x / b stays above the with_columns; k > 0 moved below it would hide the rows where k <= 0 and b = 0 from x / b, and its divide_by_zero would vanish"},
	{ID: PPProject, Rule: RulePredicatePushdown, Node: "project", Verdict: CrossesIf,
		Condition: "every projection expression is total and deterministic",
		Reason:    "project(a, a / b as x) . filter(a > 0): below the project, a / b would meet fewer rows"},
	{ID: PPProjectShadow, Rule: RulePredicatePushdown, Node: "project", Verdict: CrossesIf,
		Condition:  "every name the conjunct reads is output by the same-name identity reference (col(a) as a)",
		Reason:     "project(b as a) . filter(a > 0) moved below would test the input's a; substituting b would rename the conjunct's errors",
		Equivalent: "reachable, but the mutant substitutes the definition for the name (it never tests the input's column), and a substitution records the name as the definition's origin (plan.WithOrigin), so the moved conjunct raises errors naming what was written; while pp.project demands a total projection, the substituted definition meets the same values on fewer rows and cannot raise: the refusal keeps the bounded tier's plans, not an outcome"},
	{ID: PPWithColumns, Rule: RulePredicatePushdown, Node: "with_columns", Verdict: CrossesIf,
		Condition: "every with_columns expression is total and deterministic",
		Reason:    "with_columns(a / b as x) . filter(b != 0) must still raise divide_by_zero"},
	{ID: PPWithColumnsShadow, Rule: RulePredicatePushdown, Node: "with_columns", Verdict: CrossesIf,
		Condition:  "the conjunct reads no column the node adds or replaces, a same-name identity (col(a) as a) excepted",
		Reason:     "with_columns(lit(0) as a) . filter(a = 0) keeps every row; below, it tests the input's a",
		Equivalent: "reachable, but the mutant substitutes the assigned expression for the name (it never tests the input's column), and a substitution records the name as its origin (plan.WithOrigin), so errors name what was written; while pp.with_columns demands total expressions, the substituted one cannot raise on the fewer rows it meets: the refusal keeps the bounded tier's plans, not an outcome"},
	{ID: PPSort, Rule: RulePredicatePushdown, Node: "sort", Verdict: CrossesIf,
		Condition: "every sort key is total and deterministic",
		Reason:    "sort(a / b) . filter(b != 0) must still raise divide_by_zero"},
	{ID: PPScan, Rule: RulePredicatePushdown, Node: "scan", Verdict: CrossesIf,
		Condition: "the source classifies the conjunct Exact (the conjunct leaves the plan) or Inexact (it stays above too)",
		Reason:    "a source that skips row groups by statistics still returns non-matching rows, so an Inexact conjunct must stay"},
	{ID: PPScanMerge, Rule: RulePredicatePushdown, Node: "scan", Verdict: CrossesIf,
		Condition: "a conjunct the source classifies Exact joins a pushed list already holding another filter's Exact conjuncts only when it is total and deterministic: the source applies its pushed list as one filter, each conjunct over all rows",
		Reason:    "filter(a / b > 1) . filter(b != 0) over a source taking both Exact: pushed=[b != 0, a / b > 1] evaluates a / b on the rows b != 0 removes and raises divide_by_zero"},
	{ID: PPScanSkip, Rule: RulePredicatePushdown, Node: "scan", Verdict: CrossesIf,
		Condition: "a conjunct the source classifies Inexact joins a pushed list only when every Exact conjunct of the list is total and deterministic: a source may skip rows by an Inexact conjunct before its Exact conjuncts meet them",
		Reason:    "filter(k = 1) . filter(a / b > 1) over a source taking a / b > 1 Exact and skipping row groups by k = 1: the group where b = 0 and k != 1 is never read and divide_by_zero vanishes"},
	{ID: PPLimit, Rule: RulePredicatePushdown, Node: "limit", Verdict: Barrier,
		Reason: "a limit keeps the first n rows: head(2) . filter(a > 1) differs from filter(a > 1) . head(2)"},
	{ID: PPSlice, Rule: RulePredicatePushdown, Node: "slice", Verdict: Barrier,
		Reason: "a slice keeps rows by position: slice(1, 2) . filter(a > 1) differs from filter first"},
	{ID: PPAggregate, Rule: RulePredicatePushdown, Node: "aggregate", Verdict: Barrier,
		Reason: "group_by(k).sum(a) . filter(sum > 10) reads a value that exists only after aggregation"},
	{ID: PPAggregateTotal, Rule: RulePredicatePushdown, Node: "aggregate", Verdict: CrossesIf,
		Condition: "standard tier: every key and aggregate is total and deterministic (an aggregate without keys stops every conjunct: pp.aggregate)",
		Reason:    "group_by(k).sum(a) . filter(k = 1): moved below, the conjunct removes group k = 2, whose sum overflows, and the error vanishes"},
	{ID: PPAggregateKeys, Rule: RulePredicatePushdown, Node: "aggregate", Verdict: CrossesIf,
		Condition: "standard tier: a conjunct reading only plain group keys (col(k), or col(k) as k; pp.aggregate stops one reading anything else) moves when it is total and reads each float64 key only as a direct operand of a comparison, is_nan, is_null or is_not_null, which cannot tell apart the values one group holds (-0.0 and 0.0; NaNs)",
		Reason:    "group_by(f).agg(len()) . filter(cast(f, string) == \"0.0\") over f = [-0.0, 0.0]: the group's key is -0.0, so no row passes; below, the 0.0 row forms a group of its own"},
	{ID: PPJoin, Rule: RulePredicatePushdown, Node: "join", Verdict: Barrier,
		Reason: "left join . filter(x is null) keeps unmatched left rows; pushed into the right input it keeps more"},
	{ID: PPJoinKeys, Rule: RulePredicatePushdown, Node: "join", Verdict: CrossesIf,
		Condition: "standard tier (arm join_pushdown): every key expression is total and deterministic",
		Reason:    "join(l, r, left_on=[a * 4611686018427387904], right_on=[k]) . filter(a == 1): moved into l, the conjunct removes the row a = 2 whose key overflows, and the error vanishes"},
	{ID: PPJoinPreserved, Rule: RulePredicatePushdown, Node: "join", Verdict: CrossesIf,
		Condition: "standard tier (arm join_pushdown): a conjunct reading only the columns of one input (a suffixed right name read as the right column it renames; pp.join stops one reading both) moves into it when the join preserves that input's rows — either input of an inner or cross join, the left of a left, semi or anti join, the right of a right join — and the conjunct is total",
		Reason:    "inner join(l, r) . filter(a / b > 0): moved into l, a / b meets a row that matches nothing, where b = 0, and raises a divide_by_zero the plan never raises"},
	{ID: PPJoinLeftRightSide, Rule: RulePredicatePushdown, Node: "join", Verdict: Barrier,
		Reason: "the right input of a left join supplies nulls: l{k: 1, 2} left join r{k: 1, v: 7} . filter(v == 7) keeps one row; moved into r, the filter removes nothing there and k = 2 keeps its null-extended row"},
	{ID: PPJoinRightLeftSide, Rule: RulePredicatePushdown, Node: "join", Verdict: Barrier,
		Reason: "the left input of a right join supplies nulls: l{k: 1, v: 7} right join r{k: 1, 2} . filter(v == 7) keeps one row; moved into l, the unmatched k = 2 still appears, with v null (Polars #19772)"},
	{ID: PPJoinFullLeftSide, Rule: RulePredicatePushdown, Node: "join", Verdict: Barrier,
		Reason: "a full join supplies nulls on the left: l{k: 1, a: 0} full join r{k: 1} . filter(a > 0) keeps nothing; moved into l, r's row k = 1 matches nothing and appears with a null a"},
	{ID: PPJoinFullRightSide, Rule: RulePredicatePushdown, Node: "join", Verdict: Barrier,
		Reason: "a full join supplies nulls on the right: l{k: 1} full join r{k: 1, v: 0} . filter(v > 0) keeps nothing; moved into r, l's row k = 1 matches nothing and appears with a null v"},
	{ID: PPJoinValidate, Rule: RulePredicatePushdown, Node: "join", Verdict: CrossesIf,
		Condition: "standard tier (arm join_pushdown), on a join with validate other than m:m: a conjunct (or a key-equivalent copy) moves into an input only when validate does not check that input's keys (1:m checks the left, m:1 the right, 1:1 both)",
		Reason:    "l{k: 1, 1; a: 0, 1} join r{k: 1} on k validate=1:m . filter(a == 1): the plan raises validation_error on the repeated left key k = 1; moved into l, the filter removes the first row and the violation vanishes"},
	{ID: PPJoinResidual, Rule: RulePredicatePushdown, Node: "join", Verdict: CrossesIf,
		Condition: "standard tier (arm join_pushdown), on a semi or anti join with a residual: the residual is total and deterministic (a conjunct moving into the left input removes left rows, and with them the key-matched pairs the residual would be evaluated on)",
		Reason:    "l{k: 1; a: 1} semi join r{k: 1; b: 0} on k residual=[a / b > 0] . filter(a == 2): the residual divides by zero on the one key-matched pair; moved into l, the filter removes the left row, no pair is left and the divide_by_zero vanishes"},
	{ID: PPJoinKeyEquivalence, Rule: RulePredicatePushdown, Node: "join", Verdict: CrossesIf,
		Condition: "standard tier (arm join_pushdown): on an inner join, a conjunct moving into one input that reads only its plain key columns also filters the other input by their partners (and still moves into its own) when each pair joins two plain columns of one type, paired with nothing else, and the conjunct reads each float64 key only as a direct operand of a comparison, is_nan, is_null or is_not_null, and holds no range proof (range_proofs bounds the conjunct's own columns, not their partners)",
		Reason:    "l{k: int64} inner join r{k: float64} on k . filter(k > 9007199254740992): 2^53 + 1 on the left matches 9007199254740992.0 on the right (compared as float64), but the copy k > 9007199254740992 removes that right row"},
	{ID: PPWindow, Rule: RulePredicatePushdown, Node: "window", Verdict: Barrier,
		Reason: "with_columns(sum(a).over(k)) . filter(a > 0): below the window, the sums cover fewer rows"},
	{ID: PPUnion, Rule: RulePredicatePushdown, Node: "union", Verdict: Barrier,
		Reason: "a partial conjunct pushed into the first input raises before the second input's own error"},
	{ID: PPUnionInputs, Rule: RulePredicatePushdown, Node: "union", Verdict: Crosses,
		Reason:     "standard tier: a total conjunct (pp.union stops the others) goes into every input, in input order, and leaves nothing above: union(t1, t2) . filter(a > 1) is union(filter(t1), filter(t2)); into the first input alone, the rows of t2 would escape it",
		Equivalent: "a crosses cell: its mutant (barrier) keeps total conjuncts above the union, as the bounded tier does (an optimization lost, never another outcome); what guards the crossing is pp.union, which stops a partial conjunct"},
	{ID: PPDistinct, Rule: RulePredicatePushdown, Node: "distinct", Verdict: Barrier,
		Reason: "distinct(k) keeps the first row per k; filtering first changes which row is first"},
	{ID: PPDistinctKeys, Rule: RulePredicatePushdown, Node: "distinct", Verdict: CrossesIf,
		Condition: "standard tier: a conjunct reading only subset columns (any column when the subset is empty; pp.distinct stops one reading another) moves when it is total and reads each float64 one only as a direct operand of a comparison, is_nan, is_null or is_not_null, which cannot tell apart the values distinct counts as one (-0.0 and 0.0; NaNs)",
		Reason:    "distinct(f) . filter(cast(f, string) == \"0.0\") over f = [-0.0, 0.0]: distinct keeps the -0.0 row, which fails; below, the 0.0 row passes and is kept"},
	{ID: PPExtension, Rule: RulePredicatePushdown, Node: "extension declaring nothing, or with several inputs", Verdict: Barrier,
		Reason: "closed world: a host operator may count, drop or reorder rows, or read other rows: lag_first . filter(b > 0) shifts a over other rows once the filter moves below"},
	{ID: PPExtensionRowPreserving, Rule: RulePredicatePushdown, Node: "extension declaring properties", Verdict: CrossesIf,
		Condition: "the operator declares row_preserving: a row-wise map that cannot fail, each output row computed from its own input row alone",
		Reason:    "checked_tag (fails on a row whose first column a is null) . filter(a > 0): below, the filter removes the null rows first and the operator's error vanishes"},
	{ID: PPExtensionOrderPreserving, Rule: RulePredicatePushdown, Node: "extension declaring properties", Verdict: CrossesIf,
		Condition: "the operator declares order_preserving: output rows keep their input order",
		Reason:    "swap_pairs (swaps rows 0 and 1, 2 and 3, ...) . filter(a > 0) over rows r0 r1 r2: if r0 fails, the result is r1 r2 above but r2 r1 below"},
	{ID: PPExtensionDeterministic, Rule: RulePredicatePushdown, Node: "extension declaring properties", Verdict: CrossesIf,
		Condition: "the operator declares deterministic, so over fewer rows it computes the same values for the rows that remain",
		Reason:    "nd_tag (tag = a per-row counter) . filter(a > 0): below, the counter numbers only the surviving rows, so their tags change"},
	{ID: PPExtensionPassthrough, Rule: RulePredicatePushdown, Node: "extension declaring properties", Verdict: CrossesIf,
		Condition: "the operator declares column_passthrough and the conjunct reads only columns of its input, which reach its output unchanged (not a column it adds)",
		Reason:    "null_first (replaces a by nulls) . filter(a is null): above, every row passes; below, only the rows whose a was already null"},
	{ID: PPUnknown, Rule: RulePredicatePushdown, Node: "any other node", Verdict: Barrier,
		Reason:       "closed world: a node kind without a crossing cell is a barrier",
		Equivalent:   "unreachable: the plan's node interface is sealed and every node kind has its own pushdown cell, so predicate_pushdown never consults the closed-world catch-all",
		NeverRefuses: "unreachable: the plan's node interface is sealed and every node kind has its own pushdown cell"},

	// filter_fusion
	{ID: FFTotalOuter, Rule: RuleFilterFusion, Node: "filter over filter", Verdict: CrossesIf,
		Condition: "every outer conjunct is total and deterministic; the fused filter lists the inner conjuncts first",
		Reason:    "filter(b != 0) . filter(a / b > 1) must not fuse: a / b would meet the rows b != 0 removed"},
	{ID: FFBoolean, Rule: RuleFilterFusion, Node: "filter over filter", Verdict: CrossesIf,
		Condition:    "both filters' conjuncts resolve to bool where they evaluate",
		Reason:       "a conjunct that is not bool is an error of its own filter; fusing would move that error",
		Equivalent:   "unreachable guard: plan.Resolve rejects a filter whose conjunct is not bool and the optimizer sees only resolved plans, so the condition always holds and crosses decides the same",
		NeverRefuses: "plan.Resolve rejects a filter whose conjunct is not bool, and the optimizer sees only resolved plans"},

	// projection_fusion
	{ID: PFHolder, Rule: RuleProjectionFusion, Node: "project over with_columns", Verdict: CrossesIf,
		Condition: "the with_columns does not own a synthesized window (over())",
		Reason:    "with_columns(sum(a).over(k) as s) . select(s): the window must stay directly under its owner"},
	{ID: PFDeterministic, Rule: RuleProjectionFusion, Node: "project over with_columns", Verdict: CrossesIf,
		Condition: "the value is deterministic",
		Reason:    "with_columns(nd_seq(a) as x) . select(nd_seq(b), x): inlined, nd_seq(a) would run after nd_seq(b) and see other counter values"},
	{ID: PFOnce, Rule: RuleProjectionFusion, Node: "project over with_columns", Verdict: CrossesIf,
		Condition:  "exactly one projection expression references the value, exactly once",
		Reason:     "with_columns(a / b as x) . select(x, x as y): inlining twice evaluates a / b twice",
		Equivalent: "reachable (a value read twice is inlined into every reader) but harmless while pf.deterministic and pf.inline stand: the first copy is evaluated after total operands only, so it raises what the with_columns raised, every later copy recomputes the same deterministic values (time, never an outcome), and errors around any copy name the reference as written (the inlined value records it as its origin); with pf.deterministic flipped too, a duplicated nd_tick diverges"},
	{ID: PFCapture, Rule: RuleProjectionFusion, Node: "project over with_columns", Verdict: CrossesIf,
		Condition: "no column the value reads is assigned by another value of the same with_columns (name capture); its own name does not count: b + 1 as b reads the input's b, which nothing assigns once the value leaves",
		Reason:    "with_columns(a + 1 as x, a * 2 as a) . select(x): inlined, a + 1 would read the new a"},
	{ID: PFInline, Rule: RuleProjectionFusion, Node: "project over with_columns", Verdict: CrossesIf,
		Condition: "the value is total, or every with_columns value after it, every projection expression before its user and every operand evaluated before the reference is total, and the reference is not inside an if() branch",
		Reason:    "with_columns(a / b as x) . select(a * 2 as y, x): inlined, a * 2 would raise before a / b"},

	// projection_pruning
	{ID: PRProject, Rule: RuleProjectionPruning, Node: "project", Verdict: CrossesIf,
		Condition: "an output nothing downstream reads is dropped only if its expression is total and deterministic",
		Reason:    "select(a / b as x, a) . select(a): the dead a / b must still raise"},
	{ID: PRWithColumns, Rule: RuleProjectionPruning, Node: "with_columns", Verdict: CrossesIf,
		Condition: "a dead added or replaced column is dropped only if its expression is total and deterministic",
		Reason:    "with_columns(a / b as x) . select(a): the dead a / b must still raise"},
	{ID: PRWithColumnsEmpty, Rule: RuleProjectionPruning, Node: "with_columns", Verdict: CrossesIf,
		Condition: "a with_columns left with no entry is dropped unless it owns a window (plan.OwnedWindow)",
		Reason:    "with_columns(sum(a).over(k) as s) . sort(a) . select(a): dropped, the window would sit under the sort, which does not own it (and would pass its temporary columns on)"},
	{ID: PRScan, Rule: RuleProjectionPruning, Node: "scan", Verdict: CrossesIf,
		Condition:    "unreferenced source columns are not read; a scan left with no column still yields its row count",
		Reason:       "select(lit(1)) over a 4-row table is 4 rows, not 1 and not 0",
		Equivalent:   "the condition holds wherever the cell is consulted (a scan always narrows to the required columns and the executor keeps the row count of a scan with no column), so crosses decides the same",
		NeverRefuses: "a scan always narrows to the required columns"},
	{ID: PRAggregate, Rule: RuleProjectionPruning, Node: "aggregate", Verdict: CrossesIf,
		Condition:    "the input is narrowed to exactly the key and aggregate columns; a global len() keeps the height",
		Reason:       "agg(len()) over a pruned input must still count every row",
		Equivalent:   "the condition holds wherever the cell is consulted (an aggregate's input always narrows to its key and aggregate columns, and len() needs none), so crosses decides the same",
		NeverRefuses: "an aggregate's input always narrows to its key and aggregate columns"},
	{ID: PRJoin, Rule: RuleProjectionPruning, Node: "join", Verdict: CrossesIf,
		Condition:    "each input must produce only its key columns, the columns read above (a merged key column counting as read on both sides), the columns a semi or anti join's residual reads and every left column a kept right column (or a residual's suffixed right column) shares a name with (so no suffix changes); the requirement passes into the inputs",
		Reason:       "join(l{k, v}, r{k, v}) . select(v_right): dropping l.v would rename r.v to v",
		NeverRefuses: "the columns each input keeps are computed, so the cell never refuses"},
	{ID: PRPassthrough, Rule: RuleProjectionPruning, Node: "filter, sort, limit, slice", Verdict: Crosses,
		Reason:     "requirements pass through, plus the columns the node's own expressions read: filter(a > 1) . select(b) still needs a",
		Equivalent: "a crosses cell: its mutant is a barrier, which only keeps every input column (an optimization lost, never a different outcome)"},
	{ID: PRDistinct, Rule: RuleProjectionPruning, Node: "distinct", Verdict: CrossesIf,
		Condition:    "the subset columns stay required, every column when the subset is empty",
		Reason:       "distinct() . select(a) deduplicates on every column, not on a alone",
		NeverRefuses: "the subset columns are added to the requirement, so the cell never refuses"},
	{ID: PRWindow, Rule: RuleProjectionPruning, Node: "window", Verdict: CrossesIf,
		Condition:    "requirements pass through plus the columns its over() expressions read; the window keeps every entry and stays directly under its owner",
		Reason:       "a dead sum(a).over(k) can overflow, so it must still be computed",
		NeverRefuses: "the over() columns are added to the requirement, so the cell never refuses"},
	{ID: PRUnion, Rule: RuleProjectionPruning, Node: "union", Verdict: Barrier,
		Reason: "every input keeps every column: union inputs must keep identical schemas"},
	{ID: PRUnionInputs, Rule: RuleProjectionPruning, Node: "union", Verdict: Crosses,
		Reason:     "standard tier (arm union_pruning): requirements pass into every input — the columns read above, which every input has under the same names, and any column one input keeps anyway (pr.union) — so that each produces the same columns in the union's order: union(t1{a, b}, t2{a, b}) . select(a) reads a alone from both",
		Equivalent: "a crosses cell: its mutant (barrier) keeps every input column, as the bounded tier does (an optimization lost, never another outcome); what guards the narrowing is pr.union, which keeps the inputs' schemas identical"},
	{ID: PRTwins, Rule: RuleProjectionPruning, Node: "subtrees equal before pruning", Verdict: Crosses,
		Reason:     "standard tier (arm twin_pruning): deterministic subtrees equal before pruning are each asked for what any of their consumers needs, so they stay equal and the executor's memo evaluates them once: join(S, S) on k . select(a) reads [k, a] of both copies of S, not [k, a] of the left and [k] of the right",
		Equivalent: "a crosses cell: its mutant (barrier) prunes each occurrence for its own consumers, as without the arm: the occurrences then differ and are each evaluated (an optimization lost, never another outcome). Asking a subtree for more columns is sound: it keeps more of what it produced before pruning, under the same names, with the same values and errors, and what it gives its consumer beyond the request is read by nothing above (docs/adr/0006-pruning-twins.md)"},
	{ID: PRExtension, Rule: RuleProjectionPruning, Node: "extension declaring nothing, or with several inputs", Verdict: Barrier,
		Reason: "closed world: a host operator may read any of its input columns, or find them by position: lag_first . select(b) over [a, b], narrowed to [b], would shift b"},
	{ID: PRExtensionPassthrough, Rule: RuleProjectionPruning, Node: "extension declaring properties", Verdict: CrossesIf,
		Condition: "the operator declares column_passthrough: its input must produce the columns required above (the same columns) plus every column the operator reads (ExtensionDef.Reads; all of them when it declares none)",
		Reason:    "null_first (not passthrough) . select(b) over [a, b]: narrowed to [b], it nulls b instead of a; passthrough_tag . select(b, tag) must still read a, its first column"},
	{ID: PRUnknown, Rule: RuleProjectionPruning, Node: "any other node", Verdict: Barrier,
		Reason:       "closed world: a node kind without a pruning cell keeps every input column",
		Equivalent:   "unreachable: the plan's node interface is sealed and every node kind has its own pruning cell, so projection_pruning never consults the closed-world catch-all",
		NeverRefuses: "unreachable: the plan's node interface is sealed and every node kind has its own pruning cell"},

	// limit_pushdown (standard tier): a limit, or a slice by the rows it
	// keeps (offset + len), moves below row-preserving total projections,
	// folds into a sort (top-k), is copied into union inputs and gives a
	// scan a max-rows hint.
	{ID: LPDeterministic, Rule: RuleLimitPushdown, Node: "project, with_columns", Verdict: CrossesIf,
		Condition: "every expression of the node is deterministic",
		Reason:    "union(head(1) . select(nd_tick(a) as x), select(nd_tick(a) as x)): below the limit, the first nd_tick advances the counter once instead of once per row, so the second input's values change"},
	{ID: LPProject, Rule: RuleLimitPushdown, Node: "project", Verdict: CrossesIf,
		Condition: "every projection expression is total over the node's input (the tier's totality: in the standard tier plan.Total, declared-total UDFs trusted)",
		Reason:    "select(a / b as x) . head(1): below, a / b meets only the first row, and the divide_by_zero of a later row vanishes"},
	{ID: LPWithColumns, Rule: RuleLimitPushdown, Node: "with_columns", Verdict: CrossesIf,
		Condition: "every with_columns expression is total over the node's input (the tier's totality: in the standard tier plan.Total, declared-total UDFs trusted)",
		Reason:    "with_columns(cast(s, int64) as n) . head(2): below, the invalid_cast of the third row vanishes"},
	{ID: LPSort, Rule: RuleLimitPushdown, Node: "sort", Verdict: Crosses,
		Reason:     "head(k) . sort(a) folds into sort [a] limit=k, which is exactly the sort then the limit: every key still meets every row, and rows tied on every key keep input order (a top-k that broke ties otherwise would pick other rows: Polars #20712)",
		Equivalent: "a crosses cell: its mutant is a barrier, which leaves the limit over the full sort (the same rows, sorted in full)"},
	{ID: LPUnion, Rule: RuleLimitPushdown, Node: "union", Verdict: Crosses,
		Reason:     "head(n) . union(A, B) = head(n) . union(head(n) . A, head(n) . B): the first n rows come from the first n of each input, the outer limit stays, and each input still runs whole below its own limit; a slice(o, l) puts head(o + l), never itself, into the inputs (Polars #26824, #28566)",
		Equivalent: "a crosses cell: its mutant is a barrier, which leaves the inputs whole under the outer limit (the same rows, more work)"},
	{ID: LPScan, Rule: RuleLimitPushdown, Node: "scan", Verdict: CrossesIf,
		Condition: "every Exact conjunct pushed into the scan is total (the tier's totality, over the source's schema) and deterministic, and none is Inexact: a source given the hint stops once it has produced the rows the limit keeps",
		Reason:    "head(0) . scan t pushed=[a / b > 0 (exact)]: a source stopping at the hint never evaluates a / b on the row where b = 0, and divide_by_zero vanishes"},
	{ID: LPFilter, Rule: RuleLimitPushdown, Node: "filter", Verdict: Barrier,
		Reason: "filter(a > 1) . head(1): the limit below would keep only the first row, which the filter may drop (Polars #26803, the other way round)"},
	{ID: LPAggregate, Rule: RuleLimitPushdown, Node: "aggregate", Verdict: Barrier,
		Reason: "group_by(k).agg(sum(a)) . head(1): below, the first group would sum one row"},
	{ID: LPJoin, Rule: RuleLimitPushdown, Node: "join", Verdict: Barrier,
		Reason: "inner join . head(1) pushed into the inputs: the first left row may match nothing while a later one matches (Polars #28578)"},
	{ID: LPDistinct, Rule: RuleLimitPushdown, Node: "distinct", Verdict: Barrier,
		Reason: "distinct(k) . head(2) over k = [1, 1, 2]: below, the limit keeps [1, 1] and distinct yields one row, not two"},
	{ID: LPWindow, Rule: RuleLimitPushdown, Node: "window, and a project or with_columns owning one", Verdict: Barrier,
		Reason: "with_columns(sum(a).over(k) as s) . head(2): below, the sums cover only the first two rows"},
	{ID: LPExtension, Rule: RuleLimitPushdown, Node: "extension", Verdict: Barrier,
		Reason: "closed world: swap_pairs . head(1) yields row 1; below, the limit keeps row 0 alone and swap_pairs leaves it"},
	{ID: LPLimit, Rule: RuleLimitPushdown, Node: "limit, slice", Verdict: Barrier,
		Reason: "slice(1, 5) . head(2) keeps rows 1 and 2; moved below the slice, the limit keeps rows 0 and 1 and the slice row 1 alone"},
	{ID: LPUnknown, Rule: RuleLimitPushdown, Node: "any other node", Verdict: Barrier,
		Reason:       "closed world: a node kind without a limit cell is a barrier",
		Equivalent:   "unreachable: the plan's node interface is sealed and every node kind has its own limit cell, so limit_pushdown never consults the closed-world catch-all",
		NeverRefuses: "unreachable: the plan's node interface is sealed and every node kind has its own limit cell"},

	// collapse_cross_join (standard tier): a filter over a cross join
	// becomes an inner join on the conjuncts that equate a left expression
	// with a right one, the other conjuncts staying above.
	{ID: CCJDeterministic, Rule: RuleCollapseCrossJoin, Node: "filter over cross join", Verdict: CrossesIf,
		Condition: "both sides of the equality are deterministic",
		Reason:    "filter(nd_tick(a) = b) over cross(l, r): the filter calls nd_tick once per pair, the join once per left row, so the counter gives other values and ends elsewhere"},
	{ID: CCJTotal, Rule: RuleCollapseCrossJoin, Node: "filter over cross join", Verdict: CrossesIf,
		Condition: "both sides of the equality are total over their input (plan.Total, declared-total UDFs trusted)",
		Reason:    "filter(a / c = b) over cross(l, r) with r empty: the filter evaluates a / c over no pair and succeeds, the join evaluates its left key over every left row and raises divide_by_zero (and of two partial keys the join raises the second left key's error before the first right key's)"},
	{ID: CCJFloat, Rule: RuleCollapseCrossJoin, Node: "filter over cross join", Verdict: CrossesIf,
		Condition: "the sides compare in int32, int64, string or bool (plan.JoinKeyType, the type = compares them in), not float64",
		Reason:    "filter(x = y) over cross(l{x: NaN}, r{y: NaN}): IEEE = keeps no pair, but join keys treat every NaN as one key and the inner join would keep it"},
	{ID: CCJKeyColumn, Rule: RuleCollapseCrossJoin, Node: "filter over cross join", Verdict: CrossesIf,
		Condition: "the key pair is not two plain columns of one name; such a pair is written with its right key as `k as k`, which the inner join keeps under the cross join's suffixed name",
		Reason:    "filter(k = k_right) over cross(l{k}, r{k}): an inner join on k = k drops the right k (plan.DroppedRightKeys), so the cross join's column k_right would vanish"},
	{ID: CCJRest, Rule: RuleCollapseCrossJoin, Node: "filter over cross join", Verdict: CrossesIf,
		Condition: "every conjunct left above the inner join is total and deterministic: it now meets only the pairs the keys match",
		Reason:    "filter(k = k_right, a / b > 1) over cross(l, r): above the inner join a / b meets only the matching pairs, and the divide_by_zero of a pair whose keys differ vanishes"},

	// semi_pushdown (standard tier): a semi or anti join over an inner
	// join moves into the inner join's input that its left keys read.
	{ID: SPSide, Rule: RuleSemiPushdown, Node: "semi or anti join over inner join", Verdict: CrossesIf,
		Condition: "the semi or anti join's left keys read columns of one input of the inner join only (plan.JoinLayout); keys reading no column go left",
		Reason:    "semi(inner(l, r) on k = k, s) on a + b = x with a from l and b from r: neither input holds both columns, so the keys cannot be evaluated below the inner join"},
	{ID: SPOptions, Rule: RuleSemiPushdown, Node: "semi or anti join over inner join", Verdict: CrossesIf,
		Condition: "the semi or anti join has no residual and validates m:m, and the inner join validates m:m",
		Reason:    "semi(inner(l{k: 1}, r{k: [1, 1]}), s) validate 1:m: the inner join's output repeats l's row and raises validation_error; below it, l's one row raises nothing"},
	{ID: SPKeys, Rule: RuleSemiPushdown, Node: "semi or anti join over inner join", Verdict: CrossesIf,
		Condition: "the semi or anti join's left keys and the inner join's keys on the input it enters are total and deterministic (they meet other rows), the inner join's other keys deterministic",
		Reason:    "semi(inner(l{k: [1, 2], b: [1, 0]}, r{k: 1}), s) on 10 / b = x: above, 10 / b meets only l's matched row; below, also l's row with b = 0, and raises divide_by_zero"},
	{ID: SPRightInput, Rule: RuleSemiPushdown, Node: "semi or anti join over inner join", Verdict: CrossesIf,
		Condition: "the semi or anti join's right input raises nothing and is deterministic (its nodes filter, project, with_columns, sort, aggregate, window, limit, slice, distinct, union, joins without validate or residual and scans without facts or guards, over total deterministic expressions) and its right keys are total and deterministic: it is evaluated before the other input of the inner join",
		Reason:    "semi(inner(l, r{a: 0} . select(1 / a)), s{b: 0} . select(1 / b)): above, r's 1 / a raises first; below, s's 1 / b is evaluated before r and raises its own divide_by_zero"},
	// join_order (standard tier): a left-deep chain of plain inner and
	// cross joins on column keys is joined in an order that avoids a cross
	// join, then sorted back to the chain's order by the inputs' row
	// indexes.
	{ID: JODeterministic, Rule: RuleJoinOrder, Node: "chain of inner and cross joins", Verdict: CrossesIf,
		Condition: "at most one input of the chain holds a non-deterministic expression or operator",
		Reason:    "cross(a, nd_seq input b) joined with nd_seq input c on a = c: the chain evaluates b before c, the reordered one c before b, so the per-collect counter gives b and c other values"},
	{ID: JOErrors, Rule: RuleJoinOrder, Node: "chain of inner and cross joins", Verdict: CrossesIf,
		Condition: "at most one input of the chain may raise (legality.Table.MayRaise: only scans, and filters, projects and with_columns of total expressions and limits over them, are proved not to)",
		Reason:    "cross(a, filter(x / 0 > 1) b) joined with filter(y / 0 > 1) c on a = c: the chain evaluates b first and raises x / 0's divide_by_zero, the reordered chain evaluates c first and raises y / 0's"},

	{ID: JOReduce, Rule: RuleJoinOrder, Node: "chain of inner and cross joins", Verdict: CrossesIf,
		Condition: "the input an input of the reordered chain is reduced by (a semi join on their key pairs, evaluated a second time) is deterministic and raises nothing (legality.Table.MayRaise)",
		Reason:    "inner(a, filter(x / 0 > 1) b) on a = b with a reduced by semi(a, b), beside an input c that raises too: the semi join evaluates b where a is evaluated, so b's divide_by_zero would come before c's; jo.errors already refuses a chain with two inputs that may raise, so this condition keeps the reduction sound on its own rather than through that cell"},

	// semi_reduction (standard tier): the aggregate on the right of an
	// inner join keyed on its group key reads only the groups the left
	// input can match.
	{ID: SRRows, Rule: RuleSemiReduction, Node: "inner join over aggregate", Verdict: CrossesIf,
		Condition: "the aggregate's keys and aggregates and the expressions of the filters, projections and with_columns between it and the join are total and deterministic and hold no window: they now meet only the rows of the groups the join can match",
		Reason:    "inner(l{p: 1}, aggregate(t{k: [1, 2], a: [1, MaxInt64]}) by k, sum(a + 1)): group 2's overflow raises although no l row matches it; reading only group 1's rows the error vanishes"},
	{ID: SRSource, Rule: RuleSemiReduction, Node: "inner join over aggregate", Verdict: CrossesIf,
		Condition: "the subtree of the left input that supplies the key column (it is evaluated a second time, for the semi join) is deterministic",
		Reason:    "inner(select(nd_tick() as p), aggregate(t) by k): evaluated again, nd_tick gives other keys, so the semi join keeps groups the join does not match and drops ones it does"},

	// build_side (standard tier): an inner join hashes its left input when
	// the row bounds prove it the smaller one.
	{ID: BSKind, Rule: RuleBuildSide, Node: "join", Verdict: CrossesIf,
		Condition: "the join is an inner join, the one kind the executor hashes on either side",
		Reason:    "a left join built on its left input would have to emit its unmatched left rows in place, which the left build does not do: Resolve rejects build=left on any other kind than inner"},
	{ID: BSEstimate, Rule: RuleBuildSide, Node: "join", Verdict: CrossesIf,
		Condition:  "the left input's most rows are fewer than the right input's fewest, by the row bounds the sources' estimates give (plan.RowEstimates)",
		Reason:     "hashing the larger input costs time and memory: a 1,000-row left input hashed against 1M rows of distinct keys takes a third of the time the right build takes",
		Equivalent: "the left build emits the right build's pairs in the same order, spilled or not (exec/ops tests), so which side is hashed changes no outcome; the mutant asks for the left build on every inner join, which a campaign then checks"},

	// shared_subplans
	{ID: SSDeterministic, Rule: RuleSharedSubplans, Node: "any", Verdict: CrossesIf,
		Condition: "a subtree is shared only if its expressions are deterministic (its extensions: ss.extension.deterministic)",
		Reason:    "union(S, S) with S = select(nd_seq(a)): two evaluations give different values"},
	{ID: SSStructural, Rule: RuleSharedSubplans, Node: "any", Verdict: CrossesIf,
		Condition:    "identity is fingerprint AND structural equality",
		Reason:       "a fingerprint collision must not merge two different plans",
		NeverRefuses: "a refusal needs two different plans with one fingerprint: twin sources (one name and schema, other values)",
		TwinsReach:   true},
	{ID: SSNested, Rule: RuleSharedSubplans, Node: "any", Verdict: CrossesIf,
		Condition:   "a subtree inside a served subtree is counted only if the executor evaluates it, which it never does: it is served once, with its parent",
		Reason:      "union(join(S, S), join(S, S)) serves 2, not 4",
		NeverAllows: "the executor serves a shared subtree whole and never evaluates what is inside it"},
	{ID: SSExtensionDeterministic, Rule: RuleSharedSubplans, Node: "any", Verdict: CrossesIf,
		Condition: "every extension in the subtree declares deterministic (a subtree without extensions satisfies it)",
		Reason:    "union(S, S) with S = nd_tag(t): the executor evaluates S twice (its counter gives other tags), so only the scan inside S is served"},
}
