package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
)

func TestExplain(t *testing.T) {
	in := scan(tT).WithColumns(col("b").Alias("x")).Filter(col("a").Gt(lit(1))).Head(10).
		Filter(col("a").Div(col("b")).Gt(lit(1))).Node()
	res, err := Optimize(in, allFlags())
	if err != nil {
		t.Fatal(err)
	}
	text := ExplainText(res, false)
	if strings.Contains(text, "why:") || !strings.Contains(text, "counters: pushedFilters=1") {
		t.Errorf("ExplainText without why:\n%s", text)
	}
	why := ExplainText(res, true)
	want := "predicate_pushdown: `a / b > 1` stopped at limit 10: cell pp.limit — a limit keeps the first n rows"
	if !strings.Contains(why, want) {
		t.Errorf("the why section should say %q:\n%s", want, why)
	}
	for _, name := range []string{"explain_text", "explain_dot"} {
		if !plan.Equal(resolve(t, dataPlan(t, wholeOptimizer, name)), resolve(t, in)) {
			t.Errorf("testdata/optimize's %s case is not this test's plan", name)
		}
	}
	dot := ExplainDOT(resolve(t, in), res)
	for _, w := range []string{"digraph dfopt {", "cluster_before", "cluster_after", `fillcolor="#c8ecc0"`, `fillcolor="#f9d5b5"`, `label="filter [a / b > 1]"`} {
		if !strings.Contains(dot, w) {
			t.Errorf("DOT output lacks %s", w)
		}
	}
	// The trace marshals with rendered labels, paths and subjects.
	b, err := json.Marshal(res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(res.Trace) || entries[0]["rule"] != "predicate_pushdown" || entries[0]["path"] == "" {
		t.Errorf("trace JSON: %s", b)
	}
}

func TestDotQuote(t *testing.T) {
	if got := dotQuote("s == \"x\\y\"\n"); got != `"s == \"x\\y\"\n"` {
		t.Errorf("dotQuote = %s", got)
	}
}

func TestTracePaths(t *testing.T) {
	in := scan(tL).JoinOn(scan(tR).Head(1).Filter(col("z").Gt(lit(1))), plan.InnerJoin, "k").Node()
	res, err := Optimize(in, allFlags())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Trace {
		if e.Cell == "pp.limit" {
			if e.Path() != "plan.right.input" {
				t.Errorf("path %q, want plan.right.input", e.Path())
			}
			return
		}
	}
	t.Errorf("no pp.limit entry:\n%s", ExplainText(res, true))
}

// TestTracePPFilterNamesTheFilter checks that an entry decided by cell
// pp.filter names the filter whose remaining conjuncts stopped (or, under
// the mutant, were passed by) the conjunct, with that filter's path in the
// input plan, not the node where the lower filter itself stopped.
func TestTracePPFilterNamesTheFilter(t *testing.T) {
	type at struct{ node, path string }
	standardFlags := allFlags()
	tests := []struct {
		name    string
		in      plan.Node
		flags   *Flags
		allowed bool
		want    map[string]at // subject -> the filter its pp.filter entry names
	}{
		{
			// The lower filter stops at the scan (the source classifies
			// nothing): `a / b > 1` is stopped by filter [b != 0].
			name: "stopped over a scan",
			in:   scan(tT).Filter(col("b").Ne(lit(0))).Filter(col("a").Div(col("b")).Gt(lit(1))).Node(),
			want: map[string]at{"a / b > 1": {"filter [b != 0]", "plan.input"}},
		},
		{
			// The lower filter stops at a with_columns (it reads the
			// computed x): the entry names that filter, not the with_columns.
			name: "stopped over a with_columns",
			in:   scan(tT).WithColumns(lit(1).Alias("x")).Filter(col("x").Gt(lit(0))).Filter(col("a").Gt(lit(1))).Node(),
			want: map[string]at{"a > 1": {"filter [x > 0]", "plan.input"}},
		},
		{
			// Three filters: each is stopped by the filter directly below
			// it, not by the lowest.
			name: "nearest filter below",
			in: scan(tT).WithColumns(lit(1).Alias("x")).Filter(col("x").Gt(lit(0))).Filter(col("a").Div(col("b")).Gt(lit(1))).
				Filter(col("k").Gt(lit(2))).Node(),
			want: map[string]at{
				"a / b > 1": {"filter [x > 0]", "plan.input.input"},
				"k > 2":     {"filter [a / b > 1]", "plan.input"},
			},
		},
		{
			// Three filters over a scan that classifies nothing: the same,
			// decided at the scan.
			name: "nearest filter below, over a scan",
			in:   scan(tT).Filter(col("b").Ne(lit(0))).Filter(col("a").Div(col("b")).Gt(lit(1))).Filter(col("k").Gt(lit(2))).Node(),
			want: map[string]at{
				"a / b > 1": {"filter [b != 0]", "plan.input.input"},
				"k > 2":     {"filter [a / b > 1]", "plan.input"},
			},
		},
		{
			// Both filters cross a total with_columns and the lower one
			// stops at the scan: the upper one's entry names the lower
			// filter at its path in the input plan.
			name: "after crossing",
			in:   scan(tT).WithColumns(col("a").Alias("x")).Filter(col("b").Ne(lit(0))).Filter(col("k").Gt(lit(1))).Node(),
			want: map[string]at{"k > 1": {"filter [b != 0]", "plan.input"}},
		},
		{
			// The standard tier: the partial a / b > 1 is stopped by
			// pp.filter at filter [b != 0]; k > 2 is total, and
			// pp.filter.total stops it (a / b > 1 stays), not pp.filter.
			name:  "standard tier, a partial mover",
			in:    scan(tT).Filter(col("b").Ne(lit(0))).Filter(col("a").Div(col("b")).Gt(lit(1))).Filter(col("k").Gt(lit(2))).Node(),
			flags: &standardFlags,
			want:  map[string]at{"a / b > 1": {"filter [b != 0]", "plan.input.input"}},
		},
		{
			// Under the mutant, the conjunct passes the lower filter: the
			// allowed pp.filter entry names the filter it passed.
			name:    "mutant passes the filter",
			in:      scan(tT).WithColumns(lit(1).Alias("x")).Filter(col("x").Gt(lit(0))).Filter(col("a").Gt(lit(1))).Node(),
			flags:   withTable(verified(flagsOn(FlagPredicatePushdown, FlagScanPushdown)), flipped(legality.PPFilter)),
			allowed: true,
			want:    map[string]at{"a > 1": {"filter [x > 0]", "plan.input"}},
		},
		{
			// Under the mutant over a scan: passed past the filter that
			// stayed above the scan, into the source (which takes a > 1
			// Exact; an Unsupported conjunct stays above and passes
			// nothing).
			name:    "mutant passes the filter over a scan",
			in:      scan(src).Filter(col("s").Ne(lit("x"))).Filter(col("a").Gt(lit(1))).Node(),
			flags:   withTable(verified(flagsOn(FlagPredicatePushdown, FlagScanPushdown)), flipped(legality.PPFilter)),
			allowed: true,
			want:    map[string]at{"a > 1": {`filter [s != "x"]`, "plan.input"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags := verified(BoundedFlags())
			if tt.flags != nil {
				flags = *tt.flags
			}
			res, err := Optimize(tt.in, flags)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, e := range res.Trace {
				if e.Cell != legality.PPFilter {
					continue
				}
				w, ok := tt.want[e.Subject()]
				if !ok || e.Allowed != tt.allowed {
					t.Errorf("unexpected pp.filter entry %s", e)
					continue
				}
				seen[e.Subject()] = true
				if e.Node() != w.node || e.Kind() != "filter" || e.Path() != w.path {
					t.Errorf("entry %s: node %q at %q, want %q at %q", e, e.Node(), e.Path(), w.node, w.path)
				}
			}
			for subj := range tt.want {
				if !seen[subj] {
					t.Errorf("no pp.filter entry for `%s`:\n%s", subj, ExplainText(res, true))
				}
			}
		})
	}
}
