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
	// FilterStageRows is the fewest rows a filter evaluates in stages,
	// its total conjuncts only over the rows the others keep; 0 means the
	// default, 16,384. Rows and errors do not depend on it: the oracle
	// sets it small so that its small random tables take the staged path.
	FilterStageRows int
	// MemoryLimit bounds the memory one collect holds at once, in bytes;
	// 0 means no limit (and no accounting at all), a negative value is an
	// invalid_plan error. Under a limit the collect counts every Arrow
	// buffer it allocates (through Mem) and reserves its large Go-heap
	// structures (hash tables, group ids, row index vectors) before
	// building them; a hash join's build side and an aggregate's hash
	// table that do not fit are partitioned by key hash to spill files in
	// SpillDir and processed partition by partition, with the same rows,
	// order, bits and errors as in memory. What cannot spill — a node's
	// output, evaluated expressions, a window's partitions, a cross
	// join's pairs — fails with a resource_exhausted error naming the
	// node instead of exhausting the process. docs/performance.md
	// ("Memory limit") lists what is counted and what is not.
	MemoryLimit int64
	// SpillDir is the directory under which a collect under MemoryLimit
	// creates its spill directory (on first use); "" means os.TempDir().
	// The collect removes its spill directory when it ends, also when it
	// fails or is cancelled.
	SpillDir string
}

// parallel resolves the options' parallelism.
func (o Options) parallel() ops.Parallel {
	w := o.Parallelism
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return ops.Parallel{Workers: w, MinRows: o.PartitionRows}
}
