package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// builtinExt returns a built-in extension operator (plan/extension_builtin.go):
// each declares all but one of the properties a cell checks.
func builtinExt(name string) *plan.ExtensionDef {
	d, ok := plan.BuiltinExtensions().Lookup(name)
	if !ok {
		panic("no built-in extension " + name)
	}
	return d
}

// extensionCellCases are the cell cases of the extension property cells
// (pp.extension.*, pr.extension.passthrough, ss.extension.deterministic):
// passthrough_tag declares every property and lets each cell allow; each
// refusing case uses the built-in operator that lacks exactly the property
// the cell checks.
func extensionCellCases() []cellCase {
	gt := func(c string, v int) plan.E { return col(c).Gt(lit(v)) }
	over := func(name string) plan.Frame { return scan(tT).Extension(builtinExt(name)) }
	ndJoin := scan(tL).Extension(builtinExt("nd_tag")).JoinOn(scan(tR), plan.InnerJoin, "k")
	return []cellCase{
		{name: "pp_extension_row_preserving_allow", cell: legality.PPExtensionRowPreserving, allow: true, plan: over("passthrough_tag").Filter(gt("a", 1))},
		{name: "pp_extension_row_preserving_refuse", cell: legality.PPExtensionRowPreserving, plan: over("checked_tag").Filter(gt("a", 1))},
		{name: "pp_extension_order_preserving_allow", cell: legality.PPExtensionOrderPreserving, allow: true, plan: over("passthrough_tag").Filter(gt("b", 1))},
		{name: "pp_extension_order_preserving_refuse", cell: legality.PPExtensionOrderPreserving, plan: over("swap_pairs").Filter(gt("a", 1))},
		{name: "pp_extension_deterministic_allow", cell: legality.PPExtensionDeterministic, allow: true, plan: over("passthrough_tag").Filter(col("p"))},
		{name: "pp_extension_deterministic_refuse", cell: legality.PPExtensionDeterministic, plan: over("nd_tag").Filter(gt("a", 1))},
		{name: "pp_extension_passthrough_allow", cell: legality.PPExtensionPassthrough, allow: true,
			plan: over("passthrough_tag").Filter(col("a").Div(col("b")).Gt(lit(1)))},
		{name: "pp_extension_passthrough_refuse", cell: legality.PPExtensionPassthrough, plan: over("null_first").Filter(col("a").IsNull())},
		// A conjunct reading the column the operator adds cannot be
		// expressed below it, even under the mutant.
		{name: "pp_extension_passthrough_refuse_added_column", cell: legality.PPExtensionPassthrough, masked: true,
			plan: over("passthrough_tag").Filter(col("tag"))},

		{name: "pr_extension_passthrough_allow", cell: legality.PRExtensionPassthrough, allow: true, plan: over("passthrough_tag").Select(col("b"), col("tag"))},
		{name: "pr_extension_passthrough_refuse", cell: legality.PRExtensionPassthrough, plan: over("null_first").Select(col("b"))},

		{name: "ss_extension_deterministic_allow", cell: legality.SSExtensionDeterministic, allow: true, plan: over("passthrough_tag").Union(over("passthrough_tag"))},
		// S = join(nd_tag(l), r): the second S is not served, but l and r
		// inside it are (2); the mutant serves S whole (1).
		{name: "ss_extension_deterministic_refuse", cell: legality.SSExtensionDeterministic, plan: ndJoin.Union(ndJoin)},
	}
}
