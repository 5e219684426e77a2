package rules

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/dfopt/dfopt/legality"
)

// Registry is a set of rules in the order Optimize runs them, and what is
// derived from their declarations: the flags (every rule and arm), the
// counters, the legality table holding every rule's cells. Builtin() holds
// the five built-in rules; a host engine makes one with its own rules
// (Builtin().With(...)) and passes it in Flags.Registry. A Registry is
// immutable and safe for concurrent use: registering builds a new one, so
// two embeddings in one process never see each other's rules.
type Registry struct {
	rules  []Rule
	byName map[string]int
	// flagNames lists every rule and arm flag in rule order (a rule, then
	// its arms); flagRule maps each to its rule.
	flagNames []string
	flagRule  map[string]string
	// counterNames and counterRule hold each counter's name and rule by
	// counter index (registration order); counterOrder lists the indexes
	// in List order.
	counterNames []string
	counterRule  []string
	counterIndex map[string]int
	counterOrder []int
	table        *legality.Table
	// err is a declaration error of the built-in rules (a bug caught by
	// the package's tests), returned by every Optimize call with them.
	err error
}

// The built-in rules, in the order they run (docs/design.md §6). A new built-in
// rule is its own file declaring its Rule; it is added here.
func builtinRules() []Rule {
	return []Rule{simplify(), rangeProofs(), orImplied(), predicatePushdown(), filterFusion(), collapseCrossJoin(), semiReduction(), semiPushdown(), joinOrder(), projectionFusion(), projectionPruning(), errorGuards(), limitPushdown(), buildSide(), sharedSubplans()}
}

// builtin is set once, by init, and never changed: Builtin's registry.
var builtin *Registry

func init() { builtin = newBuiltin() }

func newBuiltin() *Registry {
	rules := builtinRules()
	table := legality.Default()
	for i := range rules {
		rules[i].builtin = true
		for _, c := range table.Cells() {
			if c.Rule == rules[i].Name {
				rules[i].Cells = append(rules[i].Cells, c)
			}
		}
	}
	reg, err := build(rules, table)
	if err != nil {
		return &Registry{err: fmt.Errorf("rules: the built-in rules are declared wrongly: %w", err), table: table}
	}
	for _, c := range table.Cells() {
		if _, ok := reg.byName[c.Rule]; !ok {
			reg.err = fmt.Errorf("rules: cell %s belongs to rule %q, which is not built in", c.ID, c.Rule)
		}
	}
	return reg
}

// Builtin returns the registry of the built-in rules, whose table is
// legality.Default(): the registry a Flags without one uses.
func Builtin() *Registry { return builtin }

// With returns a new registry holding r's rules and rules, each checked
// (see Rule), their cells joined to r's table (legality.Table.With). A new
// rule runs right before the rule its Before names, else after every
// rewriting rule and before the analysis rules (shared_subplans'
// prediction must see the final plan), in the order given. r is not
// changed.
func (r *Registry) With(rules ...Rule) (*Registry, error) {
	if r.err != nil {
		return nil, r.err
	}
	var cells []legality.Cell
	for _, rule := range rules {
		cells = append(cells, rule.Cells...)
	}
	table, err := r.table.With(cells...)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	all := slices.Clone(r.rules)
	for _, rule := range rules {
		rule.builtin = false
		at := slices.IndexFunc(all, func(x Rule) bool { return x.Analysis })
		if at < 0 || rule.Analysis {
			at = len(all)
		}
		if rule.Before != "" {
			at = slices.IndexFunc(all, func(x Rule) bool { return x.Name == rule.Before })
			if at < 0 {
				return nil, fmt.Errorf("rules: rule %q runs before %q, which is not registered before it", rule.Name, rule.Before)
			}
		}
		all = slices.Insert(all, at, rule)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Analysis && !all[i].Analysis {
			return nil, fmt.Errorf("rules: rule %q would run after the analysis rule %q, which must see the final plan", all[i].Name, all[i-1].Name)
		}
	}
	return build(all, table)
}

var (
	snakeName   = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	counterName = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
)

// build checks the rules and derives a registry from them.
func build(rules []Rule, table *legality.Table) (*Registry, error) {
	reg := &Registry{rules: rules, byName: map[string]int{}, flagRule: map[string]string{FlagVerify: ""},
		counterIndex: map[string]int{}, table: table}
	type ranked struct{ index, position int }
	var order []ranked
	for i := range rules {
		rule := &rules[i]
		if err := rule.check(); err != nil {
			return nil, err
		}
		reg.byName[rule.Name] = i
		for _, flag := range append([]string{rule.Name}, rule.Arms...) {
			if _, dup := reg.flagRule[flag]; dup {
				return nil, fmt.Errorf("rules: rule %s: the flag %q is taken", rule.Name, flag)
			}
			reg.flagRule[flag] = rule.Name
			reg.flagNames = append(reg.flagNames, flag)
		}
		for _, c := range rule.Counters {
			if _, dup := reg.counterIndex[c.Name]; dup {
				return nil, fmt.Errorf("rules: rule %s: the counter %q is taken", rule.Name, c.Name)
			}
			reg.counterIndex[c.Name] = len(reg.counterNames)
			order = append(order, ranked{len(reg.counterNames), c.Position})
			reg.counterNames = append(reg.counterNames, c.Name)
			reg.counterRule = append(reg.counterRule, rule.Name)
		}
		for _, c := range rule.Cells {
			if got, ok := table.Lookup(c.ID); !ok || got.Rule != rule.Name {
				return nil, fmt.Errorf("rules: rule %s: cell %s is not in the table as one of its own", rule.Name, c.ID)
			}
		}
	}
	delete(reg.flagRule, FlagVerify)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i].position, order[j].position
		if (a == 0) != (b == 0) {
			return b == 0
		}
		return a < b
	})
	for _, o := range order {
		reg.counterOrder = append(reg.counterOrder, o.index)
	}
	return reg, nil
}

// check reports what is missing or contradictory in a rule's declaration.
func (r *Rule) check() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("rules: rule %q: "+format, append([]any{r.Name}, args...)...)
	}
	for arm, t := range r.ArmTiers {
		if !slices.Contains(r.Arms, arm) {
			return fail("ArmTiers names %q, which is not one of its arms", arm)
		}
		if t < r.Tier || t > TierStandard {
			return fail("arm %q has tier %s, below the rule's %s or unknown", arm, t, r.Tier)
		}
	}
	switch {
	case !snakeName.MatchString(r.Name) || r.Name == FlagVerify:
		return fail("the name must be snake_case and not %q", FlagVerify)
	case r.Doc == "":
		return fail("no Doc")
	case (r.Rewrite == nil) == (r.Local == nil):
		return fail("exactly one of Rewrite and Local is needed")
	case r.Mode > UntilStable:
		return fail("unknown run mode %d", r.Mode)
	case r.Tier > TierStandard:
		return fail("unknown tier %d", r.Tier)
	case r.Analysis && (r.Mode != Once || r.Rewrite == nil):
		return fail("an analysis rule runs Once, as a full rule")
	case !r.Analysis && r.Application == "":
		return fail("no Application: what counts as one rewrite application")
	case r.Verbs.Allowed == "" || r.Verbs.Refused == "":
		return fail("no Verbs: what its allowed and refused trace entries say")
	case len(r.Counters) == 0:
		return fail("no counter: a rule declares what it counts")
	case len(r.Cells) == 0:
		return fail("no legality cell: every rewrite is allowed or refused by a cell")
	}
	for _, a := range r.Arms {
		if !snakeName.MatchString(a) {
			return fail("arm %q is not snake_case", a)
		}
	}
	seen := map[string]bool{}
	for _, c := range r.Counters {
		if !counterName.MatchString(c.Name) || seen[c.Name] || c.Position < 0 {
			return fail("counter %q: a lowerCamelCase name, once, and a position >= 0", c.Name)
		}
		seen[c.Name] = true
	}
	for _, c := range r.Cells {
		if c.Rule != r.Name {
			return fail("cell %s belongs to rule %q", c.ID, c.Rule)
		}
	}
	return nil
}

// Err returns the error of a registry whose built-in rules are declared
// wrongly (nil for every registry With returns).
func (r *Registry) Err() error { return r.err }

// Rules returns the rules in the order Optimize runs them.
func (r *Registry) Rules() []Rule { return slices.Clone(r.rules) }

// Rule returns the rule with the given name.
func (r *Registry) Rule(name string) (Rule, bool) {
	i, ok := r.byName[name]
	if !ok {
		return Rule{}, false
	}
	return r.rules[i], true
}

// Table returns the legality table holding every rule's cells at their
// declared verdicts.
func (r *Registry) Table() *legality.Table { return r.table }

// FlagNames lists every flag name the registry's FlagsFromMap accepts,
// sorted: its rules, their arms and "verify".
func (r *Registry) FlagNames() []string {
	names := append(slices.Clone(r.flagNames), FlagVerify)
	sort.Strings(names)
	return names
}

// RuleFlags lists the rule and arm flags in rule order: each rule, then
// its arms (bisection's order).
func (r *Registry) RuleFlags() []string { return slices.Clone(r.flagNames) }

// ArmOf returns the rule of an arm flag, and false for anything else.
func (r *Registry) ArmOf(flag string) (string, bool) {
	rule, ok := r.flagRule[flag]
	return rule, ok && rule != flag
}

func (r *Registry) isFlag(name string) bool {
	_, ok := r.flagRule[name]
	return ok
}

// DefaultFlags runs every rule and arm of the registry, with Verify off.
func (r *Registry) DefaultFlags() Flags {
	f := Flags{all: true, Tier: TierStandard}
	if r != builtin {
		f.Registry = r
	}
	return f
}

// CounterNames lists the counters' JSON names in List order.
func (r *Registry) CounterNames() []string {
	out := make([]string, len(r.counterOrder))
	for k, i := range r.counterOrder {
		out[k] = r.counterNames[i]
	}
	return out
}

// CountersOf returns the names of a rule's counters, in its declaration
// order.
func (r *Registry) CountersOf(rule string) []string {
	var out []string
	for i, owner := range r.counterRule {
		if owner == rule {
			out = append(out, r.counterNames[i])
		}
	}
	return out
}

// Rewrote returns, in rule order, the rules that moved a counter in c: the
// rules that changed the plan (or, for shared_subplans, predicted
// sharing). A rule can fire (an allowed trace entry, such as pruning
// passing requirements through a sort) without rewriting anything.
func (r *Registry) Rewrote(c Counters) []string {
	var out []string
	for _, rule := range r.rules {
		for _, cd := range rule.Counters {
			if c.Get(cd.Name) != 0 {
				out = append(out, rule.Name)
				break
			}
		}
	}
	return out
}

// newCounters returns zero counters of the registry.
func (r *Registry) newCounters() []int { return make([]int, len(r.counterNames)) }
