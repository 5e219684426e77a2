package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// TestHeadReadsOnlyTheRowGroupsItNeeds: Q7, a head over a projection of
// the id-ordered table t, reads one Parquet row group when optimized — the
// limit moves below the projection and gives the scan a max-rows hint of
// 100 (limit_pushdown) — and every row group as written, with the same
// rows. The test data has 60,000 rows in row groups of 16,384: 4 groups.
func TestHeadReadsOnlyTheRowGroupsItNeeds(t *testing.T) {
	data := testData(t)
	for _, optimize := range []bool{true, false} {
		var src *parquet.Source
		doc, err := planjson.DecodeFile(filepath.Join("queries", "q7.json"), planjson.Options{
			OpenParquet: func(name, path string) (plan.Source, error) {
				s, err := parquet.OpenFile(name, filepath.Join(data, filepath.Base(path)))
				src = s
				return s, err
			}})
		if err != nil {
			t.Fatal(err)
		}
		root := doc.Plan
		if optimize {
			res, err := rules.Optimize(root, rules.DefaultFlags())
			if err != nil {
				t.Fatal(err)
			}
			if res.Counters.Get("scanMaxRows") != 1 || res.Counters.Get("pushedLimits") != 1 {
				t.Errorf("counters %s, want the limit below the projection and a max-rows hint", res.Counters.Moved())
			}
			root = res.Plan
		}
		out, err := exec.Collect(context.Background(), root, exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows := out.Record.NumRows()
		sum, err := ChecksumRecord(out.Record)
		out.Release()
		if err != nil {
			t.Fatal(err)
		}
		st := src.Stats()
		wantRead, wantUnread := int64(4), int64(0)
		if optimize {
			wantRead, wantUnread = 1, 3
		}
		if st.RowGroupsRead != wantRead || st.RowGroupsUnread != wantUnread {
			t.Errorf("optimize=%v: row groups %+v, want read=%d unread=%d", optimize, st, wantRead, wantUnread)
		}
		want := direct(100)["q7"]
		want.check(t, QueryResult{Name: "q7", Rows: rows, Checksum: sum})
	}
}
