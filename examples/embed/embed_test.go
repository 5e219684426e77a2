package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
	"github.com/dfopt/dfopt/rules"
)

// This package imports neither Arrow nor dfopt's executor: the root
// package's layering test (TestLayering in /layering_test.go) enforces it,
// so the embedding really needs nothing but plan and rules.

func TestDemo(t *testing.T) {
	var buf bytes.Buffer
	if err := demo(&buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	out := buf.String()
	for _, want := range []string{
		// The two exact comparisons crossed the host's own operator and
		// went into the storage. The string one, Inexact, joins them as a
		// hint and stays above as well: the storage may skip rows by it
		// before the Exact ones meet them, which the standard tier allows
		// because a comparison cannot raise (cell pp.scan.skip; the
		// bounded tier counts it as one that may, and keeps the hint out).
		"Scan orders columns=[id, customer, qty, price] exact=[(qty > 2), (id < 100)] hints=[(customer = \"ada\")]\n",
		"`customer == \"ada\"` pushed into scan orders: cell pp.scan.skip",
		"cell pp.extension.passthrough",
		"cell pr.extension.passthrough",
		"counters: pushedFilters=3 ",
		"same result as the unoptimized host plan",
		// The host's own rule refuses the width-5 Bucket and folds the
		// width-1 one, which fusion inlines and pruning removes.
		"identity_bucket: kept extension bucket(qty, 5): cell ib.width_one",
		"identity_bucket: folded extension bucket(qty, 1): cell ib.width_one",
		"foldedBuckets=1",
		"Project id := id, bucket := qty\n  Scan orders columns=[id, qty]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo output lacks %q:\n%s", want, out)
		}
	}
}

// seed returns the property test's seed: fixed, or DFOPT_SEED.
func seed(t *testing.T) int64 {
	if s := os.Getenv("DFOPT_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DFOPT_SEED: %v", err)
		}
		return v
	}
	return 20261130
}

// TestOptimizedEqualsUnoptimized is the embedding's own differential test:
// on generated tables and host plans, the host's result of its plan equals
// the host's result of the plan dfopt optimized (both run on the host's
// interpreter), errors included; and without optimization the round trip
// through dfopt changes nothing.
func TestOptimizedEqualsUnoptimized(t *testing.T) {
	s := seed(t)
	n := 1500
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewSource(s))
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	var pushed, pruned, crossedBucket, folded, errs int
	for i := 0; i < n; i++ {
		g := &hostGen{r: rng, reg: reg}
		tbl := g.table()
		host := g.plan(tbl, 1+rng.Intn(6))
		in, err := ToDfopt(host)
		if err != nil {
			t.Fatalf("seed %d case %d: %v\n%s", s, i, err, Explain(host))
		}
		want, wantErr := Run(host)
		if wantErr != nil {
			errs++
		}
		for _, flags := range []rules.Flags{rules.NoFlags(), g.flags()} {
			res, err := rules.Optimize(in, flags)
			if err != nil {
				t.Fatalf("seed %d case %d: optimize: %v\n%s", s, i, err, Explain(host))
			}
			back, err := FromDfopt(res.Plan)
			if err != nil {
				t.Fatalf("seed %d case %d: %v\n%s", s, i, err, plan.Explain(res.Plan))
			}
			got, gotErr := Run(back)
			if a, b := outcome(want, wantErr), outcome(got, gotErr); a != b {
				t.Fatalf("seed %d case %d (DFOPT_SEED=%d replays): the optimized host plan disagrees\nhost plan:\n%s\noptimized:\n%s\nwant %s\ngot  %s\ntrace:\n%s",
					s, i, s, Explain(host), Explain(back), a, b, strings.Join(rules.WhyLines(res), "\n"))
			}
			pushed += res.Counters.Get("pushedFilters")
			pruned += res.Counters.Get("scanProjections")
			folded += res.Counters.Get(counterFoldedBuckets)
			for _, e := range res.Trace {
				if e.Cell == "pp.extension.passthrough" && e.Allowed {
					crossedBucket++
				}
			}
		}
	}
	t.Logf("seed %d: %d plans, %d failing; %d conjuncts pushed (%d across Bucket), %d scans narrowed, %d Buckets folded", s, n, errs, pushed, crossedBucket, pruned, folded)
	// The test must exercise what it claims to check.
	if pushed == 0 || pruned == 0 || crossedBucket == 0 || folded == 0 || errs == 0 {
		t.Errorf("the generator exercises too little: pushed=%d pruned=%d crossedBucket=%d folded=%d errors=%d", pushed, pruned, crossedBucket, folded, errs)
	}
}

// TestDisagreementIsCaught shows the differential test can fail: with a
// mutant legality table that lets filters cross partial with_columns
// (pp.with_columns flipped), or that folds every Bucket (the host's own
// ib.width_one flipped), the host's results disagree on some plan.
func TestDisagreementIsCaught(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range []legality.CellID{legality.PPWithColumns, cellBucketWidthOne} {
		t.Run(string(cell), func(t *testing.T) {
			mutant, err := reg.Table().Flipped(cell)
			if err != nil {
				t.Fatal(err)
			}
			flags := reg.DefaultFlags()
			flags.Table = mutant
			rng := rand.New(rand.NewSource(seed(t)))
			for i := 0; i < 3000; i++ {
				g := &hostGen{r: rng, reg: reg}
				host := g.plan(g.table(), 1+rng.Intn(6))
				in, err := ToDfopt(host)
				if err != nil {
					t.Fatal(err)
				}
				res, err := rules.Optimize(in, flags)
				if err != nil {
					continue
				}
				back, err := FromDfopt(res.Plan)
				if err != nil {
					t.Fatal(err)
				}
				want, wantErr := Run(host)
				got, gotErr := Run(back)
				if outcome(want, wantErr) != outcome(got, gotErr) {
					t.Logf("case %d: caught the mutant:\n%s", i, Explain(host))
					return
				}
			}
			t.Errorf("3000 plans and the mutant %s went unnoticed: the differential test cannot fail", cell)
		})
	}
}

func outcome(r Result, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return render(r)
}

// hostGen draws host tables and well-typed host plans, and flags of reg's
// rules (the host's own included).
type hostGen struct {
	r     *rand.Rand
	reg   *rules.Registry
	fresh int
}

type col struct {
	name string
	typ  ColType
}

var (
	ints   = []any{int64(0), int64(1), int64(-1), int64(2), int64(7), int64(100), int64(math.MaxInt64), int64(math.MinInt64), nil}
	floats = []any{0.0, math.Copysign(0, -1), 1.5, -2.25, math.NaN(), math.Inf(1), math.Inf(-1), nil}
	strs   = []any{"", "a", "ada", "bob", nil}
	bools  = []any{true, false, nil}
	pools  = map[ColType][]any{IntCol: ints, FloatCol: floats, StringCol: strs, BoolCol: bools}
)

func (g *hostGen) pick(xs []any) any { return xs[g.r.Intn(len(xs))] }

func (g *hostGen) table() *Table {
	t := &Table{TableName: "t", Columns: []Column{{"id", IntCol}, {"a", IntCol}, {"b", IntCol}, {"f", FloatCol}, {"s", StringCol}, {"p", BoolCol}}}
	rows := g.r.Intn(12)
	for i := 0; i < rows; i++ {
		r := Row{"id": int64(i)}
		for _, c := range t.Columns[1:] {
			r[c.Name] = g.pick(pools[c.Type])
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

func (g *hostGen) colsOf(cols []col, typ ColType) []col {
	var out []col
	for _, c := range cols {
		if c.typ == typ {
			out = append(out, c)
		}
	}
	return out
}

// intExpr is an int expression over the columns: a column, a constant, or
// checked arithmetic (which may overflow or divide by zero).
func (g *hostGen) intExpr(cols []col, depth int) Expr {
	is := g.colsOf(cols, IntCol)
	switch x := g.r.Intn(10); {
	case depth <= 0 || x < 4:
		if len(is) > 0 && x < 3 {
			return Ref(is[g.r.Intn(len(is))].name)
		}
		return Const{g.pick(ints[:8])}
	default:
		return Bin{[]string{"+", "-", "*", "/"}[g.r.Intn(4)], g.intExpr(cols, depth-1), g.intExpr(cols, depth-1)}
	}
}

// pred is a bool expression: a column compared with a constant (what the
// storage accepts), a computed comparison, a null test, a bool column, or
// a Kleene combination.
func (g *hostGen) pred(cols []col, depth int) Expr {
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	switch x := g.r.Intn(10); {
	case x < 5:
		c := cols[g.r.Intn(len(cols))]
		return Bin{ops[g.r.Intn(len(ops))], Ref(c.name), Const{g.pick(pools[c.typ][:len(pools[c.typ])-1])}}
	case x < 7:
		return Bin{ops[g.r.Intn(len(ops))], g.intExpr(cols, 2), Const{g.pick(ints[:8])}}
	case x < 8:
		return IsNull{Ref(cols[g.r.Intn(len(cols))].name)}
	case x < 9 || depth <= 0:
		if bs := g.colsOf(cols, BoolCol); len(bs) > 0 {
			return Ref(bs[g.r.Intn(len(bs))].name)
		}
		return IsNull{Ref(cols[0].name)}
	}
	return Bin{[]string{"and", "or"}[g.r.Intn(2)], g.pred(cols, depth-1), g.pred(cols, depth-1)}
}

func (g *hostGen) freshName() string {
	g.fresh++
	return "x" + strconv.Itoa(g.fresh)
}

// plan grows a host plan of up to depth operators over a scan of t.
func (g *hostGen) plan(t *Table, depth int) Node {
	var n Node = Scan{Table: t}
	var cols []col
	for _, c := range t.Columns {
		cols = append(cols, col{c.Name, c.Type})
	}
	has := func(name string) bool {
		for _, c := range cols {
			if c.name == name {
				return true
			}
		}
		return false
	}
	for i := 0; i < depth; i++ {
		switch x := g.r.Intn(14); {
		case x < 4:
			k := 1 + g.r.Intn(3)
			preds := make([]Expr, k)
			for j := range preds {
				preds[j] = g.pred(cols, 1)
			}
			n = Where{Input: n, Preds: preds}
		case x < 6:
			// Every assignment reads the input (simultaneous), so it picks
			// from the columns before the node.
			base := append([]col(nil), cols...)
			assigned := map[string]bool{}
			var items []Item
			for j := 0; j < 1+g.r.Intn(2); j++ {
				var it Item
				switch g.r.Intn(3) {
				case 0: // a copy (total)
					c := base[g.r.Intn(len(base))]
					it = Item{g.freshName(), Ref(c.name)}
					cols = append(cols, col{it.Name, c.typ})
				case 1: // computed (maybe partial), maybe replacing an int column
					name := g.freshName()
					if is := g.colsOf(base, IntCol); len(is) > 0 && g.r.Intn(3) == 0 {
						if c := is[g.r.Intn(len(is))].name; !assigned[c] {
							name = c
						}
					}
					it = Item{name, g.intExpr(base, 2)}
					if !has(name) {
						cols = append(cols, col{name, IntCol})
					}
				default: // a constant
					it = Item{g.freshName(), Const{g.pick(ints[:8])}}
					cols = append(cols, col{it.Name, IntCol})
				}
				assigned[it.Name] = true
				items = append(items, it)
			}
			n = Extend{Input: n, Assign: items}
		case x < 8:
			perm := g.r.Perm(len(cols))
			k := 1 + g.r.Intn(len(cols))
			var items []Item
			var next []col
			for _, j := range perm[:k] {
				items = append(items, Item{cols[j].name, Ref(cols[j].name)})
				next = append(next, cols[j])
			}
			if g.r.Intn(3) == 0 {
				name := g.freshName()
				items = append(items, Item{name, g.intExpr(cols, 1)})
				next = append(next, col{name, IntCol})
			}
			n, cols = Project{Input: n, Items: items}, next
		case x < 10:
			n = OrderBy{Input: n, Col: cols[g.r.Intn(len(cols))].name, Desc: g.r.Intn(2) == 0}
		case x < 11:
			n = Take{Input: n, N: []int{0, 1, 2, 5, 100}[g.r.Intn(5)]}
		default:
			is := g.colsOf(cols, IntCol)
			if len(is) == 0 || has("bucket") {
				continue
			}
			n = Bucket{Input: n, Col: is[g.r.Intn(len(is))].name, Width: 1 + g.r.Int63n(7)}
			cols = append(cols, col{"bucket", IntCol})
		}
	}
	return n
}

// flags draws a random set of rules and arms (Verify on), usually all.
func (g *hostGen) flags() rules.Flags {
	f := g.reg.DefaultFlags()
	if g.r.Intn(3) == 0 {
		for _, name := range g.reg.RuleFlags() {
			if err := f.Set(name, g.r.Intn(2) == 0); err != nil { // cannot happen: the registry's own names
				return g.reg.DefaultFlags()
			}
		}
	}
	f.Verify = true
	return f
}

// TestBadHostInput: a conversion of something the host cannot run is an
// error, never a wrong plan.
func TestBadHostInput(t *testing.T) {
	tbl := orders()
	// A plan dfopt can express but the host cannot run.
	over := plan.Scan(tbl).GroupBy(plan.Col("customer")).Agg(plan.Col("qty").Sum().Alias("n")).Node()
	if _, err := FromDfopt(over); err == nil || !strings.Contains(err.Error(), "no operator for aggregate") {
		t.Errorf("aggregate: %v", err)
	}
	// An extension the host did not declare.
	foreign := plan.Scan(tbl).Extension(testops.Identity).Node()
	if _, err := FromDfopt(foreign); err == nil || !strings.Contains(err.Error(), "unknown extension") {
		t.Errorf("foreign extension: %v", err)
	}
	// A host plan that does not type-check is Optimize's resolve error.
	bad := Where{Input: Scan{Table: tbl}, Preds: []Expr{Bin{"+", Ref("qty"), Ref("customer")}}}
	in, err := ToDfopt(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rules.Optimize(in, rules.DefaultFlags()); err == nil {
		t.Error("an ill-typed host plan optimized")
	}
	// Bucket over a column that is not an int: a clear declaration error.
	in, _ = ToDfopt(Bucket{Input: Scan{Table: tbl}, Col: "customer", Width: 2})
	if _, err := rules.Optimize(in, rules.DefaultFlags()); err == nil || !strings.Contains(err.Error(), `bucket: no int column "customer"`) {
		t.Errorf("bucket over a string: %v", err)
	}
	if got := fmt.Sprint(bucketDef("qty", 5) == bucketDef("qty", 5)); got != "true" {
		t.Error("a parameterization's declaration is not made once")
	}
}
