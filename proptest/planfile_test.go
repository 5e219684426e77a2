package proptest

import (
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
	"github.com/dfopt/dfopt/rules"
)

// TestCasesRoundTripThroughPlanFiles writes generated cases as dfopt-plan/1
// files (as the oracle's regression corpus will) and reads them back: after
// CanonicalNaNs (the format keeps no NaN payloads) the decoded case is Equal
// to the generated one.
func TestCasesRoundTripThroughPlanFiles(t *testing.T) {
	opts := planjson.Options{UDFs: UDFs(), Extensions: Extensions()}
	for i := 0; i < 500; i++ {
		c := CanonicalNaNs(Generate(CaseSeed(53, i), DefaultConfig()))
		doc, err := planjson.NewDocument(c.Plan)
		if err != nil {
			t.Fatalf("seed %d: NewDocument: %v\n%s", c.Seed, err, c)
		}
		data, err := planjson.Encode(doc)
		if err != nil {
			t.Fatalf("seed %d: Encode: %v\n%s", c.Seed, err, c)
		}
		back, err := planjson.Decode(data, opts)
		if err != nil {
			t.Fatalf("seed %d: Decode: %v\n%s\n%s", c.Seed, err, data, c)
		}
		got := Case{Seed: c.Seed, Config: c.Config, Plan: back.Plan, IllTyped: c.IllTyped, Corruption: c.Corruption}
		for _, tab := range c.Tables {
			spec, ok := back.Tables[tab.Name()]
			if !ok || spec.Inline == nil {
				t.Fatalf("seed %d: table %s missing after the round trip", c.Seed, tab.Name())
			}
			got.Tables = append(got.Tables, spec.Inline)
		}
		if len(back.Tables) != len(c.Tables) {
			t.Fatalf("seed %d: %d tables written, %d read", c.Seed, len(c.Tables), len(back.Tables))
		}
		if !Equal(c, got) {
			t.Fatalf("seed %d: the round trip changed the case:\n%s\n---\n%s\n%s", c.Seed, c, got, data)
		}
	}
}

func TestCanonicalNaNs(t *testing.T) {
	payload := math.Float64frombits(0xfff8000000000000)
	tab, err := plan.NewTable("t0", plan.MustSchema(plan.Field{Name: "b", Type: plan.Float64, Nullable: true}),
		[][]plan.Value{{plan.Float64Value(payload), plan.Float64Value(1), plan.NullValue(plan.Float64)}})
	if err != nil {
		t.Fatal(err)
	}
	c := Case{Tables: []*plan.Table{tab}, Plan: &plan.FilterNode{Input: scanOf(tab),
		Predicates: []plan.Expr{call(plan.FuncNe, col("b"), lit(plan.Float64Value(payload)))}}}
	got := CanonicalNaNs(c)
	if bits := math.Float64bits(got.Tables[0].Column(0)[0].Float()); bits != canonicalNaN {
		t.Errorf("table NaN bits %#x, want %#x", bits, canonicalNaN)
	}
	if !got.Tables[0].Column(0)[1].Identical(plan.Float64Value(1)) || !got.Tables[0].Column(0)[2].IsNull() {
		t.Error("other cells changed")
	}
	f := got.Plan.(*plan.FilterNode)
	l := f.Predicates[0].(*plan.Call).Args[1].(*plan.Literal)
	if bits := math.Float64bits(l.Value.Float()); bits != canonicalNaN {
		t.Errorf("literal NaN bits %#x, want %#x", bits, canonicalNaN)
	}
	if s, ok := f.Input.(*plan.ScanNode); !ok || s.Source != got.Tables[0] {
		t.Error("the scan does not read the canonicalized table")
	}
	if math.Float64bits(c.Tables[0].Column(0)[0].Float()) != 0xfff8000000000000 {
		t.Error("CanonicalNaNs modified its argument")
	}
}

// TestShrinkDecodedSharedSubplan shrinks a case read back from a plan file,
// where union(S, S) holds two separate copies of S: interning lets the
// shrinker cut both copies at once and reach union(scan, scan).
func TestShrinkDecodedSharedSubplan(t *testing.T) {
	unionSame := func(c Case) bool {
		found := false
		plan.WalkNodes(c.Plan, func(n plan.Node) bool {
			if u, ok := n.(*plan.UnionNode); ok && len(u.Inputs) == 2 && plan.Equal(u.Inputs[0], u.Inputs[1]) {
				found = true
			}
			return !found
		})
		return found && !c.IllTyped
	}
	opts := planjson.Options{UDFs: UDFs(), Extensions: Extensions()}
	tried := 0
	for i := 0; i < 3000 && tried < 5; i++ {
		c := CanonicalNaNs(Generate(CaseSeed(59, i), DefaultConfig()))
		if !unionSame(c) {
			continue
		}
		doc, err := planjson.NewDocument(c.Plan)
		if err != nil {
			t.Fatal(err)
		}
		data, err := planjson.Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := planjson.Decode(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		dc := Case{Seed: c.Seed, Config: c.Config, Plan: back.Plan}
		for _, tab := range c.Tables {
			dc.Tables = append(dc.Tables, back.Tables[tab.Name()].Inline)
		}
		u := findUnion(dc.Plan)
		if u == nil || u.Inputs[0] == u.Inputs[1] && len(u.Inputs[0].Children()) > 0 {
			continue // the decoder shared the copies itself; nothing to show
		}
		tried++
		out := Shrink(dc, unionSame)
		if got := kindsOf(out.Plan); len(got) != 3 || got[0] != "union" || got[1] != "scan" || got[2] != "scan" {
			t.Errorf("seed %d: decoded shared subplan shrank to %v, want [union scan scan]:\n%s", c.Seed, got, out)
		}
	}
	if tried == 0 {
		t.Fatal("no generated case has a union of two equal inputs with separate copies after decoding")
	}
}

func findUnion(n plan.Node) *plan.UnionNode {
	var u *plan.UnionNode
	plan.WalkNodes(n, func(x plan.Node) bool {
		if v, ok := x.(*plan.UnionNode); ok && u == nil && len(v.Inputs) == 2 && plan.Equal(v.Inputs[0], v.Inputs[1]) {
			u = v
		}
		return u == nil
	})
	return u
}

// TestOptimizedPlansRoundTrip: an optimized plan written as a plan file (as
// explain --format json and bisect write it) reads back as the same plan:
// decode(encode(p)) resolves to p, window names, scan projections and
// pushed lists included, so a printed optimized plan raises the error the
// optimized plan raises. Some generated plans read a column named like a
// window temporary ("__over_0") that the optimizer may prune, which once
// made the encoder fold a window into over() that resolved under another
// name.
func TestOptimizedPlansRoundTrip(t *testing.T) {
	opts := planjson.Options{UDFs: UDFs(), Extensions: Extensions()}
	flags := rules.DefaultFlags()
	windows := 0
	for i := 0; i < 1500; i++ {
		c := CanonicalNaNs(Generate(CaseSeed(59, i), DefaultConfig()))
		if c.IllTyped {
			continue
		}
		if i%3 == 0 {
			c = withOverNamedColumn(c)
		}
		res, err := rules.Optimize(c.Plan, flags)
		if err != nil {
			t.Fatalf("seed %d: optimize: %v\n%s", c.Seed, err, c)
		}
		doc, err := planjson.NewDocument(res.Plan)
		if err != nil {
			t.Fatalf("seed %d: NewDocument: %v", c.Seed, err)
		}
		data, err := planjson.Encode(doc)
		if err != nil {
			t.Fatalf("seed %d: Encode: %v\n%s", c.Seed, err, plan.Explain(res.Plan))
		}
		back, err := planjson.Decode(data, opts)
		if err != nil {
			t.Fatalf("seed %d: Decode: %v\n%s", c.Seed, err, data)
		}
		remap := map[*plan.Table]*plan.Table{}
		for _, tab := range c.Tables {
			if spec, ok := back.Tables[tab.Name()]; ok && spec.Inline != nil {
				remap[spec.Inline] = tab
			}
		}
		got, err := plan.Resolve(rebindScans(back.Plan, remap))
		if err != nil {
			t.Fatalf("seed %d: the decoded optimized plan does not resolve: %v\n%s", c.Seed, err, data)
		}
		if !plan.Equal(res.Plan, got) {
			t.Fatalf("seed %d: the round trip changed the optimized plan:\n%s\n---\n%s\n%s", c.Seed, plan.Explain(res.Plan), plan.Explain(got), data)
		}
		plan.WalkNodes(res.Plan, func(n plan.Node) bool {
			if n.Kind() == plan.KindWindow {
				windows++
			}
			return true
		})
	}
	if windows < 50 {
		t.Fatalf("only %d windows in the optimized plans: the property no longer covers window folding", windows)
	}
}

// withOverNamedColumn adds a column "__over_0" (a copy of the first) to
// the case's first table, so that a window Resolve synthesizes over it is
// named "__over_1", while pruning may drop the unread column below the
// window. It returns c unchanged when the case no longer resolves (say a
// union of that table with another).
func withOverNamedColumn(c Case) Case {
	if len(c.Tables) == 0 || c.Tables[0].Schema().Len() == 0 || c.Tables[0].Schema().Index("__over_0") >= 0 {
		return c
	}
	t := c.Tables[0]
	f0 := t.Schema().Field(0)
	f0.Name = "__over_0"
	schema, err := plan.NewSchema(append(t.Schema().Fields(), f0)...)
	if err != nil {
		return c
	}
	cols := make([][]plan.Value, schema.Len())
	for j := range t.Schema().Len() {
		cols[j] = t.Column(j)
	}
	cols[len(cols)-1] = t.Column(0)
	nt, err := plan.NewTable(t.Name(), schema, cols)
	if err != nil {
		return c
	}
	out := c
	out.Tables = append([]*plan.Table{planutil.WithPolicyOf(nt, t)}, c.Tables[1:]...)
	out.Plan = rebindScans(c.Plan, map[*plan.Table]*plan.Table{t: out.Tables[0]})
	if _, err := plan.Resolve(out.Plan); err != nil {
		return c
	}
	return out
}
