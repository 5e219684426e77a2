package exec

import (
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/ops"

	"github.com/dfopt/dfopt/plan"
)

// Options configure one collect.
type Options struct {
	// Mem is the allocator of every Arrow buffer the collect creates; nil
	// means memory.DefaultAllocator.
	Mem memory.Allocator
	// Extensions maps extension node names to implementations; nil means
	// BuiltinExtensions() ("identity" and the test operators).
	Extensions *Extensions
	// OnEvaluate, when set, is called once for every node the collect
	// actually evaluates (after its children, before the node itself), and
	// never for a node served from the memo or skipped inside a served
	// subtree. Tests and tools use it to observe sharing.
	OnEvaluate func(n plan.Node)
	// Parallelism is the most goroutines one collect uses at once: a node
	// over many rows splits them into partitions evaluated concurrently
	// (see the package documentation, "Parallelism"), and a Parquet scan
	// decodes row groups and columns concurrently. 0 means
	// runtime.GOMAXPROCS(0); 1 evaluates everything on the calling
	// goroutine. Results and errors do not depend on it.
	Parallelism int
	// PartitionRows is the fewest rows worth a partition of their own
	// (rounded up to a multiple of 8); 0 means ops.DefaultMinRows. Tests
	// and the oracle set it small so that even tiny tables split into
	// several partitions.
	PartitionRows int
}

// parallel resolves the options' parallelism.
func (o Options) parallel() ops.Parallel {
	w := o.Parallelism
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return ops.Parallel{Workers: w, MinRows: o.PartitionRows}
}
