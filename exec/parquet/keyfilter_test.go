package parquet

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// keyFilterCase is one random join of a small left table to a Parquet
// file (exec's runtime key filters, keyfilter.go).
type keyFilterCase struct {
	seed      int64
	typ       plan.Type // the key type
	how       plan.JoinKind
	leftRows  int
	rightRows int
	groupRows int
	span      int64 // right keys lie in [base, base+span)
	base      int64
	nulls     bool // nullable keys, with some nulls
	opts      plan.JoinOptions
	exprKey   bool // the right key is k + 0, not a plain column
	twoKeys   bool
	par       int
	// side says which inputs are Parquet files: 0 the right, 1 the left,
	// 2 both (the other is an in-memory table).
	side int
	// filter puts a filter over the Parquet scans: 0 none, 1 a total one,
	// 2 one that raises divide_by_zero on the row whose x is 7.
	filter int
	// shared: 1 cross-joins the join with the row count and x sum of its
	// inputs' own subtrees (Equal to them: the memo shares them), which
	// must see every row of the input (so none is filtered); 2 unions the
	// join with itself (the memo shares the whole join, and the filtered
	// input occurs only inside it); 3 unions the inner join of the
	// inputs, projected to the left input's columns, with their semi join
	// on the same keys (a probe class: the two share the filtered input
	// and the pairs).
	shared int
	// rowIndex numbers each input's rows (row_index, offset rowOffset,
	// then a projection of the number and every column, as join_order
	// does): 1 sorts the join by the numbers and drops them (they order
	// rows only, so the inputs may be filtered below them); 2 outputs
	// them (so neither input may be).
	rowIndex  int
	rowOffset int64
	// semiValidate is the semi join's validate when shared is 3.
	semiValidate plan.JoinValidate
}

func (c keyFilterCase) String() string {
	return fmt.Sprintf("seed=%d typ=%s how=%s left=%d right=%d groups=%d span=%d base=%d nulls=%v opts=%+v exprKey=%v twoKeys=%v par=%d side=%d filter=%d shared=%d rowIndex=%d rowOffset=%d semiValidate=%s",
		c.seed, c.typ, c.how, c.leftRows, c.rightRows, c.groupRows, c.span, c.base, c.nulls, c.opts, c.exprKey, c.twoKeys, c.par, c.side, c.filter, c.shared, c.rowIndex, c.rowOffset, c.semiValidate)
}

func newKeyFilterCase(seed int64) keyFilterCase {
	r := rand.New(rand.NewPCG(uint64(seed), 99))
	c := keyFilterCase{seed: seed, par: 1 + r.IntN(3)}
	c.typ = []plan.Type{plan.Int64, plan.Int32, plan.Date}[r.IntN(3)]
	c.how = []plan.JoinKind{plan.InnerJoin, plan.InnerJoin, plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin, plan.RightJoin, plan.FullJoin}[r.IntN(8)]
	c.leftRows = r.IntN(40)
	c.rightRows = r.IntN(1500)
	c.groupRows = 1 + r.IntN(700)
	c.span = []int64{5, 300, 300, 5000, 1 << 30}[r.IntN(5)]
	c.base = []int64{0, -100, 1 << 20}[r.IntN(3)]
	if c.typ == plan.Int64 && r.IntN(4) == 0 {
		c.base = 1 << 40 // keys past the int32 range
	}
	c.nulls = r.IntN(3) == 0
	switch r.IntN(8) {
	case 0:
		c.opts.NullsEqual = true
	case 1:
		c.opts.Validate = plan.ValidateManyToOne
	case 2:
		c.opts.Validate = plan.ValidateOneToMany
	case 3:
		c.exprKey = true
	}
	c.twoKeys = r.IntN(5) == 0
	c.side = r.IntN(3)
	c.shared = []int{0, 0, 0, 0, 1, 2, 3}[r.IntN(7)]
	c.filter = []int{0, 0, 1, 1, 2}[r.IntN(5)]
	c.rowIndex = []int{0, 0, 0, 1, 1, 2}[r.IntN(6)]
	if c.shared == 3 {
		// The class's joins are the inner and the semi join: a semi
		// join's validate is drawn separately (either may refuse a side),
		// and no sort is put over them.
		c.how, c.semiValidate = plan.InnerJoin, []plan.JoinValidate{plan.ValidateManyToMany, plan.ValidateManyToMany, plan.ValidateManyToOne, plan.ValidateOneToMany}[r.IntN(4)]
		if c.rowIndex == 1 {
			c.rowIndex = 0
		}
	}
	c.rowOffset = []int64{0, 0, 3, math.MaxInt64 - 2000, math.MaxInt64 - 5}[r.IntN(5)]
	if c.side == 1 {
		c.leftRows, c.rightRows = c.rightRows, c.leftRows
	}
	if c.side == 2 && r.IntN(2) == 0 {
		c.leftRows = r.IntN(1500)
	}
	return c
}

// keyValue is key k of type t.
func keyValue(t plan.Type, k int64) plan.Value {
	switch t {
	case plan.Int32:
		return plan.Int32Value(int32(k))
	case plan.Date:
		return plan.DateValue(int32(k))
	}
	return plan.Int64Value(k)
}

// tables builds the case's left and right tables (k, s, x, f), and
// writes each as a Parquet file opened as a source.
func (c keyFilterCase) tables(t *testing.T) (left, right *plan.Table, lsrc, rsrc *Source) {
	r := rand.New(rand.NewPCG(uint64(c.seed), 7))
	key := func() plan.Value {
		if c.nulls && r.IntN(10) == 0 {
			return plan.NullValue(c.typ)
		}
		return keyValue(c.typ, c.base+r.Int64N(c.span))
	}
	side := func(name string, rows int) (*plan.Table, *Source) {
		k, s, x, f := make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows)
		for i := range k {
			k[i] = key()
			s[i] = plan.StringValue(fmt.Sprint("s", r.IntN(3)))
			if r.IntN(7) == 0 {
				s[i] = plan.NullValue(plan.String)
			}
			x[i] = plan.Int64Value(int64(i))
			f[i] = plan.Float64Value(r.Float64())
		}
		tbl := mustTable(t, name, []plan.Field{{Name: "k", Type: c.typ, Nullable: c.nulls}, {Name: "s", Type: plan.String, Nullable: true},
			{Name: "x", Type: plan.Int64}, {Name: "f", Type: plan.Float64}}, k, s, x, f)
		path := filepath.Join(t.TempDir(), fmt.Sprintf("%s%d.parquet", name, c.seed))
		if c.seed%2 == 0 {
			if err := WriteTable(path, tbl, c.groupRows); err != nil { // no dictionary
				t.Fatal(err)
			}
		} else {
			// Dictionary-encoded (the writer's default), as most files are.
			rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
			if err != nil {
				t.Fatal(err)
			}
			writeParquetRaw(t, path, rec, int64(c.groupRows))
			rec.Release()
		}
		src, err := OpenFile(name, path)
		if err != nil {
			t.Fatal(err)
		}
		return tbl, src
	}
	left, lsrc = side("l", c.leftRows)
	right, rsrc = side("r", c.rightRows)
	return left, right, lsrc, rsrc
}

// plan joins left to right as the case says, each input a scan, under the
// case's filter when it is a Parquet file (parquet).
func (c keyFilterCase) plan(left, right plan.Source, parquet [2]bool) plan.Node {
	rkey := c2k("k")
	if c.exprKey {
		rkey = rkey.Add(keyZero(c.typ))
	}
	lon, ron := []plan.E{c2k("k")}, []plan.E{rkey}
	if c.twoKeys {
		lon, ron = []plan.E{c2k("s"), c2k("k")}, []plan.E{c2k("s"), rkey}
	}
	input := func(src plan.Source, pq bool) plan.Frame {
		f := plan.Scan(src)
		switch {
		case !pq:
		case c.filter == 1:
			f = f.Filter(c2k("f").Lt(plan.Lit(0.9)))
		case c.filter == 2:
			f = f.Filter(c2k("x").Div(c2k("x").Sub(plan.Lit(int64(7)))).Gt(plan.Lit(int64(-100))))
		}
		return f
	}
	numbered := func(f plan.Frame, name string) plan.Frame {
		if c.rowIndex == 0 {
			return f
		}
		return f.WithRowIndex(name, c.rowOffset).Select(c2k(name), c2k("k"), c2k("s").Alias("s"), c2k("x"), c2k("f"))
	}
	j := numbered(input(left, parquet[0]), "rl").Join(numbered(input(right, parquet[1]), "rr"), c.how, lon, ron).WithJoinOptions(c.opts)
	if c.rowIndex == 1 {
		keys := []plan.SortKey{plan.Asc(c2k("rl"))}
		var keep []plan.E
		for _, f := range j.Node().Schema().Fields() {
			switch f.Name {
			case "rr":
				keys = append(keys, plan.Desc(c2k("rr")))
			case "rl":
			default:
				keep = append(keep, c2k(f.Name))
			}
		}
		j = j.Sort(keys...).Select(keep...)
	}
	switch c.shared {
	case 1:
		count := func(f plan.Frame, name string) plan.Frame {
			return f.GroupBy().Agg(plan.Len().Alias("n_"+name), c2k("x").Sum().Alias("sx_"+name))
		}
		j = j.CrossJoin(count(input(left, parquet[0]), "l")).CrossJoin(count(input(right, parquet[1]), "r"))
	case 2:
		j = j.Union(j)
	case 3:
		semiOpts := c.opts
		semiOpts.Validate = c.semiValidate
		semi := numbered(input(left, parquet[0]), "rl").Join(numbered(input(right, parquet[1]), "rr"), plan.SemiJoin, lon, ron).WithJoinOptions(semiOpts)
		cols := []plan.E{c2k("k"), c2k("s"), c2k("x"), c2k("f")}
		if c.rowIndex != 0 {
			cols = append([]plan.E{c2k("rl")}, cols...)
		}
		j = j.Select(cols...).Union(semi)
	}
	return j.Node()
}

func c2k(name string) plan.E { return plan.Col(name) }

// keyZero is a zero to add to a key of type t (days for a date).
func keyZero(t plan.Type) plan.E {
	switch t {
	case plan.Int32:
		return plan.Lit(int32(0))
	case plan.Date:
		return plan.Lit(plan.DurationValue(0))
	}
	return plan.Lit(int64(0))
}

// keyOutcome is a collect's rows or error.
type keyOutcome struct {
	cols [][]plan.Value
	err  *plan.Error
	hits int // the memo's
}

func collectKeyOutcome(t *testing.T, n plan.Node, opts exec.Options) keyOutcome {
	opts.Mem = checked(t)
	res, err := exec.Collect(context.Background(), n, opts)
	if err != nil {
		pe, ok := plan.AsError(err)
		if !ok {
			t.Fatalf("error %v is not a *plan.Error", err)
		}
		return keyOutcome{err: pe}
	}
	defer res.Release()
	cols, err := res.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return keyOutcome{cols: cols, hits: res.MemoHits}
}

func (a keyOutcome) diff(b keyOutcome) string {
	if (a.err == nil) != (b.err == nil) {
		return fmt.Sprintf("error %v vs %v", a.err, b.err)
	}
	if a.err != nil {
		if a.err.Kind != b.err.Kind || a.err.Expr != b.err.Expr || a.err.Row != b.err.Row || a.err.Msg != b.err.Msg {
			return fmt.Sprintf("error %v vs %v", a.err, b.err)
		}
		return ""
	}
	if a.hits != b.hits {
		return fmt.Sprintf("%d memo hits vs %d", a.hits, b.hits)
	}
	if len(a.cols) != len(b.cols) {
		return fmt.Sprintf("%d columns vs %d", len(a.cols), len(b.cols))
	}
	for i := range a.cols {
		if !sameValues(a.cols[i], b.cols[i]) {
			return fmt.Sprintf("column %d: %s vs %s", i, render(a.cols[i]), render(b.cols[i]))
		}
	}
	return ""
}

// TestKeyFilteredJoinMatchesTable checks that a join whose right input is a
// Parquet scan yields what it yields over the same rows as an in-memory
// table (which the executor never key-filters): the same rows, order,
// values and errors, for every join kind (right and full are never
// filtered), int64, int32 and date keys, nulls, keys past the int32 range,
// key sets held as a bitmap and as a sorted list, one and two keys,
// nulls_equal, validate m:1 (which checks every right row) and 1:m, a right
// key that is an expression, several row groups, sequentially and split
// over goroutines, and under the memo: inputs Equal to the join's used
// elsewhere, the join used twice, and the inner and semi joins of one probe
// class (which share the filtered input). The filter must drop rows in at
// least 100 cases, 20 of them under a probe class, so that the property
// cannot hold vacuously.
func TestKeyFilteredJoinMatchesTable(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 650
	if testing.Short() {
		params.MinSuccessfulTests = 80
	}
	props := gopter.NewProperties(params)
	dropped, numbered, classes := 0, 0, 0
	props.Property("key-filtered join = plain join", prop.ForAll(func(seed int64) string {
		c := newKeyFilterCase(seed)
		left, right, lsrc, rsrc := c.tables(t)
		opts := exec.Options{Parallelism: c.par, PartitionRows: 64}
		pq := [2]bool{c.side != 0, c.side != 1}
		var l, r plan.Source = left, right
		if pq[0] {
			l = lsrc
		}
		if pq[1] {
			r = rsrc
		}
		want := collectKeyOutcome(t, c.plan(left, right, pq), opts)
		lb, rb := lsrc.Stats().RowsDropped, rsrc.Stats().RowsDropped
		got := collectKeyOutcome(t, c.plan(l, r, pq), opts)
		ld, rd := lsrc.Stats().RowsDropped > lb, rsrc.Stats().RowsDropped > rb
		if ld || rd {
			dropped++
		}
		if d := got.diff(want); d != "" {
			return c.String() + ": " + d
		}
		if c.rowIndex == 1 && (ld || rd) {
			numbered++
		}
		if c.shared == 3 && (ld || rd) {
			classes++
		}
		if c.rowIndex == 2 && (ld || (rd && c.how != plan.SemiJoin && c.how != plan.AntiJoin && c.shared != 3)) {
			// The numbers are output (a semi or anti join drops the
			// right input's, and so does the projection of a probe
			// class's inner join).
			return fmt.Sprintf("%s: a numbered scan was filtered (left %v, right %v)", c, ld, rd)
		}
		if c.opts.NullsEqual || c.filter == 2 || c.shared == 1 || (c.rowIndex == 1 && c.rowOffset > math.MaxInt64-2000) || (rd && (c.how == plan.RightJoin || c.how == plan.FullJoin || c.exprKey || c.opts.Validate == plan.ValidateManyToOne)) ||
			(ld && ((c.how != plan.InnerJoin && c.how != plan.SemiJoin) || c.opts.Validate == plan.ValidateOneToMany)) ||
			(c.shared == 3 && ((rd && c.semiValidate == plan.ValidateManyToOne) || (ld && c.semiValidate == plan.ValidateOneToMany))) {
			if ld || rd {
				return fmt.Sprintf("%s: a scan was filtered (left %v, right %v)", c, ld, rd)
			}
		}
		return ""
	}, gen.Int64()))
	props.TestingRun(t)
	t.Logf("the key filter dropped rows in %d cases, %d below an ordering row_index, %d under a probe class", dropped, numbered, classes)
	if !testing.Short() && classes < 20 {
		t.Errorf("the key filter dropped rows under a probe class in %d cases, want 20 or more", classes)
	}
	if !testing.Short() && dropped < 100 {
		t.Errorf("the key filter dropped rows in %d cases, want 100 or more", dropped)
	}
	if !testing.Short() && numbered < 20 {
		t.Errorf("the key filter dropped rows below an ordering row_index in %d cases, want 20 or more", numbered)
	}
}

// TestKeyFilterErrorOrder: a join whose left input is a Parquet scan the
// executor would key-filter evaluates its right input first; when that
// fails, the join's error is still the left input's if it raises one (the
// written order: left first), else the right one's.
func TestKeyFilterErrorOrder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		removeLeft bool
		want       plan.ErrorKind
	}{
		{"the left input fails too", true, plan.SourceError},
		{"only the right input fails", false, plan.DivideByZero},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := keyFilterCase{seed: 5, typ: plan.Int64, how: plan.InnerJoin, leftRows: 200, rightRows: 20, groupRows: 50, span: 100}
			_, right, lsrc, _ := c.tables(t)
			if tc.removeLeft {
				if err := os.Remove(lsrc.path); err != nil {
					t.Fatal(err)
				}
			}
			raising := plan.Scan(right).Filter(c2k("x").Div(c2k("x").Sub(plan.Lit(int64(7)))).Gt(plan.Lit(int64(-100))))
			n := plan.Scan(lsrc).Join(raising, plan.InnerJoin, []plan.E{c2k("k")}, []plan.E{c2k("k")}).Node()
			got := collectKeyOutcome(t, n, exec.Options{Parallelism: 1})
			if got.err == nil || got.err.Kind != tc.want {
				t.Fatalf("error %v, want a %s", got.err, tc.want)
			}
		})
	}
}

// TestLateScanMatchesTable checks the late-materialized scan over random
// files against the same filter over an in-memory table: random Inexact
// conjuncts pushed into the scan (and kept in the filter above, as the
// optimizer leaves them) on the int, float and nullable dictionary-encoded
// string columns, among them ors of tests of one column, tested one column after another, so that groups are
// dropped, compacted and kept whole, string columns are tested from their
// dictionary and their strings built for the surviving rows only — alone,
// and under a join whose key filter narrows the scan further. The scan
// must compact some group in at least 100 cases, so that the property
// cannot hold vacuously.
func TestLateScanMatchesTable(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(2)
	params.MinSuccessfulTests = 300
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	props := gopter.NewProperties(params)
	compacted := 0
	props.Property("late scan = filter over the table", prop.ForAll(func(seed int64) string {
		c := newKeyFilterCase(seed)
		c.side, c.filter, c.how, c.opts, c.exprKey = 0, 0, plan.InnerJoin, plan.JoinOptions{}, false
		c.rightRows = 200 + int(uint64(seed)%5)*400
		left, right, _, rsrc := c.tables(t)
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		var preds []plan.E
		for range 1 + r.IntN(3) {
			switch r.IntN(6) {
			case 0:
				preds = append(preds, c2k("x").Ge(plan.Lit(int64(r.IntN(c.rightRows+1)))))
			case 1:
				preds = append(preds, c2k("x").Lt(plan.Lit(int64(r.IntN(c.rightRows+1)))))
			case 2:
				preds = append(preds, c2k("s").Eq(plan.Lit(fmt.Sprint("s", r.IntN(3)))))
			case 3:
				preds = append(preds, c2k("s").IsIn(plan.StringValue(fmt.Sprint("s", r.IntN(3))), plan.StringValue("s9")))
			case 4:
				// An or of tests of one column: a string IN list as a
				// dataframe front end writes it, or a range's outside.
				if r.IntN(2) == 0 {
					preds = append(preds, c2k("s").Eq(plan.Lit(fmt.Sprint("s", r.IntN(3)))).Or(c2k("s").Eq(plan.Lit(fmt.Sprint("s", r.IntN(4))))))
				} else {
					preds = append(preds, c2k("x").Lt(plan.Lit(int64(r.IntN(c.rightRows+1)))).Or(c2k("x").Ge(plan.Lit(int64(r.IntN(c.rightRows+1))))))
				}
			default:
				preds = append(preds, c2k("f").Lt(plan.Lit(r.Float64())))
			}
		}
		scanOf := func(src plan.Source) plan.Frame {
			if _, ok := src.(*plan.Table); ok {
				return plan.Scan(src).Filter(preds...)
			}
			return plan.FromNode(pushedScan(src, nil, plan.Inexact, preds...)).Filter(preds...)
		}
		opts := exec.Options{Parallelism: c.par, PartitionRows: 64}
		before := rsrc.Stats()
		for _, join := range []bool{false, true} {
			want, got := scanOf(right), scanOf(rsrc)
			if join {
				want = plan.Scan(left).Join(want, plan.InnerJoin, []plan.E{c2k("k")}, []plan.E{c2k("k")})
				got = plan.Scan(left).Join(got, plan.InnerJoin, []plan.E{c2k("k")}, []plan.E{c2k("k")})
			}
			if d := collectKeyOutcome(t, got.Node(), opts).diff(collectKeyOutcome(t, want.Node(), opts)); d != "" {
				return fmt.Sprintf("%s join=%v preds=%v: %s", c, join, preds, d)
			}
		}
		if st := rsrc.Stats(); st.RowsDropped > before.RowsDropped {
			compacted++
		}
		return ""
	}, gen.Int64()))
	props.TestingRun(t)
	t.Logf("rows dropped in %d cases", compacted)
	if !testing.Short() && compacted < 100 {
		t.Errorf("the late scan dropped rows in %d cases, want 100 or more", compacted)
	}
}
