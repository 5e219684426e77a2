package proptest

import (
	"math"
	"reflect"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// TestShrinkStreamIsFiniteAndSmaller drains the candidate stream of many
// cases: every candidate is strictly smaller than its case, the stream
// ends, and the case itself is left untouched.
func TestShrinkStreamIsFiniteAndSmaller(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxRows = 16
	for i := 0; i < 150; i++ {
		seed := CaseSeed(37, i)
		c := Generate(seed, cfg)
		total := Size(c).Total()
		next := shrinkStream(c)
		n := 0
		for {
			cand, ok := next()
			if !ok {
				break
			}
			n++
			if got := Size(cand).Total(); got >= total {
				t.Fatalf("seed %d: candidate %d has size %d, not below %d:\n%s", seed, n, got, total, cand)
			}
			if cand.Plan == nil {
				t.Fatalf("seed %d: candidate %d has no plan", seed, n)
			}
			if _, err := plan.Resolve(cand.Plan); (err != nil) != cand.IllTyped {
				t.Fatalf("seed %d: candidate %d: IllTyped=%v but Resolve error %v", seed, n, cand.IllTyped, err)
			}
			if n > 200000 {
				t.Fatalf("seed %d: more than %d candidates", seed, n)
			}
		}
		if total > Size(Case{Plan: c.Plan, Tables: c.Tables[:1]}).Total() && n == 0 {
			t.Errorf("seed %d: no candidate for a case of size %d", seed, total)
		}
		if !Equal(c, Generate(seed, cfg)) {
			t.Fatalf("seed %d: streaming candidates modified the case", seed)
		}
	}
}

// TestShrinkMinimizes shrinks generated cases under synthetic failures and
// checks the minimal shapes.
func TestShrinkMinimizes(t *testing.T) {
	hasKind := func(k plan.Kind) func(Case) bool {
		return func(c Case) bool {
			found := false
			plan.WalkNodes(c.Plan, func(n plan.Node) bool {
				found = found || n.Kind() == k
				return !found
			})
			return found && !c.IllTyped
		}
	}
	hasNaNPayload := func(c Case) bool {
		for _, tab := range c.Tables {
			for j := 0; j < tab.Schema().Len(); j++ {
				for _, v := range tab.Column(j) {
					if !v.IsNull() && v.Type() == plan.Float64 && math.IsNaN(v.Float()) && math.Float64bits(v.Float()) != canonicalNaN {
						return true
					}
				}
			}
		}
		return false
	}
	tests := []struct {
		name      string
		fails     func(Case) bool
		kinds     []string // the minimal plan's node kinds, parents first
		maxRows   int
		maxCols   int
		maxExprs  int
		wantTotal int // exact minimal Total, or -1
	}{
		{"sort over filter", sortOverFilter, []string{"sort", "filter", "scan"}, 1, 1, 2, -1},
		{"contains a join", hasKind(plan.KindJoin), []string{"join", "scan", "scan"}, 0, 1, 2, -1},
		{"contains an aggregate", hasKind(plan.KindAggregate), []string{"aggregate", "scan"}, 0, 1, 1, -1},
		{"NaN payload in the data", hasNaNPayload, []string{"scan"}, 1, 1, 0, -1},
		{"anything", func(Case) bool { return true }, []string{"scan"}, 0, 1, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := 0
			for i := 0; i < 5000 && found < 5; i++ {
				c := Generate(CaseSeed(41, i), DefaultConfig())
				if !tt.fails(c) {
					continue
				}
				found++
				out, st := ShrinkWith(c, tt.fails, ShrinkOptions{})
				s := Size(out)
				if !tt.fails(out) {
					t.Fatalf("seed %d: the shrunk case no longer fails:\n%s", c.Seed, out)
				}
				if got := kindsOf(out.Plan); !reflect.DeepEqual(got, tt.kinds) {
					t.Errorf("seed %d: minimal plan has kinds %v, want %v:\n%s", c.Seed, got, tt.kinds, out)
				}
				if s.Rows > tt.maxRows || s.Columns > tt.maxCols*len(out.Tables) || s.Exprs > tt.maxExprs {
					t.Errorf("seed %d: minimal case %v exceeds rows<=%d cols<=%d/table exprs<=%d:\n%s", c.Seed, s, tt.maxRows, tt.maxCols, tt.maxExprs, out)
				}
				if tt.wantTotal >= 0 && s.Total() != tt.wantTotal {
					t.Errorf("seed %d: minimal total %d, want %d:\n%s", c.Seed, s.Total(), tt.wantTotal, out)
				}
				if st.Before.Total() > s.Total() && st.Steps == 0 {
					t.Errorf("seed %d: size fell without a step", c.Seed)
				}
				if st.Before.Total() < s.Total() {
					t.Errorf("seed %d: shrinking grew the case from %v to %v", c.Seed, st.Before, s)
				}
				t.Logf("seed %d: %v -> %v in %d calls, %d steps", c.Seed, st.Before, st.After, st.Calls, st.Steps)
			}
			if found == 0 {
				t.Fatal("no generated case fails the property")
			}
		})
	}
}

func TestShrinkRespectsMaxCalls(t *testing.T) {
	c := Generate(CaseSeed(43, 0), DefaultConfig())
	calls := 0
	_, st := ShrinkWith(c, func(Case) bool { calls++; return false }, ShrinkOptions{MaxCalls: 7})
	if st.Calls > 7 || calls != st.Calls {
		t.Errorf("MaxCalls 7: property called %d times, stats say %d", calls, st.Calls)
	}
	if st.Steps != 0 || st.After != st.Before {
		t.Errorf("a property that never fails shrank the case: %+v", st)
	}
}

// TestShrinkKeepsIllTypedAccurate shrinks an ill-typed case while it stays
// ill-typed: every adopted candidate keeps the flags in step with Resolve.
func TestShrinkKeepsIllTypedAccurate(t *testing.T) {
	for i := 0; i < 20; i++ {
		c := Generate(CaseSeed(47, i), Config{IllTypedShare: 1})
		if !c.IllTyped {
			continue
		}
		out := Shrink(c, func(x Case) bool { return x.IllTyped })
		if _, err := plan.Resolve(out.Plan); err == nil || !out.IllTyped || out.Corruption == "" {
			t.Fatalf("seed %d: shrunk ill-typed case: IllTyped=%v Corruption=%q err=%v\n%s", c.Seed, out.IllTyped, out.Corruption, err, out)
		}
		// Four nodes at most: a union of inputs of different widths
		// needs union(scan, with_columns(scan)) when the case has one
		// table.
		if s := Size(out); s.Nodes > 4 || s.Rows > 0 {
			t.Errorf("seed %d: ill-typed case shrank only to %v:\n%s", c.Seed, s, out)
		}
	}
}

// TestGopterShrinksSortOverFilter runs a gopter property over CaseGen with
// a fixed seed (printed on failure; override with -proptest.seed) whose
// synthetic failure is "a sort directly over a filter", and checks that
// gopter, through CaseShrinker, reports the minimal scan-filter-sort plan.
func TestGopterShrinksSortOverFilter(t *testing.T) {
	seed := *seedFlag
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.Workers = 1
	params.MinSuccessfulTests = 500
	p := prop.ForAll(func(c Case) bool { return !sortOverFilter(c) }, CaseGen(DefaultConfig()))
	res := p.Check(params)
	if res.Passed() {
		t.Fatalf("seed %d: the synthetic failure was never generated in %d cases", seed, res.Succeeded)
	}
	if len(res.Args) != 1 {
		t.Fatalf("seed %d: %d reported arguments (status %v, error %v)", seed, len(res.Args), res.Status, res.Error)
	}
	arg := res.Args[0]
	out, ok := arg.Arg.(Case)
	if !ok {
		t.Fatalf("seed %d: reported argument is a %T", seed, arg.Arg)
	}
	orig := arg.OrigArg.(Case)
	if got := kindsOf(out.Plan); !reflect.DeepEqual(got, []string{"sort", "filter", "scan"}) {
		t.Errorf("seed %d: shrunk plan has kinds %v, want [sort filter scan]:\n%s", seed, got, out)
	}
	if s := Size(out); s.Nodes != 3 || s.Rows > 1 {
		t.Errorf("seed %d: shrunk case is %v, want 3 nodes and at most 1 row:\n%s", seed, s, out)
	}
	// The original replays from its seed alone.
	if !Equal(orig, Generate(orig.Seed, DefaultConfig())) {
		t.Errorf("seed %d: the original counterexample does not replay from its seed %d", seed, orig.Seed)
	}
	t.Logf("seed %d: falsified after %d passed; %d shrinks: %v -> %v", seed, res.Succeeded, arg.Shrinks, Size(orig), Size(out))
}

// TestGopterGeneratedCasesMatchTheirFlags is the generator's own property
// in the form the oracle will take: over CaseGen, a case resolves exactly
// when it is not marked ill-typed, and replays from its seed.
func TestGopterGeneratedCasesMatchTheirFlags(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(*seedFlag)
	params.Workers = 1
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	cfg := DefaultConfig()
	props.Property("resolves iff well-typed, and replays", prop.ForAll(func(c Case) bool {
		_, err := plan.Resolve(c.Plan)
		return (err == nil) != c.IllTyped && Equal(c, Generate(c.Seed, cfg))
	}, CaseGen(cfg)))
	props.TestingRun(t) // prints the seed on failure
}
