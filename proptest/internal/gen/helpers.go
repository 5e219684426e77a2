package gen

import (
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// Short names for the plan-editing helpers the generator uses throughout.
var (
	col          = planutil.Col
	lit          = planutil.Lit
	call         = planutil.Call
	udfCall      = planutil.UDFCall
	alias        = planutil.Alias
	named        = planutil.Named
	zeroValue    = planutil.ZeroValue
	exprLists    = planutil.ExprLists
	withEntry    = planutil.WithEntry
	withAppended = planutil.WithAppended
	subterms     = planutil.Subterms
	replaceAt    = planutil.ReplaceAt
	nodes        = planutil.Nodes
	replaceNode  = planutil.ReplaceNode
	newResolver  = planutil.NewResolver
)

// udfs and extensions are the one registry of each the generator uses. UDF
// calls and extension nodes hold pointers into them, and plan.Equal compares
// UDFs and extensions by pointer, so a loader that maps names back to
// definitions must use these same registries (see UDFs, Extensions).
var (
	udfs       = plan.BuiltinUDFs()
	extensions = testops.Registry()

	udfIncWrap       = mustUDF("inc_wrap")
	udfCheckedDouble = mustUDF("checked_double")
	udfNdSeq         = mustUDF("nd_seq")
	udfNdTick        = mustUDF("nd_tick")
	extIdentity      = mustExtension("identity")
	// The operators that exercise the extension cells: passthrough_tag
	// declares every property; each other one lacks the property of one
	// cell.
	extPassthroughTag = mustExtension("passthrough_tag")
	extCheckedTag     = mustExtension("checked_tag")
	extSwapPairs      = mustExtension("swap_pairs")
	extNdTag          = mustExtension("nd_tag")
	extNullFirst      = mustExtension("null_first")
	extLagFirst       = mustExtension("lag_first")
)

func mustUDF(name string) *plan.UDF {
	u, ok := udfs.Lookup(name)
	if !ok {
		panic("proptest: built-in UDF " + name + " is missing") // fixed set: a programming error
	}
	return u
}

func mustExtension(name string) *plan.ExtensionDef {
	d, ok := extensions.Lookup(name)
	if !ok {
		panic("proptest: built-in extension " + name + " is missing")
	}
	return d
}

// UDFs returns the registry whose definitions generated plans call.
func UDFs() *plan.UDFRegistry { return udfs }

// Extensions returns the registry whose declarations generated plans use.
func Extensions() *plan.ExtensionRegistry { return extensions }
