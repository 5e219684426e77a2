package rules

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

func field(name string, t plan.Type) plan.Field {
	return plan.Field{Name: name, Type: t, Nullable: true}
}

func mustTable(name string, fields ...plan.Field) *plan.Table {
	cols := make([][]plan.Value, len(fields))
	tbl, err := plan.NewTable(name, plan.MustSchema(fields...), cols)
	if err != nil {
		panic(err)
	}
	return tbl
}

// classifying is a source that classifies conjuncts: a comparison of column
// a is Exact, of column b Inexact, anything else Unsupported.
type classifying struct {
	*plan.Table
}

func (c *classifying) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, len(conjuncts))
	for i, e := range conjuncts {
		call, ok := e.(*plan.Call)
		if !ok || !call.Fn.IsComparison() || len(call.Args) != 2 {
			continue
		}
		if col, ok := call.Args[0].(*plan.Column); ok {
			switch col.Name {
			case "a":
				out[i] = plan.Exact
			case "b":
				out[i] = plan.Inexact
			}
		}
	}
	return out
}

// exactHost is a host source that takes every conjunct Exact, as a storage
// layer evaluating any expression would: it must then apply its pushed list
// as one filter, each conjunct over all rows (plan.PredicateClassifier).
type exactHost struct{ *plan.Table }

func (e *exactHost) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, len(conjuncts))
	for i := range out {
		out[i] = plan.Exact
	}
	return out
}

// misbehaving answers the wrong number of classifications.
type misbehaving struct{ *plan.Table }

func (m *misbehaving) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	return make([]plan.PredicateSupport, len(conjuncts)+1)
}

var (
	tT  = mustTable("t", field("a", plan.Int64), field("b", plan.Int64), field("k", plan.Int64), field("p", plan.Bool), field("s", plan.String))
	tAB = mustTable("t2", field("a", plan.Int64), field("b", plan.Int64))
	tL  = mustTable("l", field("k", plan.Int64), field("v", plan.Int64), field("w", plan.Int64))
	tR  = mustTable("r", field("k", plan.Int64), field("v", plan.Int64), field("z", plan.Int64))
	// tTwin has the same name and schema as tAB but is another source: the
	// same fingerprint, a different plan.
	tTwin = mustTable("t2", field("a", plan.Int64), field("b", plan.Int64))
	src   = &classifying{mustTable("src", field("a", plan.Int64), field("b", plan.Int64), field("s", plan.String))}
	bad   = &misbehaving{mustTable("bad", field("a", plan.Int64))}
	exact = &exactHost{mustTable("ex", field("a", plan.Int64), field("b", plan.Int64), field("p", plan.Bool))}
	// zone skips row groups by column-literal comparisons (Inexact) and
	// takes every other conjunct Exact.
	zone = mustTable("zone", field("a", plan.Int64), field("b", plan.Int64), field("k", plan.Int64), field("p", plan.Bool)).WithZoneMaps(2)

	ndSeq, _    = plan.BuiltinUDFs().Lookup("nd_seq")
	incWrap, _  = plan.BuiltinUDFs().Lookup("inc_wrap")
	checkedX, _ = plan.BuiltinUDFs().Lookup("checked_double")
)

func col(n string) plan.E { return plan.Col(n) }
func lit(v any) plan.E    { return plan.Lit(v) }
func scan(s plan.Source) plan.Frame {
	return plan.Scan(s)
}

// only runs one rule with all its arms, in Verify mode.
func only(rule string) Flags {
	r, ok := Builtin().Rule(rule)
	if !ok {
		panic("no rule " + rule)
	}
	return verified(flagsOn(append([]string{rule}, r.Arms...)...))
}

// flagsOn returns the flags with exactly the named built-in rules and arms
// on.
func flagsOn(names ...string) Flags { return flagsIn(nil, names...) }

// flagsIn returns the flags of registry reg (nil: Builtin()) with exactly
// the named rules and arms on.
func flagsIn(reg *Registry, names ...string) Flags {
	f := Flags{Registry: reg}
	for _, n := range names {
		if err := f.Set(n, true); err != nil {
			panic(err)
		}
	}
	return f
}

// verified is f in Verify mode.
func verified(f Flags) Flags {
	f.Verify = true
	return f
}

// withTable returns a pointer to f consulting table t.
func withTable(f Flags, t *legality.Table) *Flags {
	f.Table = t
	return &f
}

func allFlags() Flags {
	f := DefaultFlags()
	f.Verify = true
	return f
}

// dataPlan returns the input plan of case name of data file file.
func dataPlan(t *testing.T, file, name string) plan.Node {
	t.Helper()
	f, err := parseDataFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(file)
	for _, c := range f.cases {
		if c.command == "table" {
			if err := env.declare(c); err != nil {
				t.Fatal(err)
			}
		}
		if c.name() == name {
			n, err := parsePlan(c.input, env.catalog)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("testdata/%s has no case %s", file, name)
	return nil
}

// checkAgreement checks that the counters and the trace tell the same story.
func checkAgreement(t *testing.T, res Result) {
	t.Helper()
	for _, p := range agreement(res) {
		t.Error(p)
	}
}

// agreement lists the ways the counters and the trace disagree.
func agreement(res Result) []string {
	var problems []string
	items := func(cell legality.CellID, pred func(Entry) bool) int {
		seen := map[int]bool{}
		for _, e := range res.Trace {
			if e.Cell == cell && e.Allowed && (pred == nil || pred(e)) {
				seen[e.Item] = true
			}
		}
		return len(seen)
	}
	count := func(pred func(Entry) bool) int {
		n := 0
		for _, e := range res.Trace {
			if pred(e) {
				n++
			}
		}
		return n
	}
	c := res.Counters
	checks := []struct {
		name      string
		counter   int
		fromTrace int
	}{
		{"pushedFilters", c.Get("pushedFilters"), items(legality.PPDeterministic, nil)},
		{"fusedFilters", c.Get("fusedFilters"), items(legality.FFBoolean, nil)},
		{"fusedProjections", c.Get("fusedProjections"), items(legality.PFInline, nil)},
		{"prunedProjections", c.Get("prunedProjections"), count(func(e Entry) bool {
			return e.Allowed && (e.Cell == legality.PRProject || e.Cell == legality.PRWithColumns || e.Cell == legality.PRWithColumnsGuard) && e.Subject() != ""
		})},
		{"droppedNodes", c.Get("droppedNodes"), count(func(e Entry) bool {
			return e.Allowed && (e.Cell == legality.PRWithColumnsEmpty || e.Cell == legality.PRRowIndexDrop)
		})},
		{"scanProjections", c.Get("scanProjections"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.PRScan })},
		{"sharedSubplans", c.Get("sharedSubplans"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.SSStructural })},
		{"collapsedJoins", c.Get("collapsedJoins"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.CCJRest })},
		{"pushedSemiJoins", c.Get("pushedSemiJoins"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.SPRightInput })},
		{"reorderedJoins", c.Get("reorderedJoins"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.JOErrors })},
		{"impliedConjuncts", c.Get("impliedConjuncts"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.OITotal })},
		{"reducedAggregates", c.Get("reducedAggregates"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.SRSource })},
		{"buildLeft", c.Get("buildLeft"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.BSEstimate })},
		{"guardedFilters", c.Get("guardedFilters"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.EGCost })},
		{"guardedScans", c.Get("guardedScans"), count(func(e Entry) bool { return e.Allowed && e.Cell == legality.EGScan })},
		{"guards", c.Get("guards"), count(func(e Entry) bool { return !e.Allowed && e.Cell == legality.EGUnguarded })},
	}
	for _, ch := range checks {
		if ch.counter != ch.fromTrace {
			problems = append(problems, fmt.Sprintf("counter %s = %d but the trace shows %d", ch.name, ch.counter, ch.fromTrace))
		}
	}
	// Every traced cell belongs to the rule that recorded it.
	for _, e := range res.Trace {
		if e.Cell == "" {
			continue
		}
		cell, ok := res.Table.Lookup(e.Cell)
		if !ok || cell.Rule != e.Rule {
			problems = append(problems, fmt.Sprintf("entry %s names cell %s of another rule", e, e.Cell))
		}
	}
	return problems
}

func resolve(t *testing.T, n plan.Node) plan.Node {
	t.Helper()
	r, err := plan.Resolve(n)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	return r
}

// flipped is the default table with cell id flipped (legality.Flip).
func flipped(id legality.CellID) *legality.Table {
	t, err := legality.Default().Flipped(id)
	if err != nil {
		panic(err)
	}
	return t
}

func mustOverride(tb *legality.Table, id legality.CellID, v legality.Verdict) *legality.Table {
	out, err := tb.WithOverride(id, v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return out
}
