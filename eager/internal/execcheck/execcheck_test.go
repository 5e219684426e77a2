package execcheck

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/eager/internal/eagertest"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// TestAgainstExecutor holds eager.FromPlan against exec.Collect on every
// case: the same schema and bitwise the same rows, or the same error (kind
// and expression). The two share plan.Resolve and the node semantics
// (exec/step, over exec/kernel and exec/ops); what differs is the driver:
// the executor memoizes, composes row index vectors, computes limit(sort)
// as a top-k and pushes conjuncts into sources, eager does none of that.
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

// TestRandomAgainstExecutor holds eager.FromPlan against exec.Collect on
// random plans: the same outcome bit for bit (or the same error), and no
// leak on either side.
func TestRandomAgainstExecutor(t *testing.T) {
	ctx := context.Background()
	props := gopter.NewProperties(eagertest.Parameters(eagertest.Tests(600)))
	props.Property("eager agrees with exec", prop.ForAll(func(n plan.Node) string {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		e := eagerOutcome(ctx, mem, n)
		x := execOutcome(ctx, mem, n)
		if d := eagertest.DiffOutcomes(e, x); d != "" {
			return "eager vs exec: " + d + "\nplan:\n" + plan.Explain(n)
		}
		if mem.CurrentAlloc() != 0 {
			return fmt.Sprintf("%d bytes still allocated\nplan:\n%s", mem.CurrentAlloc(), plan.Explain(n))
		}
		return ""
	}, eagertest.GenPlan()))
	props.TestingRun(t)
}

func eagerOutcome(ctx context.Context, mem memory.Allocator, n plan.Node) eagertest.Outcome {
	df, err := eager.FromPlan(ctx, n, eager.Options{Mem: mem})
	if err != nil {
		return eagertest.Outcome{Err: err}
	}
	defer df.Release()
	rows, err := df.Rows()
	if err != nil {
		return eagertest.Outcome{Err: fmt.Errorf("reading rows: %w", err)}
	}
	return eagertest.Outcome{Schema: df.Schema(), Rows: rows}
}

func execOutcome(ctx context.Context, mem memory.Allocator, n plan.Node) eagertest.Outcome {
	res, err := exec.Collect(ctx, n, exec.Options{Mem: mem})
	if err != nil {
		return eagertest.Outcome{Err: err}
	}
	defer res.Release()
	rows, err := res.Rows()
	if err != nil {
		return eagertest.Outcome{Err: fmt.Errorf("reading rows: %w", err)}
	}
	return eagertest.Outcome{Schema: res.Schema, Rows: rows}
}
