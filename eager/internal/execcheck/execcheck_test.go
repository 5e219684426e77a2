package execcheck

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/eager/internal/eagertest"
	"github.com/dfopt/dfopt/exec"
)

// TestAgainstExecutor holds eager.FromPlan against exec.Collect on every
// case: the same schema and bitwise the same rows, or the same error (kind
// and expression). The two share only the expression evaluator and the
// relational kernels; the executor resolves the plan and memoizes, eager
// does neither.
func TestAgainstExecutor(t *testing.T) {
	ctx := context.Background()
	for _, c := range eagertest.AllCases() {
		if c.NoExec {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			mem := eagertest.Checked(t)
			df, err := eager.FromPlan(ctx, c.Node, eager.Options{Mem: mem})
			defer df.Release()
			res, xerr := exec.Collect(ctx, c.Node, exec.Options{Mem: mem})
			if res != nil {
				defer res.Release()
			}
			switch {
			case err != nil && xerr != nil:
				eagertest.SameError(t, "eager vs exec", err, xerr)
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
				rows, err := df.Rows()
				if err != nil {
					t.Fatal(err)
				}
				if d := eagertest.DiffRows(rows, xrows); d != "" {
					t.Fatalf("eager vs exec: %s", d)
				}
			}
		})
	}
}
