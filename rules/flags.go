package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dfopt/dfopt/legality"
)

// FlagVerify turns Verify mode on (see Flags.Verify). The other flag names
// are the rules' names and arms (Rule.Name, Rule.Arms), declared in each
// rule's file.
const FlagVerify = "verify"

// Flags selects the rules and arms that run, Verify mode, the rewrite
// limit, the legality table and the rules themselves. Every rule and arm
// of the registry is a flag by its name. The zero value runs nothing;
// DefaultFlags runs everything. Flags are values: a copy is independent of
// the original (Set never changes storage another copy shares).
type Flags struct {
	// all is the value of every rule and arm flag not in except: true for
	// DefaultFlags, false for the zero value.
	all bool
	// except lists, sorted, the flags whose value is the opposite of all.
	except []string

	// Tier is the totality the legality table relies on: TierBounded's
	// (columns, literals and declared-total UDFs) or TierStandard's (the
	// lattice over every built-in, plan.Total). DefaultFlags and the
	// presets (Registry.TierFlags) set it with the rules of their tier.
	Tier Tier
	// Verify checks, after every rule, that the root schema is unchanged and
	// that the whole plan resolves from scratch (plan.Unresolved), naming
	// the rule that broke it. It costs a full re-resolution per rule; tests
	// turn it on. A host's rules (Registry.With) are always checked so.
	Verify bool
	// Limit bounds the rewrite applications (see Rule.Application for what
	// one is), in the order the rules apply them, as LLVM's
	// opt-bisect-limit does: 0 means no limit, k > 0 lets the first k
	// happen, and a negative value (LimitNone) lets none happen. A rewrite
	// past the limit is refused with a trace entry marked Limited instead
	// of a cell. Bisection (oracle.Bisect) uses it to name the first bad
	// application. It is not a plan-file flag (Map and FlagsFromMap ignore
	// it).
	Limit int
	// Table is the legality table the rules consult; nil means the
	// registry's (Registry.Table: legality.Default() for the built-in
	// rules). A mutation campaign passes a table with one cell overridden
	// (legality.Table.WithOverride): no global state is involved. It must
	// hold every cell of the registry's rules.
	Table *legality.Table
	// Registry holds the rules that may run, in their order; nil means
	// Builtin(). A host engine passes one with its own rules
	// (Registry.With).
	Registry *Registry
	// Evaluator computes constant expressions for simplify's constant
	// folding (ConstEvaluator); nil folds nothing. The front door, the CLI
	// and the oracle pass the executor's kernel (exec.ConstEvaluator), so
	// a constant folds to exactly what evaluating it row by row gives; a
	// host passes its own. It is not a flag: Map, FlagsFromMap and Equal
	// ignore it.
	Evaluator ConstEvaluator
}

// DefaultFlags runs every built-in rule and arm of the standard tier, the
// default, with Verify off.
func DefaultFlags() Flags { return Builtin().DefaultFlags() }

// NoFlags runs no rule: Optimize then only resolves the plan.
func NoFlags() Flags { return Flags{} }

// FlagNames lists every flag name FlagsFromMap accepts, sorted: the
// built-in rules, their arms and "verify".
func FlagNames() []string { return Builtin().FlagNames() }

// FlagsFromMap starts from DefaultFlags and applies m (a plan file's
// "flags" object): each key must be a flag name (a rule, an arm, or
// "verify") of the built-in rules. An unknown name is an error listing the
// known ones. Registry.FlagsFromMap does the same for a registry with a
// host's rules.
func FlagsFromMap(m map[string]bool) (Flags, error) { return Builtin().FlagsFromMap(m) }

// Rules returns the registry the flags select rules from (Builtin() when
// Registry is nil).
func (f Flags) Rules() *Registry {
	if f.Registry == nil {
		return Builtin()
	}
	return f.Registry
}

// LegalityTable returns the table the rules consult: Table, or the
// registry's.
func (f Flags) LegalityTable() *legality.Table {
	if f.Table == nil {
		return f.Rules().Table()
	}
	return f.Table
}

// Enabled reports the value of the named flag: a rule or arm of the
// registry, or "verify" (false for unknown names). It allocates nothing
// (the driver asks it once per rule).
func (f Flags) Enabled(name string) bool {
	if name == FlagVerify {
		return f.Verify
	}
	if !f.Rules().isFlag(name) {
		return false
	}
	_, found := slices.BinarySearch(f.except, name)
	return f.all != found
}

// Set sets the named flag (a rule or arm of the registry, or "verify").
// An unknown name is an error listing the known ones, and changes nothing.
func (f *Flags) Set(name string, on bool) error {
	if name == FlagVerify {
		f.Verify = on
		return nil
	}
	reg := f.Rules()
	if !reg.isFlag(name) {
		return fmt.Errorf("unknown optimizer flag %q (known: %s)", name, strings.Join(reg.FlagNames(), ", "))
	}
	i, found := slices.BinarySearch(f.except, name)
	switch want := on != f.all; {
	case want && !found:
		f.except = slices.Insert(slices.Clip(f.except), i, name)
	case !want && found:
		f.except = slices.Delete(slices.Clone(f.except), i, i+1)
	}
	return nil
}

// Map returns the flags as a map from flag name to value: every rule and
// arm of the registry, and "verify".
func (f Flags) Map() map[string]bool {
	names := f.Rules().flagNames
	m := make(map[string]bool, len(names)+1)
	for _, n := range names {
		m[n] = f.Enabled(n)
	}
	m[FlagVerify] = f.Verify
	return m
}

// Equal reports whether f and g select the same rules and arms with the
// same tier, Verify, Limit, table and registry.
func (f Flags) Equal(g Flags) bool {
	if f.Verify != g.Verify || f.Limit != g.Limit || f.Tier != g.Tier || f.Table != g.Table || f.Rules() != g.Rules() {
		return false
	}
	for _, n := range f.Rules().flagNames {
		if f.Enabled(n) != g.Enabled(n) {
			return false
		}
	}
	return true
}

// FlagsFromMap starts from the registry's DefaultFlags and applies m (a
// plan file's "flags" object): each key must be a flag name of the
// registry's rules or "verify". Unknown names are an error listing the
// known ones.
func (r *Registry) FlagsFromMap(m map[string]bool) (Flags, error) {
	f := r.DefaultFlags()
	var unknown []string
	for name, v := range m {
		if name != FlagVerify && !r.isFlag(name) {
			unknown = append(unknown, name)
			continue
		}
		if err := f.Set(name, v); err != nil {
			return Flags{}, err
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Flags{}, fmt.Errorf("unknown optimizer flag(s) %s (known: %s)",
			strings.Join(quoteAll(unknown), ", "), strings.Join(r.FlagNames(), ", "))
	}
	return f, nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
