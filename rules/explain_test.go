package rules

import (
	"encoding/json"
	"strings"
	"testing"

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
	golden(t, "explain_text", why)
	dot := ExplainDOT(resolve(t, in), res)
	for _, w := range []string{"digraph dfopt {", "cluster_before", "cluster_after", `fillcolor="#c8ecc0"`, `fillcolor="#f9d5b5"`, `label="filter [a / b > 1]"`} {
		if !strings.Contains(dot, w) {
			t.Errorf("DOT output lacks %s", w)
		}
	}
	golden(t, "explain_dot", dot)
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
