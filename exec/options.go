package exec

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// Options configure one collect.
type Options struct {
	// Mem is the allocator of every Arrow buffer the collect creates; nil
	// means memory.DefaultAllocator.
	Mem memory.Allocator
	// Extensions maps extension node names to implementations; nil means
	// BuiltinExtensions() (only "identity").
	Extensions *Extensions
	// OnEvaluate, when set, is called once for every node the collect
	// actually evaluates (after its children, before the node itself), and
	// never for a node served from the memo or skipped inside a served
	// subtree. Tests and tools use it to observe sharing.
	OnEvaluate func(n plan.Node)
}
