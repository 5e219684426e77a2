package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// Summary renders the report in one line: "ok NAME", or "DIVERGENCE NAME:
// " followed by the first divergence (and how many more), or "UNMET NAME: "
// followed by the first unmet expectation.
func (r *Report) Summary() string {
	switch {
	case len(r.Divergences) > 0:
		s := fmt.Sprintf("DIVERGENCE %s: %s", r.Name, r.Divergences[0])
		if n := len(r.Divergences) - 1; n > 0 {
			s += fmt.Sprintf(" (and %d more)", n)
		}
		return s
	case len(r.Unmet) > 0:
		s := fmt.Sprintf("UNMET %s: %s", r.Name, r.Unmet[0])
		if n := len(r.Unmet) - 1; n > 0 {
			s += fmt.Sprintf(" (and %d more)", n)
		}
		return s
	}
	return "ok " + r.Name
}

// String renders the full report for people: the verdict, every divergence
// with its go-cmp diff, every unmet expectation, the four outcomes, the
// flags, the input and optimized plans, the counters and the trace with the
// reason of each cell.
func (r *Report) String() string {
	var b strings.Builder
	b.WriteString(r.Summary())
	b.WriteByte('\n')
	for _, d := range r.Divergences {
		fmt.Fprintf(&b, "divergence %s\n  %s\n", d.Class(), d.Detail)
		if d.Diff != "" {
			fmt.Fprintf(&b, "  diff (-%s +%s):\n%s", d.Pair.A, d.Pair.B, indent(d.Diff, "    "))
		}
	}
	for _, u := range r.Unmet {
		fmt.Fprintf(&b, "unmet %s\n", u)
	}
	fmt.Fprintf(&b, "executor: %s\n", r.Executor)
	b.WriteString("outcomes:\n")
	for i := range r.Results {
		fmt.Fprintf(&b, "  %-12s %s\n", r.Results[i].Way.String()+":", r.Results[i].describe())
	}
	fmt.Fprintf(&b, "flags: %s\n", flagsString(r.Flags))
	if r.ResolveErr != nil {
		fmt.Fprintf(&b, "resolve error: %v\n", r.ResolveErr)
	}
	if r.OptimizeErr != nil {
		fmt.Fprintf(&b, "optimizer error: %s\n", indent(r.OptimizeErr.Error(), "  ")[2:])
	}
	if r.Input != nil {
		fmt.Fprintf(&b, "input plan:\n%s", indent(plan.ExplainSchemas(r.Input), "  "))
	}
	if r.Optimized != nil {
		fmt.Fprintf(&b, "optimized plan:\n%s", indent(plan.ExplainSchemas(r.Optimized), "  "))
		fmt.Fprintf(&b, "counters: %s\n", r.Counters)
		if len(r.Trace) > 0 {
			fmt.Fprintf(&b, "trace:\n%s", indent(strings.Join(r.Trace.Lines(r.Table), "\n"), "  "))
		}
	}
	return b.String()
}

// describe renders one way's outcome in one line.
func (w *WayResult) describe() string {
	switch {
	case w.Skipped != "":
		return "skipped: " + w.Skipped
	case !w.Ran:
		return "not run"
	case w.Err != nil:
		s := "fails: " + firstLine(w.Err)
		if w.Internal {
			s = "BROKEN CONTRACT: " + firstLine(w.Err)
		}
		return s
	}
	s := fmt.Sprintf("ok, %d rows, schema %s", w.Outcome.Rows, w.Outcome.Schema)
	if w.Outcome.MemoHits >= 0 {
		s += fmt.Sprintf(", memo hits %d", w.Outcome.MemoHits)
	}
	return s
}

// flagsString lists the flags that are on, then "verify" if set.
func flagsString(f rules.Flags) string {
	m := f.Map()
	names := slices.Sorted(maps.Keys(m))
	var on, off []string
	for _, n := range names {
		if m[n] {
			on = append(on, n)
		} else {
			off = append(off, n)
		}
	}
	s := "on=[" + strings.Join(on, " ") + "] off=[" + strings.Join(off, " ") + "]"
	if f.Table != nil && len(f.Table.Overrides()) > 0 {
		s += fmt.Sprintf(" legality overrides=%v", f.Table.Overrides())
	}
	return s
}

// cmpDiffFields renders a go-cmp diff of two schemas' fields.
func cmpDiffFields(a, b plan.Schema) string { return cmp.Diff(a.Fields(), b.Fields()) }

// firstLine returns the first line of an error's text (panics carry a stack).
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// indent prefixes every line of s and ends it with a newline.
func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}
