package oracle

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/proptest"
)

// TestBisectEveryMutant is the attribution check of notes/verification.md
// (R14, R15, R17), too long for every run: set DFOPT_BISECT_ALL=N to run a
// mutation campaign of N plans per cell (seed 1) and bisect every kill under
// its flipped table. Each bisection must name the flipped cell, and its
// minimized case must still name it when bisected again. It logs, per cell,
// the first bad application, the sizes before and after, and the times.
func TestBisectEveryMutant(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DFOPT_BISECT_ALL"))
	if n <= 0 {
		t.Skip("set DFOPT_BISECT_ALL=N (plans per cell) to bisect every mutant's first kill")
	}
	ctx := context.Background()
	rep, err := (&Mutation{Seed: 1, N: n}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var nodes []int
	var again []time.Duration
	named, among := 0, 0 // the flipped cell is the first bad application's cell, or among its cells
	for _, m := range rep.Results {
		if !m.Killed {
			continue
		}
		table, err := legality.Default().Flipped(m.Cell)
		if err != nil {
			t.Fatal(err)
		}
		flags := DefaultFlags()
		flags.Table = table
		pc := proptest.Generate(m.Seed, rep.Config)
		res, err := Bisect(ctx, Case{Name: string(m.Cell), Plan: pc.Plan, Flags: &flags}, BisectOptions{})
		if err != nil {
			t.Errorf("%s: %v", m.Cell, err)
			continue
		}
		if res.Cell != m.Cell {
			t.Errorf("%s: bisect named cell %q (%s)", m.Cell, res.Cell, res.Culprit())
		}
		start := time.Now()
		// The minimized case diverges under the culprit's flags, which
		// its plan file carries.
		min, err := Bisect(ctx, Case{Plan: res.Minimized.Plan, Flags: &res.Minimal}, BisectOptions{})
		took := time.Since(start)
		if err != nil || min.Cell != m.Cell {
			t.Errorf("%s: the minimized case bisects to %v (%v)", m.Cell, min, err)
			continue
		}
		again = append(again, took)
		nodes = append(nodes, res.After.Nodes)
		app := "-"
		if res.MinFirst != nil {
			app = fmt.Sprintf("#%d %s", res.MinFirst.Index, res.MinFirst.Cell)
			if res.MinFirst.Cell == m.Cell {
				named++
			}
			for _, c := range res.MinFirst.Cells {
				if c == m.Cell {
					among++
					break
				}
			}
		}
		lines = append(lines, fmt.Sprintf("%-26s rules=%-40s app=%-28s nodes %2d->%d exprs %3d->%2d rows %3d->%d cols %2d->%d  bisect %6.2fs  again %5.3fs",
			m.Cell, strings.Join(res.MinimalNames, "+"), app, res.Before.Nodes, res.After.Nodes, res.Before.Exprs, res.After.Exprs,
			res.Before.Rows, res.After.Rows, res.Before.Columns, res.After.Columns, res.Elapsed.Seconds(), took.Seconds()))
	}
	sort.Ints(nodes)
	sort.Slice(again, func(i, j int) bool { return again[i] < again[j] })
	t.Logf("bisected %d kills:\n%s", len(lines), strings.Join(lines, "\n"))
	t.Logf("the flipped cell is the first bad application's cell in %d bisections, among the cells that allowed it in %d", named, among)
	if len(nodes) > 0 {
		t.Logf("minimized nodes: median %d, max %d; bisect of a minimized case: median %s, max %s",
			nodes[len(nodes)/2], nodes[len(nodes)-1], again[len(again)/2], again[len(again)-1])
	}
}
