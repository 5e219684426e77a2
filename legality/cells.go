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
	PFText                     CellID = "pf.text"
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
)

// defaultCells is the bounded-tier table (DESIGN §6.1, extended where the
// code needs a cell of its own). Order: by rule, in the order the rules run.
var defaultCells = []Cell{
	// predicate_pushdown: conjunct-level cells first, then one per node kind.
	{PPDeterministic, RulePredicatePushdown, "any", CrossesIf,
		"the conjunct calls no non-deterministic UDF",
		"nd_seq(a) > 5 pushed below a sort sees its rows in another order, so the counter gives other values"},
	{PPSplit, RulePredicatePushdown, "filter", CrossesIf,
		"a filter's conjuncts separate only when every conjunct left above is total and deterministic; moved conjuncts keep their order; at a scan, a lone Inexact conjunct (none Exact) does not count as left above: the source skips only rows on which it is false or null, without raising",
		"filter(a / b > 1, k = 1) over a rename of k: if k = 1 moves alone, a / b meets fewer rows and its error vanishes"},
	{PPFilter, RulePredicatePushdown, "filter", Barrier, "",
		"conjuncts never move below another filter's remaining conjuncts (adjacent filters are filter_fusion's): filter(a / b > 1) . filter(b != 0) must keep the guard first"},
	{PPProject, RulePredicatePushdown, "project", CrossesIf,
		"every projection expression is total and deterministic",
		"project(a, a / b as x) . filter(a > 0): below the project, a / b would meet fewer rows"},
	{PPProjectShadow, RulePredicatePushdown, "project", CrossesIf,
		"every name the conjunct reads is output by the same-name identity reference (col(a) as a)",
		"project(b as a) . filter(a > 0) moved below would test the input's a; substituting b would rename the conjunct's errors"},
	{PPWithColumns, RulePredicatePushdown, "with_columns", CrossesIf,
		"every with_columns expression is total and deterministic",
		"with_columns(a / b as x) . filter(b != 0) must still raise divide_by_zero"},
	{PPWithColumnsShadow, RulePredicatePushdown, "with_columns", CrossesIf,
		"the conjunct reads no column the node adds or replaces, a same-name identity (col(a) as a) excepted",
		"with_columns(lit(0) as a) . filter(a = 0) keeps every row; below, it tests the input's a"},
	{PPSort, RulePredicatePushdown, "sort", CrossesIf,
		"every sort key is total and deterministic",
		"sort(a / b) . filter(b != 0) must still raise divide_by_zero"},
	{PPScan, RulePredicatePushdown, "scan", CrossesIf,
		"the source classifies the conjunct Exact (the conjunct leaves the plan) or Inexact (it stays above too)",
		"a source that skips row groups by statistics still returns non-matching rows, so an Inexact conjunct must stay"},
	{PPScanMerge, RulePredicatePushdown, "scan", CrossesIf,
		"a conjunct the source classifies Exact joins a pushed list already holding another filter's Exact conjuncts only when it is total and deterministic: the source applies its pushed list as one filter, each conjunct over all rows",
		"filter(a / b > 1) . filter(b != 0) over a source taking both Exact: pushed=[b != 0, a / b > 1] evaluates a / b on the rows b != 0 removes and raises divide_by_zero"},
	{PPScanSkip, RulePredicatePushdown, "scan", CrossesIf,
		"a conjunct the source classifies Inexact joins a pushed list only when every Exact conjunct of the list is total and deterministic: a source may skip rows by an Inexact conjunct before its Exact conjuncts meet them",
		"filter(k = 1) . filter(a / b > 1) over a source taking a / b > 1 Exact and skipping row groups by k = 1: the group where b = 0 and k != 1 is never read and divide_by_zero vanishes"},
	{PPLimit, RulePredicatePushdown, "limit", Barrier, "",
		"a limit keeps the first n rows: head(2) . filter(a > 1) differs from filter(a > 1) . head(2)"},
	{PPSlice, RulePredicatePushdown, "slice", Barrier, "",
		"a slice keeps rows by position: slice(1, 2) . filter(a > 1) differs from filter first"},
	{PPAggregate, RulePredicatePushdown, "aggregate", Barrier, "",
		"group_by(k).sum(a) . filter(sum > 10) reads a value that exists only after aggregation"},
	{PPJoin, RulePredicatePushdown, "join", Barrier, "",
		"left join . filter(x is null) keeps unmatched left rows; pushed into the right input it keeps more"},
	{PPWindow, RulePredicatePushdown, "window", Barrier, "",
		"with_columns(sum(a).over(k)) . filter(a > 0): below the window, the sums cover fewer rows"},
	{PPUnion, RulePredicatePushdown, "union", Barrier, "",
		"a partial conjunct pushed into the first input raises before the second input's own error"},
	{PPDistinct, RulePredicatePushdown, "distinct", Barrier, "",
		"distinct(k) keeps the first row per k; filtering first changes which row is first"},
	{PPExtension, RulePredicatePushdown, "extension declaring nothing, or with several inputs", Barrier, "",
		"closed world: a host operator may count, drop or reorder rows, or read other rows: lag_first . filter(b > 0) shifts a over other rows once the filter moves below"},
	{PPExtensionRowPreserving, RulePredicatePushdown, "extension declaring properties", CrossesIf,
		"the operator declares row_preserving: a row-wise map that cannot fail, each output row computed from its own input row alone",
		"checked_tag (fails on a row whose first column a is null) . filter(a > 0): below, the filter removes the null rows first and the operator's error vanishes"},
	{PPExtensionOrderPreserving, RulePredicatePushdown, "extension declaring properties", CrossesIf,
		"the operator declares order_preserving: output rows keep their input order",
		"swap_pairs (swaps rows 0 and 1, 2 and 3, ...) . filter(a > 0) over rows r0 r1 r2: if r0 fails, the result is r1 r2 above but r2 r1 below"},
	{PPExtensionDeterministic, RulePredicatePushdown, "extension declaring properties", CrossesIf,
		"the operator declares deterministic, so over fewer rows it computes the same values for the rows that remain",
		"nd_tag (tag = a per-row counter) . filter(a > 0): below, the counter numbers only the surviving rows, so their tags change"},
	{PPExtensionPassthrough, RulePredicatePushdown, "extension declaring properties", CrossesIf,
		"the operator declares column_passthrough and the conjunct reads only columns of its input, which reach its output unchanged (not a column it adds)",
		"null_first (replaces a by nulls) . filter(a is null): above, every row passes; below, only the rows whose a was already null"},
	{PPUnknown, RulePredicatePushdown, "any other node", Barrier, "",
		"closed world: a node kind without a crossing cell is a barrier"},

	// filter_fusion
	{FFTotalOuter, RuleFilterFusion, "filter over filter", CrossesIf,
		"every outer conjunct is total and deterministic; the fused filter lists the inner conjuncts first",
		"filter(b != 0) . filter(a / b > 1) must not fuse: a / b would meet the rows b != 0 removed"},
	{FFBoolean, RuleFilterFusion, "filter over filter", CrossesIf,
		"both filters' conjuncts resolve to bool where they evaluate",
		"a conjunct that is not bool is an error of its own filter; fusing would move that error"},

	// projection_fusion
	{PFHolder, RuleProjectionFusion, "project over with_columns", CrossesIf,
		"the with_columns does not own a synthesized window (over())",
		"with_columns(sum(a).over(k) as s) . select(s): the window must stay directly under its owner"},
	{PFDeterministic, RuleProjectionFusion, "project over with_columns", CrossesIf,
		"the value is deterministic",
		"with_columns(nd_seq(a) as x) . select(nd_seq(b), x): inlined, nd_seq(a) would run after nd_seq(b) and see other counter values"},
	{PFOnce, RuleProjectionFusion, "project over with_columns", CrossesIf,
		"exactly one projection expression references the value, exactly once",
		"with_columns(a / b as x) . select(x, x as y): inlining twice evaluates a / b twice"},
	{PFCapture, RuleProjectionFusion, "project over with_columns", CrossesIf,
		"no column the value reads is assigned by another value of the same with_columns (name capture); its own name does not count: b + 1 as b reads the input's b, which nothing assigns once the value leaves",
		"with_columns(a + 1 as x, a * 2 as a) . select(x): inlined, a + 1 would read the new a"},
	{PFText, RuleProjectionFusion, "project over with_columns", CrossesIf,
		"every expression enclosing the reference is an alias or a declared-total UDF call",
		"with_columns(b as x) . select(x + 1): inlined, an overflow would be reported in b + 1 instead of x + 1"},
	{PFInline, RuleProjectionFusion, "project over with_columns", CrossesIf,
		"the value is total, or every with_columns value after it, every projection expression before its user and every operand evaluated before the reference is total, and the reference is not inside an if() branch",
		"with_columns(a / b as x) . select(a * 2 as y, x): inlined, a * 2 would raise before a / b"},

	// projection_pruning
	{PRProject, RuleProjectionPruning, "project", CrossesIf,
		"an output nothing downstream reads is dropped only if its expression is total and deterministic",
		"select(a / b as x, a) . select(a): the dead a / b must still raise"},
	{PRWithColumns, RuleProjectionPruning, "with_columns", CrossesIf,
		"a dead added or replaced column is dropped only if its expression is total and deterministic",
		"with_columns(a / b as x) . select(a): the dead a / b must still raise"},
	{PRWithColumnsEmpty, RuleProjectionPruning, "with_columns", CrossesIf,
		"a with_columns left with no entry is dropped unless it owns a window (plan.OwnedWindow)",
		"with_columns(sum(a).over(k) as s) . sort(a) . select(a): dropped, the window would sit under the sort, which does not own it (and would pass its temporary columns on)"},
	{PRScan, RuleProjectionPruning, "scan", CrossesIf,
		"unreferenced source columns are not read; a scan left with no column still yields its row count",
		"select(lit(1)) over a 4-row table is 4 rows, not 1 and not 0"},
	{PRAggregate, RuleProjectionPruning, "aggregate", CrossesIf,
		"the input is narrowed to exactly the key and aggregate columns; a global len() keeps the height",
		"agg(len()) over a pruned input must still count every row"},
	{PRJoin, RuleProjectionPruning, "join", CrossesIf,
		"each input must produce only its key columns, the columns read above and every left column a kept right column shares a name with (so no suffix changes); the requirement passes into the inputs",
		"join(l{k, v}, r{k, v}) . select(v_right): dropping l.v would rename r.v to v"},
	{PRPassthrough, RuleProjectionPruning, "filter, sort, limit, slice", Crosses, "",
		"requirements pass through, plus the columns the node's own expressions read: filter(a > 1) . select(b) still needs a"},
	{PRDistinct, RuleProjectionPruning, "distinct", CrossesIf,
		"the subset columns stay required, every column when the subset is empty",
		"distinct() . select(a) deduplicates on every column, not on a alone"},
	{PRWindow, RuleProjectionPruning, "window", CrossesIf,
		"requirements pass through plus the columns its over() expressions read; the window keeps every entry and stays directly under its owner",
		"a dead sum(a).over(k) can overflow, so it must still be computed"},
	{PRUnion, RuleProjectionPruning, "union", Barrier, "",
		"every input keeps every column: union inputs must keep identical schemas"},
	{PRExtension, RuleProjectionPruning, "extension declaring nothing, or with several inputs", Barrier, "",
		"closed world: a host operator may read any of its input columns, or find them by position: lag_first . select(b) over [a, b], narrowed to [b], would shift b"},
	{PRExtensionPassthrough, RuleProjectionPruning, "extension declaring properties", CrossesIf,
		"the operator declares column_passthrough: its input must produce the columns required above (the same columns) plus every column the operator reads (ExtensionDef.Reads; all of them when it declares none)",
		"null_first (not passthrough) . select(b) over [a, b]: narrowed to [b], it nulls b instead of a; passthrough_tag . select(b, tag) must still read a, its first column"},
	{PRUnknown, RuleProjectionPruning, "any other node", Barrier, "",
		"closed world: a node kind without a pruning cell keeps every input column"},

	// shared_subplans
	{SSDeterministic, RuleSharedSubplans, "any", CrossesIf,
		"a subtree is shared only if its expressions are deterministic (its extensions: ss.extension.deterministic)",
		"union(S, S) with S = select(nd_seq(a)): two evaluations give different values"},
	{SSStructural, RuleSharedSubplans, "any", CrossesIf,
		"identity is fingerprint AND structural equality",
		"a fingerprint collision must not merge two different plans"},
	{SSNested, RuleSharedSubplans, "any", CrossesIf,
		"a subtree inside a served subtree is counted only if the executor evaluates it, which it never does: it is served once, with its parent",
		"union(join(S, S), join(S, S)) serves 2, not 4"},
	{SSExtensionDeterministic, RuleSharedSubplans, "any", CrossesIf,
		"every extension in the subtree declares deterministic (a subtree without extensions satisfies it)",
		"union(S, S) with S = nd_tag(t): the executor evaluates S twice (its counter gives other tags), so only the scan inside S is served"},
}
