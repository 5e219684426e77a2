package parquet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

func TestCollectParquet(t *testing.T) {
	dir := t.TempDir()
	path, tbl := groupedFile(t, dir)
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	pred := c("id").Ge(lt(2500))
	// Unoptimized: scan everything, filter above.
	plain := plan.Scan(src).Filter(pred).Select(c("s"), c("x")).Node()
	// As the optimizer leaves it: projected scan with the conjunct pushed
	// Inexact, the filter kept above.
	pushed := plan.FromNode(pushedScan(src, []string{"id", "s", "x"}, plan.Inexact, pred)).Filter(pred).Select(c("s"), c("x")).Node()
	mem := checked(t)
	before := src.Stats()
	r1, err := exec.Collect(context.Background(), plain, exec.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Release()
	mid := src.Stats()
	r2, err := exec.Collect(context.Background(), pushed, exec.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Release()
	after := src.Stats()
	if got := mid.RowGroupsRead - before.RowGroupsRead; got != 4 {
		t.Errorf("plain scan read %d row groups, want 4", got)
	}
	if got := after.RowGroupsRead - mid.RowGroupsRead; got != 2 {
		t.Errorf("pushed scan read %d row groups, want 2", got)
	}
	want := []col{{"s", tbl.Column(2)[2500:]}, {"x", tbl.Column(1)[2500:]}}
	compare(t, r1, want)
	compare(t, r2, want)
	// The file disappears: a clear source error naming the file.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = exec.Collect(context.Background(), plain, exec.Options{Mem: mem})
	if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.SourceError || pe.Expr != "g" || !strings.Contains(err.Error(), "g.parquet") {
		t.Fatalf("collect of a removed file: %v", err)
	}
	// A column the plan names is gone from the rewritten file.
	other := mustTable(t, "o", []plan.Field{{Name: "id", Type: plan.Int64}}, []plan.Value{plan.Int64Value(1)})
	rec, err := kernel.TableRecord(memory.DefaultAllocator, other)
	if err != nil {
		t.Fatal(err)
	}
	writeParquet(t, path, rec, 10)
	rec.Release()
	_, err = exec.Collect(context.Background(), plain, exec.Options{Mem: mem})
	if err == nil || !strings.Contains(err.Error(), `column "x" is missing`) {
		t.Fatalf("collect of a file without column x: %v", err)
	}
}

// TestExactConjunctMeetsEveryRow: a scan's Exact conjunct that the executor
// applies itself meets every row of the source, even when an Inexact
// conjunct of the same pushed list would let the source skip the row group
// where it raises.
func TestExactConjunctMeetsEveryRow(t *testing.T) {
	path, _ := groupedFile(t, t.TempDir())
	src, err := OpenFile("g", path)
	if err != nil {
		t.Fatal(err)
	}
	raises := c("id").Sub(lt(10)).Div(c("id").Sub(lt(10))).Gt(lt(0)) // divides by zero at id = 10, in row group 0
	skips := c("id").Ge(lt(2500))                                    // proves row groups 0 and 1 empty
	n := &plan.ScanNode{Source: src, SourceSchema: src.Schema(), Pushed: []plan.PushedPredicate{
		{Expr: raises.Expr(), Support: plan.Exact}, {Expr: skips.Expr(), Support: plan.Inexact}}}
	check(t, plan.FromNode(n).Filter(skips).Node(), want{errKind: plan.DivideByZero, errExpr: "(id - 10) / (id - 10)"})
	before := src.Stats()
	if _, err := exec.Collect(context.Background(), plan.FromNode(n).Filter(skips).Node(), exec.Options{}); err == nil {
		t.Fatal("no error")
	}
	if got := src.Stats().RowGroupsRead - before.RowGroupsRead; got != 4 {
		t.Errorf("the scan read %d row groups, want all 4", got)
	}
	// Without an executor-applied conjunct the Inexact one still prunes.
	n2 := &plan.ScanNode{Source: src, SourceSchema: src.Schema(), Pushed: []plan.PushedPredicate{{Expr: skips.Expr(), Support: plan.Inexact}}}
	before = src.Stats()
	if r, err := exec.Collect(context.Background(), plan.FromNode(n2).Filter(skips).Node(), exec.Options{}); err != nil {
		t.Fatal(err)
	} else {
		r.Release()
	}
	if got := src.Stats().RowGroupsRead - before.RowGroupsRead; got != 2 {
		t.Errorf("the pruned scan read %d row groups, want 2", got)
	}
}

// TestScanHintParquetReadsOnlyNeededRowGroups: a Parquet scan under a
// limit with a max-rows hint reads the row groups holding the first rows
// and leaves the rest unread (Stats), with the rows of the full
// read; without the hint, or when the executor applies a pushed conjunct
// itself, every group is read.
func TestScanHintParquetReadsOnlyNeededRowGroups(t *testing.T) {
	tbl := tieTable(t, 10, 3)
	path := filepath.Join(t.TempDir(), "ties.parquet")
	if err := WriteTable(path, tbl, 2); err != nil { // 5 row groups of 2 rows
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                  string
		plan                  func(src plan.Source) plan.Node
		read, unread, skipped int64
	}{
		{"limit 3 with the hint", func(src plan.Source) plan.Node { return hinted(src, 3, 3) }, 2, 3, 0},
		{"limit 4 with the hint", func(src plan.Source) plan.Node { return hinted(src, 4, 4) }, 2, 3, 0},
		{"limit 0 with the hint", func(src plan.Source) plan.Node { return hinted(src, 0, 0) }, 0, 5, 0},
		{"limit 3 without the hint", func(src plan.Source) plan.Node {
			return &plan.LimitNode{Input: plan.Scan(src).Node(), N: 3}
		}, 5, 0, 0},
		{"an Exact conjunct the executor applies", func(src plan.Source) plan.Node {
			return hinted(src, 3, 3, plan.PushedPredicate{Expr: plan.Col("id").Ge(plan.Lit(int64(0))).Expr(), Support: plan.Exact})
		}, 5, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := OpenFile("ties", path)
			if err != nil {
				t.Fatal(err)
			}
			n := tc.plan(src)
			got := collectColumns(t, n, exec.Options{Parallelism: 1})
			st := src.Stats()
			if st.RowGroupsRead != tc.read || st.RowGroupsUnread != tc.unread || st.RowGroupsSkipped != tc.skipped {
				t.Errorf("stats %+v, want read=%d unread=%d skipped=%d", st, tc.read, tc.unread, tc.skipped)
			}
			// The same rows as the limit over the in-memory table.
			lim := n.(*plan.LimitNode).N
			want := collectColumns(t, &plan.LimitNode{Input: plan.Scan(tbl).Node(), N: lim}, exec.Options{Parallelism: 1})
			for c := range want {
				if !sameValues(got[c], want[c]) {
					t.Errorf("column %d: %s, want %s", c, render(got[c]), render(want[c]))
				}
			}
		})
	}
}
