package oracle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
)

// Bisection names what is behind a divergence, in three steps, each
// narrowing the previous one (notes/verification.md, "bisect before
// reporting"):
//
//  1. flags: delta debugging (ddmin) over the enabled rule and arm flags
//     finds a minimal set that still shows the same divergence class; the
//     rules in it are the culprit rules, the arms the culprit arms;
//  2. applications: under those flags, a binary search over
//     rules.Flags.Limit (LLVM's opt-bisect-limit) finds the first k such
//     that the first k rewrite applications diverge and the first k-1 do
//     not: application k is the first bad one (its rule, node path and
//     cell);
//  3. cells: each cell that allowed one of the first k applications is
//     made a barrier, and each cell the table overrides is reset to its
//     default: the cells whose change removes the divergence are
//     necessary. The culprit cell is the overridden cell that is necessary
//     (a mutant under test), else the first bad application's cell.
//
// Then the case is minimized (proptest.ShrinkWith) under the culprit flags
// while the same divergence class persists and the culprit cell still
// allows something, and the application search runs again on the minimized
// case, so the report names the bad application in the small plan too.

// BisectOptions configures Bisect.
type BisectOptions struct {
	// Table, when set, replaces the legality table of the case's flags:
	// the mutant under test (legality.Table.Flipped).
	Table *legality.Table
	// Executor, when set, replaces the case's executor.
	Executor Executor
	// ShrinkCalls bounds the oracle calls spent minimizing the case (0:
	// 5000; negative: the case is not minimized).
	ShrinkCalls int
	// Registry reads a plan file's flags in BisectDocument: a host's rules
	// are flags too (nil: rules.Builtin()). Bisect takes the registry from
	// the case's flags.
	Registry *rules.Registry
}

// BisectResult is what Bisect found.
type BisectResult struct {
	// Name is the case's name; Class the divergence class bisected (the
	// report's Class under the case's flags).
	Name  string
	Class string
	// Flags are the flags the case diverged under; Minimal the minimal
	// set of enabled rule and arm flags that still diverges (Verify and
	// Table as in Flags). Enabled and MinimalNames list the enabled flag
	// names of each, in rule order.
	Flags, Minimal        rules.Flags
	Enabled, MinimalNames []string
	// Rules and Arms split MinimalNames into rule flags and arm flags.
	Rules, Arms []string
	// NoRule reports that the divergence persists with every rule and arm
	// off: the optimizer is not involved (an executor or eager chain
	// difference, a reference/unoptimized difference — a bug in the
	// semantics exec and eager share, or in the reference — or an
	// ill-typed plan handled differently).
	NoRule bool
	// Applications is the number of rewrite applications under Minimal;
	// First the first bad one in the case as given, nil when the divergence
	// needs no rewrite at all (NoRule, or a shared_subplans prediction,
	// which rewrites nothing).
	Applications int
	First        *rules.Application
	// Cell is the culprit legality cell ("" when none could be named), and
	// CellWhy says how it was named. Necessary lists the cells whose change
	// (barrier, or default verdict for an overridden cell) removes the
	// divergence; Overrides the cells the table overrides.
	Cell      legality.CellID
	CellWhy   string
	Necessary []legality.CellID
	Overrides []legality.CellID
	// Minimized is the minimized case (the case itself when not
	// minimized); MinFirst its first bad application; Before and After
	// the sizes; Report its report under Minimal.
	Minimized     proptest.Case
	MinFirst      *rules.Application
	Before, After proptest.CaseSize
	Report        *Report
	// Checks counts every oracle call, ShrinkCalls those of the
	// minimization; Elapsed is the wall-clock time.
	Checks, ShrinkCalls int
	Elapsed             time.Duration
	// Note says what else a reader must know (NaN payloads the plan file
	// cannot keep, legality overrides a plan file cannot carry).
	Note string

	sources map[plan.Source]*planjson.TableSpec
}

// ErrNoDivergence is returned by Bisect for a case whose ways agree.
var ErrNoDivergence = errors.New("bisect: the case does not diverge")

// BisectDocument bisects a decoded plan file under its flags
// (DocumentFlags), ignoring its "expect" object: bisection is about the
// ways diverging.
func BisectDocument(ctx context.Context, doc *planjson.Document, opts BisectOptions) (*BisectResult, error) {
	if doc == nil {
		return nil, fmt.Errorf("bisect: no document")
	}
	flags, err := DocumentFlagsFor(doc, opts.Registry)
	if err != nil {
		return nil, fmt.Errorf("bisect: %w", err)
	}
	res, err := Bisect(ctx, Case{Plan: doc.Plan, Flags: &flags}, opts)
	if res != nil {
		res.sources = map[plan.Source]*planjson.TableSpec{}
		for _, spec := range doc.Tables {
			if src := spec.Source(); src != nil {
				res.sources[src] = spec
			}
		}
	}
	return res, err
}

// bisector holds one bisection's state.
type bisector struct {
	ctx    context.Context
	x      Executor
	exts   *eager.Extensions
	refs   map[string]reference.ExtensionFunc
	base   rules.Flags
	class  string
	checks int
	// flagOrder lists every rule and arm flag, in rule order.
	flagOrder []string
}

// check runs the oracle on p under f.
func (b *bisector) check(p plan.Node, f rules.Flags) *Report {
	b.checks++
	return Check(b.ctx, Case{Plan: p, Flags: &f, Executor: b.x, Extensions: b.exts, ReferenceExtensions: b.refs})
}

// diverges reports whether p under f shows the bisected class.
func (b *bisector) diverges(p plan.Node, f rules.Flags) bool {
	return b.ctx.Err() == nil && b.check(p, f).Class() == b.class
}

// with returns the base flags with exactly the named rule and arm flags on.
func (b *bisector) with(names []string) rules.Flags {
	f := b.base
	f.Limit = 0
	on := map[string]bool{}
	for _, n := range names {
		on[n] = true
	}
	for _, n := range b.flagOrder {
		if err := f.Set(n, on[n]); err != nil { // cannot happen: the names come from the registry
			return b.base
		}
	}
	return f
}

// Bisect finds the rules, arms, rewrite application and legality cell
// behind c's divergence and minimizes c (see the steps above). It returns
// ErrNoDivergence when c agrees, and ctx's error when cancelled.
func Bisect(ctx context.Context, c Case, opts BisectOptions) (*BisectResult, error) {
	start := time.Now()
	flags := DefaultFlags()
	if c.Flags != nil {
		flags = *c.Flags
	}
	flags.Limit = 0
	if opts.Table != nil {
		flags.Table = opts.Table
	}
	if opts.Executor != nil {
		c.Executor = opts.Executor
	}
	reg := flags.Rules()
	b := &bisector{ctx: ctx, x: c.executor(), exts: c.Extensions, refs: c.ReferenceExtensions, base: flags, flagOrder: reg.RuleFlags()}
	res := &BisectResult{Name: c.Name, Flags: flags, Overrides: flags.LegalityTable().Overrides()}
	first := b.check(c.Plan, flags)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(first.Divergences) == 0 {
		return nil, ErrNoDivergence
	}
	b.class = first.Class()
	res.Class = b.class
	for _, n := range b.flagOrder {
		if flags.Enabled(n) {
			res.Enabled = append(res.Enabled, n)
		}
	}

	// 1. Flags.
	minimal := b.minimalFlags(c.Plan, res.Enabled)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.MinimalNames = minimal
	res.Minimal = b.with(minimal)
	res.NoRule = len(minimal) == 0
	for _, n := range minimal {
		if _, arm := reg.ArmOf(n); arm {
			res.Arms = append(res.Arms, n)
		} else {
			res.Rules = append(res.Rules, n)
		}
	}

	// 2. Applications.
	res.Applications, res.First = b.firstBad(c.Plan, res.Minimal, res.NoRule)

	// 3. Cells.
	rep := b.check(c.Plan, res.Minimal)
	b.nameCell(c.Plan, res, rep)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Minimize.
	pc := proptest.Case{Plan: c.Plan, Tables: tablesOf(c.Plan)}
	res.Before = proptest.Size(pc)
	min := pc
	guardCell := res.Cell != "" && allows(rep.Trace, res.Cell)
	still := func(cand proptest.Case) bool {
		if ctx.Err() != nil {
			return false
		}
		r := b.check(cand.Plan, res.Minimal)
		if r.Class() != b.class {
			return false
		}
		return !guardCell || allows(r.Trace, res.Cell)
	}
	if opts.ShrinkCalls >= 0 {
		calls := opts.ShrinkCalls
		if calls == 0 {
			calls = 5000
		}
		var st proptest.ShrinkStats
		min, st = proptest.ShrinkWith(pc, still, proptest.ShrinkOptions{MaxCalls: calls})
		res.ShrinkCalls = st.Calls
		if canon := proptest.CanonicalNaNs(min); still(canon) {
			min = canon
		} else {
			res.Note = "the divergence needs NaN payloads, which dfopt-plan/1 does not keep"
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	res.Minimized = min
	res.After = proptest.Size(min)
	_, res.MinFirst = b.firstBad(min.Plan, res.Minimal, res.NoRule)
	res.Report = b.check(min.Plan, res.Minimal)
	if len(res.Overrides) > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("reproduces only with the legality overrides %v (dfopt bisect -flip)", res.Overrides))
	}
	res.Checks = b.checks
	res.Elapsed = time.Since(start)
	return res, ctx.Err()
}

// minimalFlags runs ddmin over the enabled flags: the result is a
// 1-minimal subset under which p still diverges (empty when no flag is
// needed).
func (b *bisector) minimalFlags(p plan.Node, enabled []string) []string {
	memo := map[string]bool{}
	test := func(set []string) bool {
		key := strings.Join(set, ",")
		if v, ok := memo[key]; ok {
			return v
		}
		v := b.diverges(p, b.with(set))
		memo[key] = v
		return v
	}
	if test(nil) {
		return nil
	}
	items := append([]string(nil), enabled...)
	n := 2
	for len(items) >= 2 && b.ctx.Err() == nil {
		chunks := split(items, n)
		reduced := false
		for _, ch := range chunks {
			if test(ch) {
				items, n, reduced = ch, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range chunks {
				comp := complement(chunks, i)
				if test(comp) {
					items, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(items) {
				break
			}
			n = min(2*n, len(items))
		}
	}
	// ddmin's result is 1-minimal for single removals only in the last
	// round; make sure of it.
	for i := 0; i < len(items) && len(items) > 1; {
		rest := append(append([]string(nil), items[:i]...), items[i+1:]...)
		if test(rest) {
			items = rest
			continue
		}
		i++
	}
	return items
}

// split cuts items into n nearly equal chunks.
func split(items []string, n int) [][]string {
	var out [][]string
	start := 0
	for i := 0; i < n; i++ {
		end := start + (len(items)-start)/(n-i)
		if end > start {
			out = append(out, items[start:end])
		}
		start = end
	}
	return out
}

func complement(chunks [][]string, skip int) []string {
	var out []string
	for i, ch := range chunks {
		if i != skip {
			out = append(out, ch...)
		}
	}
	return out
}

// firstBad returns the number of rewrite applications under f and the
// first bad one: the least k with the first k applications diverging
// (binary search over rules.Flags.Limit). It returns nil when no
// application is needed (the plan diverges with none, or does not resolve).
// When the optimizer itself fails (a rule breaks the plan), the
// applications made before the failure count, and the search names the one
// after which it fails.
func (b *bisector) firstBad(p plan.Node, f rules.Flags, noRule bool) (int, *rules.Application) {
	in, err := plan.Resolve(p)
	if err != nil || noRule {
		return 0, nil
	}
	at := func(k int) rules.Flags {
		g := WithEvaluator(f)
		g.Limit = k
		return g
	}
	full, _ := rules.Optimize(in, at(math.MaxInt))
	n := full.Applied
	if n == 0 || b.diverges(p, at(rules.LimitNone)) || !b.diverges(p, at(n)) {
		return n, nil
	}
	lo, hi := 0, n // lo does not diverge (0 stands for none), hi does
	for hi-lo > 1 && b.ctx.Err() == nil {
		mid := (lo + hi) / 2
		if b.diverges(p, at(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	res, _ := rules.Optimize(in, at(hi))
	if len(res.Applications) < hi {
		return n, nil
	}
	a := res.Applications[hi-1]
	return n, &a
}

// nameCell finds the necessary cells and names the culprit cell.
func (b *bisector) nameCell(p plan.Node, res *BisectResult, rep *Report) {
	table := res.Minimal.LegalityTable()
	var cands []legality.CellID
	seen := map[legality.CellID]bool{}
	add := func(id legality.CellID) {
		if id != "" && !seen[id] {
			seen[id] = true
			cands = append(cands, id)
		}
	}
	if !res.NoRule {
		if res.First != nil {
			for _, id := range res.First.Cells {
				add(id)
			}
		}
		for _, e := range rep.Trace {
			if e.Allowed {
				add(e.Cell)
			}
		}
	}
	var culpritOverride legality.CellID
	for _, id := range res.Overrides {
		t, err := table.WithOverride(id, table.DefaultVerdict(id))
		if err != nil {
			continue
		}
		g := res.Minimal
		g.Table = t
		if !b.diverges(p, g) {
			if culpritOverride == "" {
				culpritOverride = id
			}
			res.Necessary = append(res.Necessary, id)
		}
	}
	for _, id := range cands {
		if table.Verdict(id) == legality.Barrier || slices.Contains(res.Necessary, id) {
			continue
		}
		t, err := table.WithOverride(id, legality.Barrier)
		if err != nil {
			continue
		}
		g := res.Minimal
		g.Table = t
		if !b.diverges(p, g) {
			res.Necessary = append(res.Necessary, id)
		}
	}
	switch {
	case culpritOverride != "":
		res.Cell, res.CellWhy = culpritOverride, "the overridden cell whose default verdict removes the divergence"
	case res.First != nil:
		res.Cell, res.CellWhy = res.First.Cell, "the cell that allowed the first bad application"
	case len(res.Necessary) > 0:
		res.Cell, res.CellWhy = res.Necessary[0], "the first allowed cell whose barrier removes the divergence"
	}
}

// allows reports whether the trace has an allowed entry of cell id.
func allows(t rules.Trace, id legality.CellID) bool {
	for _, e := range t {
		if e.Cell == id && e.Allowed {
			return true
		}
	}
	return false
}

// tablesOf lists the in-memory tables the plan's scans read, in first-scan
// order (the tables a minimization may cut).
func tablesOf(root plan.Node) []*plan.Table {
	var out []*plan.Table
	seen := map[*plan.Table]bool{}
	visited := map[plan.Node]bool{}
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		if n == nil || visited[n] {
			return
		}
		visited[n] = true
		if s, ok := n.(*plan.ScanNode); ok {
			if t, ok := s.Source.(*plan.Table); ok && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
	return out
}

// Culprit renders the culprit in one line: the rules, arms, first bad
// application and cell.
func (r *BisectResult) Culprit() string {
	var parts []string
	switch {
	case r.NoRule:
		parts = append(parts, "no rule: the divergence persists with every rule off")
	default:
		parts = append(parts, "rule "+strings.Join(r.Rules, "+"))
		if len(r.Arms) > 0 {
			parts = append(parts, "arm "+strings.Join(r.Arms, "+"))
		}
	}
	if r.First != nil {
		parts = append(parts, fmt.Sprintf("first bad application #%d of %d: %s at %s", r.First.Index, r.Applications,
			r.First.Rule, r.First.Path()))
	} else if !r.NoRule {
		parts = append(parts, "no rewrite application needed")
	}
	if r.Cell != "" {
		parts = append(parts, "cell "+string(r.Cell))
	}
	return strings.Join(parts, "; ")
}

// Document returns the minimized case as a plan file: its tables, its plan,
// the culprit's flags, the unoptimized outcome's error kind as "expect"
// (null for success) and a description naming the culprit. A Parquet
// table of the bisected file is kept as a reference to its file.
func (r *BisectResult) Document() (*planjson.Document, error) {
	doc := &planjson.Document{Tables: map[string]*planjson.TableSpec{}, Plan: r.Minimized.Plan, Flags: r.Minimal.Map()}
	visited := map[plan.Node]bool{}
	var err error
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		if n == nil || visited[n] || err != nil {
			return
		}
		visited[n] = true
		if s, ok := n.(*plan.ScanNode); ok {
			name := s.Source.Name()
			spec := r.sources[s.Source]
			if t, ok := s.Source.(*plan.Table); ok && spec == nil {
				spec = &planjson.TableSpec{Inline: t}
			}
			switch prev := doc.Tables[name]; {
			case spec == nil:
				err = fmt.Errorf("bisect: table %q is neither in memory nor a plan file's Parquet table", name)
			case prev != nil && prev.Source() != spec.Source():
				err = fmt.Errorf("bisect: two different tables named %q", name)
			default:
				doc.Tables[name] = spec
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(r.Minimized.Plan)
	if err != nil {
		return nil, err
	}
	first := "agree"
	if r.Report != nil && len(r.Report.Divergences) > 0 {
		first = r.Report.Divergences[0].String()
	}
	doc.Description = fmt.Sprintf("dfopt bisect of %s, minimized from %s to %s. Culprit: %s. Divergence: %s",
		r.Name, r.Before, r.After, r.Culprit(), first)
	if r.Note != "" {
		doc.Description += ". Note: " + r.Note
	}
	if r.Report != nil {
		kind := r.Report.Results[Unoptimized].ErrorKind()
		doc.Expect = &planjson.Expect{Error: &kind}
	}
	return doc, nil
}
