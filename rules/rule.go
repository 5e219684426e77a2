package rules

import (
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

// Rule is one rewrite rule, declared as one value: everything the driver,
// the flags, the counters, the trace, the rewrite limit, the oracle's
// statistics and the mutation campaign need to know about it is here, and
// the rest is derived from it by the Registry that holds it. A built-in
// rule is its own file (its name.go); a host engine declares its own rules
// the same way and adds them with Registry.With.
type Rule struct {
	// Name is the rule's one identifier: its flag, its file name, its trace
	// entries, the Rule field of its legality cells, the oracle's per-rule
	// statistics and the mutation report all use it. snake_case.
	Name string
	// Doc says in one sentence what the rule does.
	Doc string
	// Arms are the flag names of the rule's risky arms: parts of its
	// rewrite a plan file or a bisection can switch off on their own
	// (Context.Enabled). They matter only while the rule's own flag is on.
	Arms []string
	// Tier is the smallest tier whose preset runs the rule
	// (Registry.TierFlags): TierBounded, the zero value, for the founding
	// rules (and a host's, unless it says otherwise), TierStandard for a
	// rule the bounded preset leaves off. ArmTiers does the same per arm;
	// an arm not listed runs in the rule's tier.
	Tier     Tier
	ArmTiers map[string]Tier
	// Counters are the counters the rule moves, by JSON name (Context.Count).
	// Every rule declares at least one: a rule "rewrote" a plan when one of
	// its counters moved (Registry.Rewrote).
	Counters []CounterDef
	// Verbs are what its trace entries say (Entry.String): "`a > 1`
	// pushed past sort [b]".
	Verbs Verbs
	// Application says what counts as one rewrite application: the unit
	// Flags.Limit counts and bisection names (Context.Apply takes one).
	Application string
	// Mode says how often the driver runs the rewrite per Optimize call.
	Mode RunMode
	// Analysis marks a rule that rewrites nothing but reads the final plan
	// (shared_subplans' prediction): it runs after every rewriting rule, and
	// returning another plan than it was given is an error.
	Analysis bool
	// Before, for a rule added with Registry.With, names the rule it runs
	// right before (a host rule that makes work for the built-in ones runs
	// before predicate_pushdown); empty means after every rewriting rule
	// of the registry, before its analysis rules.
	Before string
	// Matches lists the node kinds the rule looks at: Optimize runs a full
	// rule only on a plan holding a node of one of them, and calls a local
	// rule only on such nodes. Empty means every kind.
	Matches []plan.Kind
	// Cells are the legality cells the rule consults, each naming the rule
	// in its Rule field. A built-in rule's are legality.Default()'s, filled
	// in by Builtin; a host rule brings its own, which join its registry's
	// table (legality.Table.With) and are then flipped by the mutation
	// campaign, counted by the oracle and rendered like the built-in ones.
	Cells []legality.Cell

	// Rewrite rewrites the whole plan (a full rule): it returns root itself
	// when it changes nothing, and never modifies a node of root. It is
	// called by Optimize only.
	Rewrite func(c *Context, root plan.Node) (plan.Node, error)
	// Local, when Rewrite is nil, makes the rule a local one: Optimize runs
	// it over the plan with TransformUp, so it sees one node at a time, its
	// inputs already rewritten, and returns the node itself or its
	// replacement (whose schema must be the node's).
	Local LocalRule

	// builtin marks the rules of Builtin(): the driver trusts them to keep
	// every node's schema and checks it only in Verify mode and at the root.
	builtin bool
}

// LocalRule rewrites one node whose inputs are already rewritten: it
// returns n itself to keep it, or a replacement with n's schema, taking the
// decision through the rule's own cells (Context.Decide) and recording it
// (Context.Apply). at locates the node in the plan the rule received.
type LocalRule func(c *Context, n plan.Node, at *plan.Path) (plan.Node, error)

// RunMode says how often the driver runs a rule per Optimize call.
type RunMode uint8

// The run modes.
const (
	// Once runs the rewrite one time: the rule reaches its fixed point in
	// one pass (every built-in rule does; a second Optimize finds nothing
	// left to do).
	Once RunMode = iota
	// UntilStable runs the rewrite again on its own output until the plan
	// stops changing (structurally: plan.Equal, not the rule's word), at
	// most MaxPasses times; a rule still changing the plan then is an error.
	UntilStable
)

// MaxPasses bounds the passes of an UntilStable rule in one Optimize call.
const MaxPasses = 64

// String returns "once" or "until_stable".
func (m RunMode) String() string {
	if m == UntilStable {
		return "until_stable"
	}
	return "once"
}

// CounterDef declares one counter a rule moves.
type CounterDef struct {
	// Name is the counter's JSON name ("pushedFilters"), as plan files'
	// "expect.counters" and docs/counters.md use it.
	Name string
	// Position orders Counters.List across every rule's counters:
	// ascending, counters without a position (0) last, ties in registration
	// order. The built-in counters keep the order of docs/design.md §6
	// with positions 1 to 8.
	Position int
}

// Verb is what one trace entry says between its subject and its node: one
// phrase for an allowed rewrite, one for a refused one.
type Verb struct {
	Allowed, Refused string
}

// Verbs are a rule's trace wording: Verb for its entries in general, with
// overrides for entries at a node of a kind (predicate pushdown "pushed
// into" a scan but "pushed past" anything else) and for entries of a cell
// (ss.nested). An empty phrase falls back to the next level, then to
// "allowed at" / "refused at".
type Verbs struct {
	Verb
	Kinds map[plan.Kind]Verb
	Cells map[legality.CellID]Verb
}

// phrase returns the wording of an entry of cell at a node of kind.
func (v *Verbs) phrase(cell legality.CellID, kind plan.Kind, hasKind, allowed bool) string {
	pick := func(x Verb) string {
		if allowed {
			return x.Allowed
		}
		return x.Refused
	}
	if v != nil {
		if s := pick(v.Cells[cell]); cell != "" && s != "" {
			return s
		}
		if s := pick(v.Kinds[kind]); hasKind && s != "" {
			return s
		}
		if s := pick(v.Verb); s != "" {
			return s
		}
	}
	if allowed {
		return "allowed at"
	}
	return "refused at"
}

// Rules returns the built-in rules in the order Optimize runs them
// (docs/design.md §6), their Cells taken from legality.Default():
// Builtin().Rules().
func Rules() []Rule { return Builtin().Rules() }

// matches reports whether the plan holding the kinds present has a node
// the rule matches.
func (r *Rule) matches(present map[plan.Kind]bool) bool {
	if len(r.Matches) == 0 {
		return true
	}
	for _, k := range r.Matches {
		if present[k] {
			return true
		}
	}
	return false
}

// matchesKind reports whether the rule looks at nodes of kind k.
func (r *Rule) matchesKind(k plan.Kind) bool {
	if len(r.Matches) == 0 {
		return true
	}
	for _, m := range r.Matches {
		if m == k {
			return true
		}
	}
	return false
}

// traceBuf collects a run's trace entries in chunks, so that a long trace
// is copied once, into the Result, instead of at every doubling of one
// slice: entries are large, and a 5,000-step chain records over 20,000.
type traceBuf struct {
	// done holds the filled chunks, cur the one being filled; n counts
	// the entries of both.
	done [][]Entry
	cur  []Entry
	n    int
}

// traceChunk is the capacity of every chunk after the first (which is
// sized by an estimate).
const traceChunk = 4096

// newTraceBuf returns a buffer whose first chunk holds estimate entries.
func newTraceBuf(estimate int) traceBuf {
	return traceBuf{cur: make([]Entry, 0, max(2*estimate, 16))}
}

// add appends e.
func (b *traceBuf) add(e Entry) {
	if len(b.cur) == cap(b.cur) {
		if cap(b.cur) > 0 {
			b.done = append(b.done, b.cur)
		}
		b.cur = make([]Entry, 0, traceChunk)
	}
	b.cur = append(b.cur, e)
	b.n++
}

// trace returns the entries in order as one Trace.
func (b *traceBuf) trace() Trace {
	if len(b.done) == 0 {
		return b.cur
	}
	out := make(Trace, 0, b.n)
	for _, c := range b.done {
		out = append(out, c...)
	}
	return append(out, b.cur...)
}
