package proptest

import "github.com/dfopt/dfopt/proptest/internal/planutil"

// Short names for the plan-editing helpers the shrinker, Size and Features
// use throughout.
var (
	col             = planutil.Col
	lit             = planutil.Lit
	call            = planutil.Call
	named           = planutil.Named
	scanOf          = planutil.ScanOf
	zeroValue       = planutil.ZeroValue
	valueComplexity = planutil.ValueComplexity
	canonical       = planutil.Canonical
	exprLists       = planutil.ExprLists
	withEntry       = planutil.WithEntry
	withoutEntry    = planutil.WithoutEntry
	mapEntries      = planutil.MapEntries
	subterms        = planutil.Subterms
	replaceAt       = planutil.ReplaceAt
	exprSize        = planutil.ExprSize
	nodes           = planutil.Nodes
	namedList       = planutil.NamedList
	inputIndex      = planutil.InputIndex
	typeOfAny       = planutil.TypeOfAny
	rebindScans     = planutil.RebindScans
	rewrite         = planutil.Rewrite
	replaceNode     = planutil.ReplaceNode
	newResolver     = planutil.NewResolver
)

// canonicalNaN is the bit pattern of math.NaN().
var canonicalNaN = planutil.CanonicalNaN
