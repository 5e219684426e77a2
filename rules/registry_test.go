package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// The built-in counters in the order of docs/design.md §6: Counters.List,
// String and MarshalJSON must keep it.
var designCounters = []string{"pushedFilters", "prunedProjections", "droppedColumns", "droppedNodes",
	"fusedFilters", "fusedProjections", "sharedSubplans", "scanProjections"}

func TestBuiltinRegistryDerivations(t *testing.T) {
	reg := Builtin()
	if err := reg.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.CounterNames(), " "); !strings.HasPrefix(got, strings.Join(designCounters, " ")) {
		t.Errorf("counters %s, want %s first", got, strings.Join(designCounters, " "))
	}
	var zero Counters
	if got, want := zero.String(), "pushedFilters=0 prunedProjections=0 droppedColumns=0 droppedNodes=0 fusedFilters=0 fusedProjections=0 sharedSubplans=0 scanProjections=0"; !strings.HasPrefix(got, want) {
		t.Errorf("zero counters %q, want %q first", got, want)
	}
	var c Counters
	if err := c.Set("fusedFilters", 3); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"pushedFilters":0,"prunedProjections":0,"droppedColumns":0,"droppedNodes":0,"fusedFilters":3,"fusedProjections":0,"sharedSubplans":0,"scanProjections":0`; !strings.HasPrefix(string(b), want) {
		t.Errorf("JSON %s, want %s...", b, want)
	}
	if c.Set("noSuchCounter", 1) == nil || c.Get("fusedFilters") != 3 || c.IsZero() || c.Equal(zero) || !zero.Equal(Counters{}) {
		t.Errorf("Set, Get, IsZero or Equal: %s", c)
	}
	// Flags: every rule and arm, derived; FlagNames adds verify.
	var want []string
	for _, r := range reg.Rules() {
		want = append(want, r.Name)
		want = append(want, r.Arms...)
	}
	if got := reg.RuleFlags(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("RuleFlags %v, want %v", got, want)
	}
	if len(FlagNames()) != len(want)+1 {
		t.Errorf("FlagNames %v", FlagNames())
	}
	m := DefaultFlags().Map()
	for _, n := range FlagNames() {
		if v, ok := m[n]; !ok || v != (n != FlagVerify) {
			t.Errorf("DefaultFlags().Map()[%s] = %v, %v", n, v, ok)
		}
	}
	if rule, ok := reg.ArmOf(FlagScanPushdown); !ok || rule != FlagPredicatePushdown {
		t.Errorf("ArmOf(scan_pushdown) = %s, %v", rule, ok)
	}
	if _, ok := reg.ArmOf(FlagPredicatePushdown); ok {
		t.Error("a rule is not an arm")
	}
	// Each rule's counters move only under its flag (a rule rewrote a plan
	// when one of its counters moved).
	res, err := Optimize(busy(), allFlags())
	if err != nil {
		t.Fatal(err)
	}
	got := reg.Rewrote(res.Counters)
	for _, name := range []string{FlagPredicatePushdown, FlagFilterFusion, FlagProjectionFusion, FlagProjectionPruning, FlagSharedSubplans} {
		if !slices.Contains(got, name) {
			t.Errorf("the busy plan: rules that rewrote %v, want %s among them", got, name)
		}
	}
}

func TestFlagsAreValues(t *testing.T) {
	f := DefaultFlags()
	g := f
	if err := g.Set(FlagFilterFusion, false); err != nil {
		t.Fatal(err)
	}
	h := g
	if err := h.Set(FlagProjectionFusion, false); err != nil {
		t.Fatal(err)
	}
	if !f.Enabled(FlagFilterFusion) || !g.Enabled(FlagProjectionFusion) || g.Enabled(FlagFilterFusion) || h.Enabled(FlagProjectionFusion) {
		t.Errorf("Set changed a copy: f=%v g=%v h=%v", f.Map(), g.Map(), h.Map())
	}
	if err := h.Set("nope", true); err == nil || !strings.Contains(err.Error(), "predicate_pushdown") {
		t.Errorf("Set of an unknown flag: %v", err)
	}
	if err := g.Set(FlagFilterFusion, true); err != nil || !g.Equal(f) {
		t.Errorf("setting a flag back gives the flags back: %v %v", g.Map(), err)
	}
}

// limitMerge is a host's local rule: limit n over limit m is limit
// min(n, m). Its one cell, lm.inner_limit, refuses when the node below is
// a slice: merging head(2) . slice(1, 5) into head(2) would keep rows 0-1
// instead of 1-2 — and the flipped cell does exactly that.
func limitMerge(mode RunMode) Rule {
	return Rule{
		Name:        "limit_merge",
		Doc:         "merges a limit into the limit below it",
		Counters:    []CounterDef{{Name: "mergedLimits"}},
		Verbs:       Verbs{Verb: Verb{Allowed: "merged into", Refused: "not merged into"}},
		Application: "one limit merged into the node below it",
		Mode:        mode,
		Matches:     []plan.Kind{plan.KindLimit},
		Cells: []legality.Cell{{ID: "lm.inner_limit", Rule: "limit_merge", Node: "limit over limit or slice", Verdict: legality.CrossesIf,
			Condition: "the node below is a limit, not a slice",
			Reason:    "head(2) . slice(1, 5) merged into head(2) keeps rows 0-1 instead of 1-2"}},
		Local: func(c *Context, n plan.Node, at *plan.Path) (plan.Node, error) {
			outer := n.(*plan.LimitNode)
			below, n2 := outer.Input, int64(-1)
			switch x := below.(type) {
			case *plan.LimitNode:
				n2 = x.N
			case *plan.SliceNode:
				n2 = x.Len
			default:
				return n, nil
			}
			d := c.Decide("lm.inner_limit", func() (bool, string) {
				if below.Kind() == plan.KindSlice {
					return false, "the node below is a slice"
				}
				return true, ""
			})
			if !c.Apply(d, below, at.Input(n, 0), nil) {
				return n, nil
			}
			c.Count("mergedLimits", 1)
			return &plan.LimitNode{Input: below.Children()[0], N: min(outer.N, n2)}, nil
		},
	}
}

func hostRegistry(t *testing.T, rules ...Rule) *Registry {
	t.Helper()
	reg, err := Builtin().With(rules...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestHostLocalRule(t *testing.T) {
	reg := hostRegistry(t, limitMerge(Once))
	names := []string{}
	for _, r := range reg.Rules() {
		names = append(names, r.Name)
	}
	if len(names) != len(Rules())+1 || names[len(names)-2] != "limit_merge" || names[len(names)-1] != FlagSharedSubplans {
		t.Errorf("order %v: a host rule runs after the rewriting rules, before the analysis ones", names)
	}
	first := limitMerge(Once)
	first.Before = FlagPredicatePushdown
	before := hostRegistry(t, first).Rules()
	if i := slices.IndexFunc(before, func(r Rule) bool { return r.Name == FlagPredicatePushdown }); i < 1 || before[i-1].Name != "limit_merge" {
		t.Errorf("a rule registered before predicate_pushdown does not run right before it: %v", before)
	}
	// Only the host rule runs, so that the test is about it alone.
	in := scan(tT).Head(5).Head(3).Head(7).Node()
	flags := flagsIn(reg, "limit_merge")
	res, err := Optimize(in, flags)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Explain(res.Plan); got != "limit 3\n  scan t\n" {
		t.Errorf("optimized:\n%s", got)
	}
	if res.Counters.Get("mergedLimits") != 2 || !strings.HasSuffix(res.Counters.String(), " mergedLimits=2") {
		t.Errorf("counters %s", res.Counters)
	}
	why := strings.Join(WhyLines(res), "\n")
	if !strings.Contains(why, "limit_merge: merged into limit 3: cell lm.inner_limit — the node below is a limit, not a slice") {
		t.Errorf("trace:\n%s", why)
	}
	if got := reg.Rewrote(res.Counters); len(got) != 1 || got[0] != "limit_merge" {
		t.Errorf("Rewrote %v", got)
	}
	// Its flag, in plan files too; the built-in registry does not know it.
	off, err := reg.FlagsFromMap(map[string]bool{"limit_merge": false})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := Optimize(in, off); res.Counters.Get("mergedLimits") != 0 || len(res.Trace.Rule("limit_merge")) != 0 {
		t.Errorf("limit_merge off still ran:\n%s", ExplainText(res, true))
	}
	if _, err := FlagsFromMap(map[string]bool{"limit_merge": false}); err == nil {
		t.Error("the built-in registry accepts a host's flag")
	}
	// Its applications are counted by the rewrite limit, as bisection needs.
	flags.Limit = 1
	one, err := Optimize(in, flags)
	if err != nil {
		t.Fatal(err)
	}
	if one.Applied != 1 || len(one.Applications) != 1 || one.Applications[0].Rule != "limit_merge" || one.Counters.Get("mergedLimits") != 1 {
		t.Errorf("under limit 1: applied %d, %v, %s", one.Applied, one.Applications, one.Counters)
	}
	// The cell refuses a slice below; its mutant merges it and changes the
	// rows a plan keeps.
	sliced := scan(tT).Slice(1, 5).Head(2).Node()
	res, err = Optimize(sliced, flagsIn(reg, "limit_merge"))
	if err != nil || plan.Size(res.Plan) != 3 || !strings.Contains(strings.Join(WhyLines(res), "\n"), "not merged into slice offset=1 len=5: cell lm.inner_limit") {
		t.Errorf("the slice below must stay: %v\n%s", err, ExplainText(res, true))
	}
	mutant, err := reg.Table().Flipped("lm.inner_limit")
	if err != nil {
		t.Fatal(err)
	}
	flags = flagsIn(reg, "limit_merge")
	flags.Table = mutant
	res, err = Optimize(sliced, flags)
	if err != nil || plan.Explain(res.Plan) != "limit 2\n  scan t\n" {
		t.Errorf("the mutant must merge the slice: %v\n%s", err, ExplainText(res, true))
	}
	// A table without the host's cells is refused, not silently a barrier.
	flags.Table = legality.Default()
	if _, err := Optimize(sliced, flags); err == nil || !strings.Contains(err.Error(), "lacks cell lm.inner_limit") {
		t.Errorf("a table without the host's cell: %v", err)
	}
}

// TestSchemaGuard: a host rule that changes a node's schema fails with an
// error naming the rule and the node, with Verify off.
func TestSchemaGuard(t *testing.T) {
	dropper := limitMerge(Once)
	dropper.Name, dropper.Counters = "column_dropper", []CounterDef{{Name: "dropped"}}
	dropper.Cells = []legality.Cell{{ID: "cd.any", Rule: "column_dropper", Node: "with_columns", Verdict: legality.Crosses, Reason: "none: it is wrong"}}
	dropper.Matches = []plan.Kind{plan.KindWithColumns}
	dropper.Local = func(c *Context, n plan.Node, at *plan.Path) (plan.Node, error) {
		if !c.Apply(c.Decide("cd.any", nil), n, at, nil) {
			return n, nil
		}
		c.Count("dropped", 1)
		return n.Children()[0], nil
	}
	reg := hostRegistry(t, dropper)
	in := scan(tT).WithColumns(col("a").Alias("x")).Head(3).Node()
	_, err := Optimize(in, flagsIn(reg, "column_dropper"))
	if err == nil || !strings.Contains(err.Error(), "rule column_dropper") || !strings.Contains(err.Error(), "with_columns [a as x] at plan.input") ||
		!strings.Contains(err.Error(), "changes its schema") {
		t.Errorf("the schema guard: %v", err)
	}
}

// TestMisuse: a rule moving a counter or consulting a cell it does not
// own fails, naming the rule.
func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(c *Context)
		want string
	}{
		{"counter", func(c *Context) { c.Count("pushedFilters", 1) }, `moved counter "pushedFilters", which it does not declare`},
		{"cell", func(c *Context) { c.Decide(legality.PPSort, nil) }, "consulted cell pp.sort, which is not one of its own"},
	} {
		reg := hostRegistry(t, hostRule("misuser", nil, func(c *Context, root plan.Node) (plan.Node, error) {
			tc.fn(c)
			return root, nil
		}))
		_, err := Optimize(scan(tT).Node(), flagsIn(reg, "misuser"))
		if err == nil || !strings.Contains(err.Error(), "rule misuser: "+tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestRunModes: Once runs the rewrite one time, UntilStable until the plan
// stops changing, and a rule that never settles is an error.
func TestRunModes(t *testing.T) {
	// topOnly merges only the highest pair of limits per call.
	topOnly := func(mode RunMode) Rule {
		r := hostRule("top_merge", nil, func(c *Context, root plan.Node) (plan.Node, error) {
			l, ok := root.(*plan.LimitNode)
			if !ok {
				return root, nil
			}
			below, ok := l.Input.(*plan.LimitNode)
			if !ok || !c.Apply(c.Decide("top_merge.ok", nil), root, nil, nil) {
				return root, nil
			}
			c.Count("topmergeCalls", 1)
			return &plan.LimitNode{Input: below.Input, N: min(l.N, below.N)}, nil
		})
		r.Mode = mode
		return r
	}
	in := scan(tT).Head(5).Head(4).Head(3).Node()
	for _, tc := range []struct {
		mode RunMode
		want int
	}{{Once, 3}, {UntilStable, 2}} {
		reg := hostRegistry(t, topOnly(tc.mode))
		res, err := Optimize(in, flagsIn(reg, "top_merge"))
		if err != nil {
			t.Fatal(err)
		}
		if plan.Size(res.Plan) != tc.want {
			t.Errorf("%s: %d nodes, want %d:\n%s", tc.mode, plan.Size(res.Plan), tc.want, plan.Explain(res.Plan))
		}
	}
	flipper := hostRule("flipper", nil, func(c *Context, root plan.Node) (plan.Node, error) {
		c.Count("flipperCalls", 1)
		s, ok := root.(*plan.SortNode)
		if !ok {
			return root, nil
		}
		return &plan.SortNode{Input: s.Input, Keys: []plan.SortKey{{Expr: s.Keys[0].Expr, Desc: !s.Keys[0].Desc}}}, nil
	})
	flipper.Mode = UntilStable
	reg := hostRegistry(t, flipper)
	_, err := Optimize(scan(tT).SortBy("a").Node(), flagsIn(reg, "flipper"))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rule flipper still changes the plan after %d passes", MaxPasses)) {
		t.Errorf("a rule that never settles: %v", err)
	}
}

// TestWithChecksDeclarations: a rule missing part of its declaration, or
// taking a name, flag, counter or cell another rule has, is refused.
func TestWithChecksDeclarations(t *testing.T) {
	ok := limitMerge(Once)
	mutate := func(f func(r *Rule)) Rule {
		r := limitMerge(Once)
		r.Cells = append([]legality.Cell(nil), r.Cells...)
		f(&r)
		return r
	}
	for name, r := range map[string]Rule{
		"no doc":               mutate(func(r *Rule) { r.Doc = "" }),
		"no counter":           mutate(func(r *Rule) { r.Counters = nil }),
		"no cell":              mutate(func(r *Rule) { r.Cells = nil }),
		"no verbs":             mutate(func(r *Rule) { r.Verbs = Verbs{} }),
		"no application":       mutate(func(r *Rule) { r.Application = "" }),
		"no rewrite":           mutate(func(r *Rule) { r.Local = nil }),
		"two rewrites":         mutate(func(r *Rule) { r.Rewrite = func(_ *Context, n plan.Node) (plan.Node, error) { return n, nil } }),
		"a built-in's name":    mutate(func(r *Rule) { r.Name = FlagFilterFusion; r.Cells[0].Rule = FlagFilterFusion }),
		"verify":               mutate(func(r *Rule) { r.Name = FlagVerify; r.Cells[0].Rule = FlagVerify }),
		"not snake_case":       mutate(func(r *Rule) { r.Name = "LimitMerge"; r.Cells[0].Rule = "LimitMerge" }),
		"a built-in's arm":     mutate(func(r *Rule) { r.Arms = []string{FlagScanPushdown} }),
		"a built-in's counter": mutate(func(r *Rule) { r.Counters = []CounterDef{{Name: "pushedFilters"}} }),
		"a cell of another":    mutate(func(r *Rule) { r.Cells[0].Rule = "other" }),
		"a built-in's cell":    mutate(func(r *Rule) { r.Cells[0].ID = legality.PPSort }),
		"a local analysis":     mutate(func(r *Rule) { r.Analysis = true }),
		"an unknown mode":      mutate(func(r *Rule) { r.Mode = 7 }),
	} {
		if _, err := Builtin().With(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Builtin().With(ok, ok); err == nil {
		t.Error("one rule twice: accepted")
	}
	unknown := limitMerge(Once)
	unknown.Before = "nope"
	early := hostRule("early_analysis", nil, func(_ *Context, n plan.Node) (plan.Node, error) { return n, nil })
	early.Analysis, early.Before = true, FlagPredicatePushdown
	for name, r := range map[string]Rule{"before an unknown rule": unknown, "an analysis rule before a rewriting one": early} {
		if _, err := Builtin().With(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Builtin().With(ok); err != nil {
		t.Errorf("the well-declared rule: %v", err)
	}
}

// TestRegistriesConcurrent: registries are values; two embeddings with
// different host rules optimize concurrently, each with its own rules only.
func TestRegistriesConcurrent(t *testing.T) {
	builtins, cells := len(Builtin().Rules()), len(Builtin().Table().IDs())
	a := hostRegistry(t, limitMerge(Once))
	b := Builtin()
	in := scan(tT).Head(5).Head(3).Node()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			flags, want := flagsIn(a, "limit_merge"), 1
			if i%2 == 1 {
				flags, want = b.DefaultFlags(), 0
			}
			res, err := Optimize(in, flags)
			if err == nil && (res.Counters.Get("mergedLimits") != want || len(res.Trace.Rule("limit_merge")) != want) {
				err = fmt.Errorf("registry %d: %d merges, want %d:\n%s", i%2, res.Counters.Get("mergedLimits"), want, ExplainText(res, true))
			}
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(Builtin().Rules()) != builtins || len(Builtin().Table().IDs()) != cells {
		t.Error("registering a host rule changed the built-in registry")
	}
}

// TestTransformUp: the exported bottom-up walk sees every node resolved
// over its rewritten inputs, with its path, and guards schemas.
func TestTransformUp(t *testing.T) {
	in := scan(tT).Head(5).WithColumns(col("a").Add(lit(1)).Alias("a")).Head(3).Node()
	var seen []string
	out, err := TransformUp(in, func(n plan.Node, at *plan.Path) (plan.Node, error) {
		seen = append(seen, n.Kind().String()+"@"+at.String())
		if l, ok := n.(*plan.LimitNode); ok && l.N == 5 {
			return &plan.LimitNode{Input: l.Input, N: math.MaxInt32}, nil
		}
		if n.Schema().Len() == 0 {
			t.Errorf("%s is not resolved", n.Label())
		}
		return n, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " "); got != "scan@plan.input.input.input limit@plan.input.input with_columns@plan.input limit@plan" {
		t.Errorf("visit order %s", got)
	}
	if !strings.Contains(plan.Explain(out), "limit 2147483647") {
		t.Errorf("the replacement is lost:\n%s", plan.Explain(out))
	}
	// A window resolves only under its owner: rewriting below it rebuilds
	// both, and fn never sees the window.
	windowed := scan(tT).Head(5).WithColumns(col("a").Sum().Over(col("k")).Alias("s")).Head(3).Node()
	w, err := TransformUp(windowed, func(n plan.Node, at *plan.Path) (plan.Node, error) {
		if n.Kind() == plan.KindWindow {
			t.Errorf("fn saw the window at %s", at)
		}
		if l, ok := n.(*plan.LimitNode); ok && l.N == 5 {
			return &plan.LimitNode{Input: l.Input, N: 4}, nil
		}
		return n, nil
	})
	if err != nil || !strings.Contains(plan.Explain(w), "window [sum(a).over(k) as __over_0]\n      limit 4") {
		t.Errorf("a rewrite below a window: %v\n%s", err, plan.Explain(w))
	}
	same, err := TransformUp(out, func(n plan.Node, _ *plan.Path) (plan.Node, error) { return n, nil })
	if err != nil || same != out {
		t.Errorf("replacing nothing must return the plan itself: %v", err)
	}
	_, err = TransformUp(in, func(n plan.Node, at *plan.Path) (plan.Node, error) {
		if n.Kind() == plan.KindWithColumns {
			return &plan.WithColumnsNode{Input: n.Children()[0], Exprs: []plan.Expr{plan.Lit("x").Alias("a").Expr()}}, nil
		}
		return n, nil
	})
	if err == nil || !strings.Contains(err.Error(), "replacing with_columns [a + 1 as a] at plan.input changes its schema") {
		t.Errorf("a replacement changing the schema: %v", err)
	}
}
