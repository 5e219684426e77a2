package rules

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

func TestTiers(t *testing.T) {
	for _, tier := range Tiers() {
		got, err := ParseTier(tier.String())
		if err != nil || got != tier {
			t.Errorf("ParseTier(%q) = %v, %v", tier, got, err)
		}
	}
	if _, err := ParseTier("fancy"); err == nil || !strings.Contains(err.Error(), "bounded, standard") {
		t.Errorf("ParseTier(fancy): %v", err)
	}
	if d := DefaultFlags(); d.Tier != TierStandard {
		t.Errorf("DefaultFlags has tier %s, want standard", d.Tier)
	}
	b := BoundedFlags()
	if b.Tier != TierBounded {
		t.Errorf("BoundedFlags has tier %s", b.Tier)
	}
	// A standard-only rule and a standard-only arm of a bounded rule are
	// off in the bounded preset and on in the standard one.
	noop := func(c *Context, n plan.Node) (plan.Node, error) { return n, nil }
	std := hostRule("std_rule", nil, noop)
	std.Tier, std.Arms = TierStandard, []string{"std_rule_arm"}
	mixed := hostRule("mixed_rule", nil, noop)
	mixed.Arms, mixed.ArmTiers = []string{"old_arm", "new_arm"}, map[string]Tier{"new_arm": TierStandard}
	reg, err := Builtin().With(std, mixed)
	if err != nil {
		t.Fatal(err)
	}
	bounded, standard := reg.TierFlags(TierBounded), reg.TierFlags(TierStandard)
	for _, c := range []struct {
		flag          string
		inBounded, in bool
	}{
		{"std_rule", false, true}, {"std_rule_arm", true, true}, // the arm follows the rule's tier (the rule is off)
		{"mixed_rule", true, true}, {"old_arm", true, true}, {"new_arm", false, true},
		{FlagPredicatePushdown, true, true},
	} {
		if got := bounded.Enabled(c.flag); got != c.inBounded {
			t.Errorf("bounded preset: %s = %v, want %v", c.flag, got, c.inBounded)
		}
		if got := standard.Enabled(c.flag); got != c.in {
			t.Errorf("standard preset: %s = %v, want %v", c.flag, got, c.in)
		}
	}
	bad := hostRule("bad_rule", nil, noop)
	bad.Arms, bad.ArmTiers = []string{"an_arm"}, map[string]Tier{"no_such_arm": TierStandard}
	if _, err := Builtin().With(bad); err == nil || !strings.Contains(err.Error(), "not one of its arms") {
		t.Errorf("an ArmTiers entry naming no arm: %v", err)
	}
}
