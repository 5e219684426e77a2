package parquet

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// randomStringTests draws one or two conjuncts on string column x, their
// literals taken from the column's values (so some rows match), empty,
// absent, or null; sometimes an or of two such tests (an IN list as a
// dataframe front end writes it).
func randomStringTests(r *rand.Rand, u pqUnit) []plan.Expr {
	lit := func() plan.Expr {
		switch k := r.Intn(8); {
		case k == 0:
			return &plan.Literal{Value: plan.StringValue("")}
		case k == 1:
			return &plan.Literal{Value: plan.NullValue(plan.String)}
		case k == 2 || len(u.offs) < 2:
			return &plan.Literal{Value: plan.StringValue("\xff absent")}
		}
		i := r.Intn(len(u.offs) - 1)
		return &plan.Literal{Value: plan.StringValue(string(u.data[u.offs[i]:u.offs[i+1]]))}
	}
	x := &plan.Column{Name: "x"}
	var out []plan.Expr
	for range 1 + r.Intn(2) {
		switch r.Intn(8) {
		case 0:
			out = append(out, &plan.Call{Fn: plan.FuncEq, Args: []plan.Expr{x, lit()}})
		case 1:
			out = append(out, &plan.Call{Fn: plan.FuncNe, Args: []plan.Expr{x, lit()}})
		case 2:
			out = append(out, &plan.Call{Fn: plan.FuncLt, Args: []plan.Expr{x, lit()}})
		case 3:
			out = append(out, &plan.Call{Fn: plan.FuncGe, Args: []plan.Expr{x, lit()}})
		case 4:
			out = append(out, &plan.Call{Fn: plan.FuncIsIn, Args: []plan.Expr{x, lit(), lit(), lit()}})
		case 6:
			a := &plan.Call{Fn: plan.FuncEq, Args: []plan.Expr{x, lit()}}
			b := &plan.Call{Fn: []plan.Func{plan.FuncEq, plan.FuncLt, plan.FuncGe}[r.Intn(3)], Args: []plan.Expr{x, lit()}}
			out = append(out, &plan.Call{Fn: plan.FuncOr, Args: []plan.Expr{a, b}})
		case 5:
			p := lit().(*plan.Literal)
			if p.Value.IsNull() {
				p = &plan.Literal{Value: plan.StringValue("")}
			}
			s := p.Value.Str()
			out = append(out, &plan.Call{Fn: plan.FuncStartsWith, Args: []plan.Expr{x, &plan.Literal{Value: plan.StringValue(s[:r.Intn(len(s)+1)])}}})
		default:
			out = append(out, &plan.Call{Fn: plan.FuncIsNull, Args: []plan.Expr{x}})
		}
	}
	return out
}

// checkDictTest tests the string column of a random file, every row group,
// with random conjuncts over all rows and over random rows, last and not,
// both from the dictionary (dictTest) and over the decoded strings (test),
// and reports the first difference in the rows passed, or that dictTest
// tested a chunk without a dictionary; and how many tests dictTest took on.
func checkDictTest(c pageCase) (string, int) {
	data, s, err := writePageCase(c)
	if err != nil {
		return "writing: " + err.Error(), 0
	}
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return "opening: " + err.Error(), 0
	}
	defer rdr.Close()
	cols, err := pqColumns(rdr, s, []int{0})
	if err != nil {
		return err.Error(), 0
	}
	if c.seed%2 == 0 {
		cols[0].src = bytes.NewReader(data)
	}
	col := cols[0]
	ctx := context.Background()
	mem := memory.DefaultAllocator
	ev := kernel.Evaluator{Mem: mem}
	r := rand.New(rand.NewSource(c.seed ^ 0xd1c7))
	handled := 0
	for g := range rdr.NumRowGroups() {
		rows := int(rdr.MetaData().RowGroup(g).NumRows())
		full := decodeUnitReader(ctx, rdr, g, col, nil, 0, rows)
		if full.err != nil {
			return fmt.Sprintf("row group %d: the reader failed: %v", g, full.err), handled
		}
		for try := range 6 {
			conj := randomStringTests(r, full)
			filt := &rowFilter{cols: []int{0}, conj: [][]plan.Expr{conj},
				schema: []*arrow.Schema{arrow.NewSchema([]arrow.Field{{Name: "x", Type: col.dt, Nullable: col.maxDef > 0}}, nil)}}
			var keep []int32
			if try >= 2 {
				// Some rows (a column tested after another); from try 4
				// few of them, whose indices are read from the runs one by
				// one, and at try 5 none past the first few hundred rows'
				// pages.
				every, upto := 3, rows
				if try >= 4 {
					every = 20
				}
				if try == 5 {
					upto = min(rows, 300)
				}
				keep = []int32{}
				for i := range upto {
					if r.Intn(every) == 0 {
						keep = append(keep, int32(i))
					}
				}
				if len(keep) == 0 {
					keep = nil
				}
			}
			last := try%2 == 1
			sc := &groupScratch{rows: rows, units: []pqUnit{full}, bufs: []*memory.Buffer{nil}, base: [][]int32{nil}}
			want, ok := sc.test(ctx, ev, mem, col, 0, filt, keep, last)
			if !ok {
				return fmt.Sprintf("row group %d: the test over the strings failed", g), handled
			}
			got, ok := sc.dictTest(ctx, ev, mem, rdr, g, col, 0, filt, keep, last)
			end := rows
			if keep != nil {
				end = int(keep[len(keep)-1]) + 1
			}
			if !ok {
				continue
			}
			handled++
			if !c.dict && end > 0 {
				return fmt.Sprintf("row group %d: dictTest tested a PLAIN chunk", g), handled
			}
			if (got == nil) != (want == nil) || !slices.Equal(got, want) {
				return fmt.Sprintf("row group %d, conjuncts %v, keep %v, last %v: passed %v, want %v", g, conj, keep, last, got, want), handled
			}
		}
	}
	return "", handled
}

// TestDictTestMatchesTest checks that testing a string column from its
// dictionary passes exactly the rows that testing its decoded strings
// passes, on random files: required and optional columns (no, some, only
// nulls), empty strings, conjuncts true, false and null on null (is_null,
// null literals), data pages v1 and v2, codecs, many pages, several row
// groups, all rows or some (a column tested after another); and that it
// gives up, leaving the column to the plain test, where the chunk is not
// dictionary encoded throughout (PLAIN pages, a dictionary overflowing into
// PLAIN pages mid-chunk). At least 100 of the tests must be taken from the
// dictionary, so that the property cannot hold vacuously.
func TestDictTestMatchesTest(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	handled := 0
	props.Property("dictTest = test", prop.ForAll(func(seed int64) string {
		c := randomPageCase(seed)
		if c.typ != plan.String {
			c.typ, c.encoding = plan.String, parquet.Encodings.Plain // the other types' encodings are no string's
		}
		if c.rows == 70000 {
			c.rows = 3000
		}
		d, n := checkDictTest(c)
		handled += n
		if d != "" {
			return c.String() + ": " + d
		}
		return ""
	}, gen.Int64()))
	props.TestingRun(t)
	if handled < 100 {
		t.Errorf("dictTest handled %d tests, want 100 or more", handled)
	}
}
