package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dfopt/dfopt/legality"
)

// Flag names: one per rule (the rule's name) and one per risky arm.
const (
	FlagPredicatePushdown = legality.RulePredicatePushdown
	FlagFilterFusion      = legality.RuleFilterFusion
	FlagProjectionFusion  = legality.RuleProjectionFusion
	FlagProjectionPruning = legality.RuleProjectionPruning
	FlagSharedSubplans    = legality.RuleSharedSubplans
	// FlagScanPushdown gates predicate_pushdown's arm that hands conjuncts
	// to sources (ScanNode.Pushed).
	FlagScanPushdown = "scan_pushdown"
	// FlagScanProjection gates projection_pruning's arm that narrows the
	// columns a scan reads (ScanNode.Projected/Columns).
	FlagScanProjection = "scan_projection"
	// FlagJoinPruning gates projection_pruning's arm that narrows join
	// inputs.
	FlagJoinPruning = "join_pruning"
	// FlagVerify turns Verify mode on (see Flags.Verify).
	FlagVerify = "verify"
)

// Flags selects the rules and arms that run, Verify mode and the legality
// table. The zero value runs nothing; DefaultFlags runs everything.
type Flags struct {
	PredicatePushdown bool
	FilterFusion      bool
	ProjectionFusion  bool
	ProjectionPruning bool
	SharedSubplans    bool
	// ScanPushdown, ScanProjection and JoinPruning gate risky arms of
	// predicate_pushdown and projection_pruning; they matter only when
	// their rule runs.
	ScanPushdown   bool
	ScanProjection bool
	JoinPruning    bool
	// Verify checks, after every rule, that the root schema is unchanged and
	// that the whole plan resolves from scratch (plan.Unresolved), naming
	// the rule that broke it. It costs a full re-resolution per rule; tests
	// turn it on.
	Verify bool
	// Limit bounds the rewrite applications (see Application for what one
	// is), in the order the rules apply them, as LLVM's opt-bisect-limit
	// does: 0 means no limit, k > 0 lets the first k happen, and a negative
	// value (LimitNone) lets none happen. A rewrite past the limit is
	// refused with a trace entry marked Limited instead of a cell. Bisection
	// (oracle.Bisect) uses it to name the first bad application. It is not a
	// plan-file flag (Map and FlagsFromMap ignore it).
	Limit int
	// Table is the legality table the rules consult; nil means
	// legality.Default(). A mutation campaign passes a table with one cell
	// overridden (legality.Table.WithOverride): no global state is involved.
	Table *legality.Table
}

// DefaultFlags runs every rule and arm, with Verify off.
func DefaultFlags() Flags {
	return Flags{PredicatePushdown: true, FilterFusion: true, ProjectionFusion: true, ProjectionPruning: true,
		SharedSubplans: true, ScanPushdown: true, ScanProjection: true, JoinPruning: true}
}

// NoFlags runs no rule: Optimize then only resolves the plan.
func NoFlags() Flags { return Flags{} }

// fields maps each flag name to its field.
func (f *Flags) fields() map[string]*bool {
	return map[string]*bool{
		FlagPredicatePushdown: &f.PredicatePushdown,
		FlagFilterFusion:      &f.FilterFusion,
		FlagProjectionFusion:  &f.ProjectionFusion,
		FlagProjectionPruning: &f.ProjectionPruning,
		FlagSharedSubplans:    &f.SharedSubplans,
		FlagScanPushdown:      &f.ScanPushdown,
		FlagScanProjection:    &f.ScanProjection,
		FlagJoinPruning:       &f.JoinPruning,
		FlagVerify:            &f.Verify,
	}
}

// FlagNames lists every flag name FlagsFromMap accepts, sorted.
func FlagNames() []string {
	var f Flags
	names := make([]string, 0, 9)
	for n := range f.fields() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FlagsFromMap starts from DefaultFlags and applies m (a plan file's
// "flags" object): each key must be a flag name (a rule, an arm, or
// "verify"). An unknown name is an error listing the known ones.
func FlagsFromMap(m map[string]bool) (Flags, error) {
	f := DefaultFlags()
	fields := f.fields()
	var unknown []string
	for name, v := range m {
		p, ok := fields[name]
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		*p = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Flags{}, fmt.Errorf("unknown optimizer flag(s) %s (known: %s)",
			strings.Join(quoteAll(unknown), ", "), strings.Join(FlagNames(), ", "))
	}
	return f, nil
}

// Map returns the flags as a map from flag name to value (every name
// present).
func (f Flags) Map() map[string]bool {
	m := map[string]bool{}
	for n, p := range f.fields() {
		m[n] = *p
	}
	return m
}

// Enabled reports the value of the named flag (false for unknown names).
// It allocates nothing (the driver asks it once per rule).
func (f Flags) Enabled(name string) bool {
	switch name {
	case FlagPredicatePushdown:
		return f.PredicatePushdown
	case FlagFilterFusion:
		return f.FilterFusion
	case FlagProjectionFusion:
		return f.ProjectionFusion
	case FlagProjectionPruning:
		return f.ProjectionPruning
	case FlagSharedSubplans:
		return f.SharedSubplans
	case FlagScanPushdown:
		return f.ScanPushdown
	case FlagScanProjection:
		return f.ScanProjection
	case FlagJoinPruning:
		return f.JoinPruning
	case FlagVerify:
		return f.Verify
	}
	return false
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
