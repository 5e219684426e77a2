package step

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// lazyTable is l: a (int64, with nulls), b (float64), s (string), k
// (int64, non-nullable, repeats), 12 rows.
func lazyTable(t testing.TB) *plan.Table {
	t.Helper()
	var a, b, s, k []plan.Value
	for i := 0; i < 12; i++ {
		if i%5 == 3 {
			a = append(a, plan.NullValue(plan.Int64))
		} else {
			a = append(a, i64(int64(i*7%11-4)))
		}
		b = append(b, plan.Float64Value(float64(i)/2-2))
		s = append(s, plan.StringValue(strconv.Itoa(i%4)))
		k = append(k, i64(int64(i%3)))
	}
	tb, err := plan.NewTable("l", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Float64},
		plan.Field{Name: "s", Type: plan.String},
		plan.Field{Name: "k", Type: plan.Int64},
	), [][]plan.Value{a, b, s, k})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// lazyChain draws a chain of n random steps over lazyTable: filters,
// with_columns appending and replacing (some raising: a division by a
// column holding zeros), sorts, limits, slices, projections, distincts,
// windows, joins and unions, so that lazy frames meet every node that
// reads or flattens them. It returns the plan and its steps as text.
func lazyChain(t testing.TB, r *rand.Rand, n int) (plan.Node, []string) {
	tb := lazyTable(t)
	f := plan.Scan(tb)
	ints := []string{"a", "k"}
	var steps []string
	fresh := 0
	pick := func(xs []string) string { return xs[r.Intn(len(xs))] }
	for i := 0; i < n; i++ {
		var what string
		switch op := r.Intn(14); {
		case op < 4:
			c, v := pick(ints), int64(r.Intn(9)-4)
			f, what = f.Filter(col(c).Gt(lit(v))), fmt.Sprintf("filter(%s > %d)", c, v)
		case op < 7:
			fresh++
			name := "c" + strconv.Itoa(fresh)
			c := pick(ints)
			e := col(c).Add(lit(int64(fresh)))
			if r.Intn(8) == 0 {
				e = col("a").Div(col("k")) // k holds zeros: may raise
			}
			f, what = f.WithColumns(e.Alias(name)), fmt.Sprintf("with_columns(%s as %s)", e, name)
			ints = append(ints, name)
		case op < 8:
			c := pick(ints)
			f, what = f.WithColumns(col(c).Mul(lit(int64(2))).Alias(c)), fmt.Sprintf("with_columns(%s * 2 as %s)", c, c)
		case op < 9:
			c := pick(ints)
			f, what = f.Sort(plan.Desc(col(c))), fmt.Sprintf("sort(%s desc)", c)
		case op < 10:
			if r.Intn(2) == 0 {
				m := int64(r.Intn(12))
				f, what = f.Head(m), fmt.Sprintf("limit %d", m)
			} else {
				o, l := int64(r.Intn(6)), int64(r.Intn(8))
				f, what = f.Slice(o, l), fmt.Sprintf("slice(%d, %d)", o, l)
			}
		case op < 11:
			keep := []string{"k"}
			for _, c := range ints {
				if c != "k" && r.Intn(2) == 0 {
					keep = append(keep, c)
				}
			}
			var es []plan.E
			for _, c := range keep {
				es = append(es, col(c))
			}
			es = append(es, col("b"), col("s"))
			f, ints, what = f.Select(es...), keep, fmt.Sprintf("select(%v, b, s)", keep)
		case op < 12:
			fresh++
			name := "w" + strconv.Itoa(fresh)
			f, what = f.WithColumns(col(pick(ints)).Sum().Over(col("k")).Alias(name)), "with_columns(sum over k as "+name+")"
			ints = append(ints, name)
		case op < 13:
			f, what = f.Distinct("k", "s"), "distinct(k, s)"
			ints, f = []string{"k"}, f.Select(col("k"), col("s"), lit(1.5).Alias("b"))
		default:
			if r.Intn(2) == 0 {
				right := plan.Scan(tb).Select(col("k").Alias("rk"), col("s").Alias("rs"))
				f, what = f.Join(right, plan.LeftJoin, []plan.E{col("k")}, []plan.E{col("rk")}), "left join on k"
				// the right's rk is null where unmatched, so not an int to add to
				continue
			}
			f, what = f.Union(f), "union with itself"
		}
		steps = append(steps, what)
	}
	return f.Node(), steps
}

// outcome is what collect returned, as text: the rows or the error.
func outcome(e *Env, n plan.Node) string {
	rows, err := collect(e, n)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(rows)
}

// outcomeBothWays is the outcome of n with the executor path that path
// switches (a package variable only tests turn off) on (got), and off
// (want): a path that changes nothing gives the two equal.
func outcomeBothWays(t *testing.T, n plan.Node, path *bool) (got, want string) {
	t.Helper()
	got = outcome(env(t), n)
	*path = false
	defer func() { *path = true }()
	return got, outcome(env(t), n)
}

// TestLazyFramesAreFlatFrames: a lazy frame (lazy.go) is invisible — every
// random chain gives the same rows, in the same order, or the same error,
// with lazy frames as with flat ones, every reference released (the
// checked allocator), and filters and with_columns at the top of a chain
// keep their frames lazy.
func TestLazyFramesAreFlatFrames(t *testing.T) {
	seed := int64(20261201)
	if s := os.Getenv("DFOPT_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DFOPT_SEED=%q: %v", s, err)
		}
		seed = v
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 400
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	params.Workers = 1
	t.Logf("gopter seed %d (set DFOPT_SEED to replay another)", seed)
	lazy, flat := env(t), env(t)
	flat.flatFrames = true
	props := gopter.NewProperties(params)
	props.Property("lazy and flat frames agree", prop.ForAll(func(s int64, n int) string {
		p, steps := lazyChain(t, rand.New(rand.NewSource(s)), n)
		got, want := outcome(lazy, p), outcome(flat, p)
		if got != want {
			return fmt.Sprintf("chain %s:\nlazy: %s\nflat: %s", strings.Join(steps, " | "), got, want)
		}
		return ""
	}, gen.Int64(), gen.IntRange(1, 30)))
	props.TestingRun(t)
}

// TestLazyChainSharesItsStore: along a growing chain, every with_columns
// appends into the store of its input (a new store only when its capacity,
// doubled each time, runs out) and every filter makes a child space of
// the same store; a second with_columns of the same frame copies instead
// of writing over the first's column.
func TestLazyChainSharesItsStore(t *testing.T) {
	e := env(t)
	tb := lazyTable(t)
	f := plan.Scan(tb)
	for i := 0; i < 40; i++ {
		if i%2 == 0 {
			f = f.WithColumns(col("k").Add(lit(int64(i))).Alias("c" + strconv.Itoa(i)))
		} else {
			f = f.Filter(col("b").Gt(lit(float64(i) / 40)))
		}
	}
	resolved, err := plan.Resolve(f.Node())
	if err != nil {
		t.Fatal(err)
	}
	tables := NewTables()
	defer tables.Release()
	var chain []plan.Node
	for n := resolved; ; n = n.Children()[0] {
		chain = append([]plan.Node{n}, chain...)
		if len(n.Children()) == 0 {
			break
		}
	}
	cur, err := ScanTable(e, tables, chain[0].(*plan.ScanNode))
	if err != nil {
		t.Fatal(err)
	}
	var store *colStore
	stores := 0
	for i, n := range chain[1:] {
		next, err := Eval(e, n, []*Frame{cur})
		if err != nil {
			t.Fatal(err)
		}
		if next.store == nil {
			t.Fatalf("step %d (%s): a flat frame", i, n.Kind())
		}
		if next.store != store {
			if stores++; stores > 4 || n.Kind() != plan.KindWithColumns {
				t.Fatalf("step %d (%s): store %d of the chain", i, n.Kind(), stores)
			}
			store = next.store
		}
		if i == len(chain)-2 {
			// Two extensions of the same frame: the second copies.
			w1, err := plan.Resolve(plan.FromNode(n).WithColumns(col("k").Alias("x")).Node())
			if err != nil {
				t.Fatal(err)
			}
			w2, err := plan.Resolve(plan.FromNode(n).WithColumns(col("b").Alias("y")).Node())
			if err != nil {
				t.Fatal(err)
			}
			g1, err := Eval(e, w1, []*Frame{next})
			if err != nil {
				t.Fatal(err)
			}
			g2, err := Eval(e, w2, []*Frame{next})
			if err != nil {
				t.Fatal(err)
			}
			if g1.store != store || g2.store == store {
				t.Fatalf("the first extension must share the store, the second copy it")
			}
			r1, r2 := materializeRows(t, e, g1), materializeRows(t, e, g2)
			last := func(rows [][]plan.Value) []plan.Value {
				var out []plan.Value
				for _, r := range rows {
					out = append(out, r[len(r)-1])
				}
				return out
			}
			kc, bc := tb.Schema().Index("k"), tb.Schema().Index("b")
			if want := columnOf(r1, kc); !reflect.DeepEqual(last(r1), want) {
				t.Fatalf("x: got %v, want k %v", last(r1), want)
			}
			if want := columnOf(r2, bc); !reflect.DeepEqual(last(r2), want) {
				t.Fatalf("y: got %v, want b %v", last(r2), want)
			}
			g1.Release()
			g2.Release()
		}
		cur.Release()
		cur = next
	}
	cur.Release()
}

func columnOf(rows [][]plan.Value, i int) []plan.Value {
	var out []plan.Value
	for _, r := range rows {
		out = append(out, r[i])
	}
	return out
}

func materializeRows(t *testing.T, e *Env, f *Frame) [][]plan.Value {
	t.Helper()
	rec, err := e.Materialize(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rows, err := Rows(rec)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLazySpacesStayBounded: a long chain of filters over a wide frame
// keeps at most lazyFactor times the frame's index bytes in its spaces:
// past that a filter flattens its input (and the rows stay right).
func TestLazySpacesStayBounded(t *testing.T) {
	e := env(t)
	const rows = 4096
	vals := make([]plan.Value, rows)
	for i := range vals {
		vals[i] = i64(int64(i))
	}
	tb, err := plan.NewTable("big", plan.MustSchema(plan.Field{Name: "x", Type: plan.Int64}), [][]plan.Value{vals})
	if err != nil {
		t.Fatal(err)
	}
	tables := NewTables()
	defer tables.Release()
	scan, err := plan.Resolve(plan.Scan(tb).Node())
	if err != nil {
		t.Fatal(err)
	}
	cur, err := ScanTable(e, tables, scan.(*plan.ScanNode))
	if err != nil {
		t.Fatal(err)
	}
	flattened := false
	var prev *colStore
	desc, err := plan.Resolve(plan.FromNode(scan).Sort(plan.Desc(col("x"))).Node())
	if err != nil {
		t.Fatal(err)
	}
	asc, err := plan.Resolve(plan.FromNode(scan).Sort(plan.Asc(col("x"))).Node())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		// Sorts reversing every row each time (a selection keeping
		// every row in order shares its input): only the spaces grow.
		sorted := desc
		if i%2 == 1 {
			sorted = asc
		}
		next, err := Eval(e, sorted, []*Frame{cur})
		if err != nil {
			t.Fatal(err)
		}
		cur.Release()
		cur = next
		if prev != nil && cur.store != prev {
			flattened = true
		}
		prev = cur.store
		if b, limit := cur.sp.bytes.Load(), int64(lazyFactor*4*(cur.n+8)*(rows+16)+4*rows); b > limit {
			t.Fatalf("step %d: the spaces hold %d index bytes, above %d", i, b, limit)
		}
	}
	if !flattened {
		t.Fatal("no filter flattened its input")
	}
	got := materializeRows(t, e, cur)
	for i, r := range got {
		if want := int64(i); r[0] != i64(want) { // the last sort is ascending
			t.Fatalf("row %d: got %v, want %d", i, r[0], want)
		}
	}
	cur.Release()
}
