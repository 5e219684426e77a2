package par

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// DebugEnv is the environment variable that puts the goroutine stack of a
// recovered panic into its error message: DFOPT_DEBUG=stack. Without it a
// message stays one line (a corrupted Parquet page that made arrow-go
// panic used to print a 36-line stack as the error); the stack is always
// kept in PanicError.Stack for programs that want it.
const DebugEnv = "DFOPT_DEBUG"

// PanicError is a panic recovered by the executor: where it happened, the
// value passed to panic and the stack at the recovery. Its message is one
// line unless DebugEnv holds "stack".
type PanicError struct {
	// Where names the work that panicked ("partition 3").
	Where string
	// Value is what was passed to panic.
	Value any
	// Stack is runtime/debug.Stack() at the recovery.
	Stack []byte
}

// Recovered returns the error of a panic with value v, recovered in the
// deferred function of the work named where; call it from that function so
// that the stack is the panic's.
func Recovered(where string, v any) *PanicError {
	return &PanicError{Where: where, Value: v, Stack: debug.Stack()}
}

// Error renders "panic in WHERE: VALUE" on one line, followed by the stack
// when DebugEnv asks for it.
func (e *PanicError) Error() string {
	msg := strings.ReplaceAll(fmt.Sprintf("panic in %s: %v", e.Where, e.Value), "\n", " ")
	if StacksWanted() {
		msg += "\n" + string(e.Stack)
	}
	return msg
}

// Unwrap returns the panic value when it is an error (a runtime error, or
// an error a library panicked with), so errors.As sees it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// StacksWanted reports whether DebugEnv asks for stacks in messages.
func StacksWanted() bool {
	for _, w := range strings.Split(os.Getenv(DebugEnv), ",") {
		if strings.TrimSpace(w) == "stack" {
			return true
		}
	}
	return false
}
