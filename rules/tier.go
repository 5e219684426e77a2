package rules

import (
	"fmt"
	"strings"
)

// Tier is a preset of the optimizer: which rules and arms run, and which
// totality the legality table relies on. The bounded tier is the founding
// contract — five rules, and only column references, literals and
// declared-total UDFs count as total (docs/adr/0001) — kept byte for byte;
// the standard tier, the default, adds the rules and arms declared for it
// and the totality lattice over every built-in (plan.Total,
// docs/semantics.md, Totality). The zero value is TierBounded: a rule that
// declares no tier runs in every preset; DefaultFlags is the standard tier.
type Tier uint8

// The tiers, the smaller first.
const (
	TierBounded Tier = iota
	TierStandard
)

// Tiers lists the tiers, the smaller first.
func Tiers() []Tier { return []Tier{TierBounded, TierStandard} }

// String returns "standard" or "bounded".
func (t Tier) String() string {
	switch t {
	case TierStandard:
		return "standard"
	case TierBounded:
		return "bounded"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// ParseTier reads a tier's name: "bounded" or "standard".
func ParseTier(s string) (Tier, error) {
	for _, t := range Tiers() {
		if t.String() == s {
			return t, nil
		}
	}
	names := make([]string, 0, len(Tiers()))
	for _, t := range Tiers() {
		names = append(names, t.String())
	}
	return 0, fmt.Errorf("unknown tier %q (known: %s)", s, strings.Join(names, ", "))
}

// includes reports whether a rule or arm declared for tier from runs in a
// preset of tier t: a preset runs what is declared for its tier or a
// smaller one.
func (t Tier) includes(from Tier) bool { return from <= t }

// TierFlags returns the preset of tier t: every rule and arm of the
// registry that tier runs (a rule's Tier and its ArmTiers say which), with
// t's totality, Verify off.
func (r *Registry) TierFlags(t Tier) Flags {
	f := r.DefaultFlags()
	f.Tier = t
	for _, rule := range r.rules {
		if !t.includes(rule.Tier) {
			_ = f.Set(rule.Name, false)
		}
		for _, arm := range rule.Arms {
			if !t.includes(rule.ArmTiers[arm]) {
				_ = f.Set(arm, false)
			}
		}
	}
	return f
}

// BoundedFlags is the bounded tier's preset of the built-in rules
// (Builtin().TierFlags(TierBounded)).
func BoundedFlags() Flags { return Builtin().TierFlags(TierBounded) }
