package proptest_test

import (
	"context"
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
)

// TestWithParquet: a generated plan whose tables are backed by Parquet
// files collects exactly as the plan over the in-memory tables (the
// Parquet files hold the same values, NaN payloads, -0.0 and nulls
// included), and the oracle's ways agree on it.
func TestWithParquet(t *testing.T) {
	const n = 150
	cfg := proptest.DefaultConfig()
	dir := t.TempDir()
	backed := 0
	for i := 0; i < n; i++ {
		c := proptest.Generate(proptest.CaseSeed(17, i), cfg)
		root, files, err := proptest.WithParquet(c, dir, 100)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(files) != len(c.Tables) {
			t.Fatalf("case %d: %d of %d tables written at 100%%", i, len(files), len(c.Tables))
		}
		backed += len(files)
		want, werr := collect(c.Plan)
		got, gerr := collect(root)
		switch {
		case (werr == nil) != (gerr == nil):
			t.Fatalf("case %d (seed %d): in memory %v, from Parquet %v", i, c.Seed, werr, gerr)
		case werr != nil:
			if !sameError(werr, gerr) {
				t.Fatalf("case %d (seed %d): in memory %v, from Parquet %v", i, c.Seed, werr, gerr)
			}
		default:
			if len(want) != len(got) {
				t.Fatalf("case %d (seed %d): %d columns, from Parquet %d", i, c.Seed, len(want), len(got))
			}
			for j := range want {
				if len(want[j]) != len(got[j]) {
					t.Fatalf("case %d (seed %d) column %d: %d rows, from Parquet %d", i, c.Seed, j, len(want[j]), len(got[j]))
				}
				for r := range want[j] {
					if !want[j][r].Identical(got[j][r]) {
						t.Fatalf("case %d (seed %d) column %d row %d: %v, from Parquet %v", i, c.Seed, j, r, want[j][r], got[j][r])
					}
				}
			}
		}
		rep := oracle.Check(context.Background(), oracle.Case{Name: c.String(), Plan: root})
		if !rep.Agree() {
			t.Fatalf("case %d (seed %d) over Parquet: the ways diverge: %v\n%s", i, c.Seed, rep.Divergences, c)
		}
	}
	if backed == 0 {
		t.Fatal("no table was written")
	}
	// At 0% nothing is written and the plan is unchanged.
	c := proptest.Generate(proptest.CaseSeed(17, 0), cfg)
	if root, files, err := proptest.WithParquet(c, dir, 0); err != nil || len(files) != 0 || root != c.Plan {
		t.Fatalf("WithParquet at 0%%: %d files, err %v", len(files), err)
	}
}

func collect(root plan.Node) ([][]plan.Value, error) {
	res, err := exec.Collect(context.Background(), root, exec.Options{})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return res.Columns()
}

func sameError(a, b error) bool {
	pa, ok1 := plan.AsError(a)
	pb, ok2 := plan.AsError(b)
	return ok1 && ok2 && pa.Same(pb)
}
