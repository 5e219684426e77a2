package step

import "github.com/dfopt/dfopt/exec/internal/par"

// Recovered is the error of a panic with value v, recovered in the deferred
// function of the work named where (call it from that function, so that the
// stack is the panic's). Its message is one line; the stack is kept in the
// error and shown only when DFOPT_DEBUG holds "stack". The eager chain uses
// it as the executor does.
func Recovered(where string, v any) error { return par.Recovered(where, v) }
