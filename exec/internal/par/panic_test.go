package par

import (
	"errors"
	"strings"
	"testing"
)

// A panic in a partition is an error of one line that keeps the panic's
// value; the stack is in PanicError.Stack, and in the message only when
// DFOPT_DEBUG=stack asks for it.
func TestPanicErrorIsOneLine(t *testing.T) {
	run := func() error {
		return Parallel{Workers: 2}.Run(4, func(i int) {
			if i == 2 {
				var m map[string]int
				m["x"] = 1 // a runtime error, as arrow-go's on a corrupted page
			}
		})
	}
	t.Setenv(DebugEnv, "")
	err := run()
	if err == nil {
		t.Fatal("the panic was lost")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "panic in partition 2: assignment to entry in nil map") {
		t.Errorf("message %q: want one line naming the partition and the panic", msg)
	}
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "goroutine") {
		t.Fatalf("error %T does not keep the stack", err)
	}
	var rt interface{ RuntimeError() }
	if !errors.As(err, &rt) {
		t.Error("the runtime error is not reachable through errors.As")
	}
	t.Setenv(DebugEnv, "other,stack")
	if msg := run().Error(); !strings.Contains(msg, "\ngoroutine ") {
		t.Errorf("with %s=stack the message lacks the stack:\n%s", DebugEnv, msg)
	}
}
