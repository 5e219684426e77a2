package proptest

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestTwinTables checks Config.TwinShare: with it, some cases hold two
// tables of one name and schema, read by two subtrees with one fingerprint
// that plan.Equal tells apart (the collision ss.structural exists for);
// without it (the default), table names stay unique.
func TestTwinTables(t *testing.T) {
	twins := 0
	for i := 0; i < 400; i++ {
		c := Generate(CaseSeed(77, i), Config{TwinShare: 1, IllTypedShare: -1})
		if _, err := plan.Resolve(c.Plan); err != nil {
			t.Fatalf("seed %d: a twin case does not resolve: %v", c.Seed, err)
		}
		byName := map[string]*plan.Table{}
		var a, b *plan.Table
		for _, tb := range c.Tables {
			if prev, ok := byName[tb.Name()]; ok {
				a, b = prev, tb
				break
			}
			byName[tb.Name()] = tb
		}
		if a == nil {
			continue
		}
		twins++
		if !a.Schema().Equal(b.Schema()) || a.Rows() != b.Rows() {
			t.Fatalf("seed %d: twin %s differs in schema or rows", c.Seed, a.Name())
		}
		sa, sb := plan.Scan(a).Node(), plan.Scan(b).Node()
		if plan.Fingerprint(sa) != plan.Fingerprint(sb) || plan.Equal(sa, sb) {
			t.Fatalf("seed %d: twin scans must collide on the fingerprint and differ as plans", c.Seed)
		}
		if c2 := Generate(c.Seed, c.Config); !Equal(c, c2) {
			t.Fatalf("seed %d: a twin case does not replay", c.Seed)
		}
	}
	if twins < 3 {
		t.Errorf("TwinShare=1 gave only %d twin cases in 400", twins)
	}
	for i := 0; i < 400; i++ {
		c := Generate(CaseSeed(78, i), Config{})
		seen := map[string]bool{}
		for _, tb := range c.Tables {
			if seen[tb.Name()] {
				t.Fatalf("seed %d: two tables named %s without TwinShare", c.Seed, tb.Name())
			}
			seen[tb.Name()] = true
		}
	}
}

// TestTotalNonDeterministicUDF checks that the generator calls nd_tick,
// the total non-deterministic UDF (pf.deterministic's counterexample needs
// one, since nd_seq is partial and pf.inline keeps it in place anyway).
func TestTotalNonDeterministicUDF(t *testing.T) {
	n := 0
	for i := 0; i < 2000; i++ {
		for _, f := range Features(Generate(CaseSeed(79, i), Config{})) {
			if f == "udf:nd_tick" {
				n++
			}
		}
	}
	if n < 20 {
		t.Errorf("nd_tick in only %d of 2000 cases", n)
	}
}
