package ops

import "github.com/dfopt/dfopt/exec/internal/par"

// Parallel says how an operator may split its rows over goroutines: at
// most Workers at once, partitions of at least MinRows rows (0:
// DefaultMinRows). Its zero value (and any Workers <= 1) is sequential.
// The partitioning changes how work is scheduled, never a result: every
// parallel kernel returns the rows, order, bits and errors of its
// sequential form, whatever Workers and MinRows are.
type Parallel = par.Parallel

// Range is a half-open range of rows [Lo, Hi).
type Range = par.Range

// DefaultMinRows is Parallel.MinRows when it is 0: below this many rows a
// partition costs more to schedule than it saves.
const DefaultMinRows = par.DefaultMinRows
