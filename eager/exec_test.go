package eager_test

import (
	"testing"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/exec"
)

// TestAgainstExecutor holds FromPlan against exec.Collect on every case:
// the same schema and bitwise the same rows, or the same error (kind and
// expression). The two share only the expression evaluator and the
// relational kernels; the executor resolves the plan and memoizes, eager
// does neither.
func TestAgainstExecutor(t *testing.T) {
	for _, c := range allCases() {
		if c.noExec {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			mem := checked(t)
			df, err := eager.FromPlan(bg, c.node, eager.Options{Mem: mem})
			defer df.Release()
			res, xerr := exec.Collect(bg, c.node, exec.Options{Mem: mem})
			if res != nil {
				defer res.Release()
			}
			switch {
			case err != nil && xerr != nil:
				sameError(t, "eager vs exec", err, xerr)
			case err != nil:
				t.Fatalf("eager failed (%v), exec succeeded", err)
			case xerr != nil:
				t.Fatalf("exec failed (%v), eager succeeded", xerr)
			default:
				if !df.Schema().Equal(res.Schema) {
					t.Fatalf("schema %s, exec %s", df.Schema(), res.Schema)
				}
				xrows, err := res.Rows()
				if err != nil {
					t.Fatal(err)
				}
				if d := diffRows(rowsOf(t, df), xrows); d != "" {
					t.Fatalf("eager vs exec: %s", d)
				}
			}
		})
	}
}
