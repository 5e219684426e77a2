package rules

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// hostSource is a host source whose every method can misbehave: the
// optimizer must answer a misbehaving source with the safe default (the
// conjunct stays in the plan), or a clear error, never a wrong rewrite or a
// panic.
type hostSource struct {
	name     string
	schemas  []plan.Schema // Schema returns them in turn (a schema that changes between calls)
	calls    atomic.Int32
	panicIn  string // "Name", "Schema", "ClassifyPredicates", "SupportsProjection"
	classify func(n int) []plan.PredicateSupport
}

func (s *hostSource) Name() string {
	if s.panicIn == "Name" {
		panic("name")
	}
	return s.name
}

func (s *hostSource) Schema() plan.Schema {
	if s.panicIn == "Schema" {
		panic("schema")
	}
	i := int(s.calls.Add(1)) - 1
	return s.schemas[i%len(s.schemas)]
}

func (s *hostSource) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	if s.panicIn == "ClassifyPredicates" {
		panic("classify")
	}
	return s.classify(len(conjuncts))
}

func (s *hostSource) SupportsProjection() bool {
	if s.panicIn == "SupportsProjection" {
		panic("projection")
	}
	return true
}

func exactly(n int) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, n)
	for i := range out {
		out[i] = plan.Exact
	}
	return out
}

func TestMisbehavingSources(t *testing.T) {
	ab := plan.MustSchema(field("a", plan.Int64), field("b", plan.Int64))
	other := plan.MustSchema(field("z", plan.String))
	for _, tc := range []struct {
		name string
		src  *hostSource
		// pushed: the conjunct reaches the source; err: Optimize fails with
		// this text; trace: a trace entry says this.
		pushed     bool
		err, trace string
	}{
		{name: "honest", src: &hostSource{classify: exactly}, pushed: true},
		{name: "short answer", src: &hostSource{classify: func(n int) []plan.PredicateSupport { return exactly(n - 1) }},
			trace: "returned 0 answers for 1 conjuncts"},
		{name: "long answer", src: &hostSource{classify: func(n int) []plan.PredicateSupport { return exactly(n + 2) }},
			trace: "returned 3 answers for 1 conjuncts"},
		{name: "nil answer", src: &hostSource{classify: func(int) []plan.PredicateSupport { return nil }},
			trace: "returned 0 answers"},
		{name: "out of range", src: &hostSource{classify: func(n int) []plan.PredicateSupport {
			return []plan.PredicateSupport{plan.PredicateSupport(7)}
		}}, trace: "answered 7, not a PredicateSupport"},
		{name: "classifier panics", src: &hostSource{panicIn: "ClassifyPredicates", classify: exactly}, trace: "ClassifyPredicates panicked: classify"},
		{name: "name panics", src: &hostSource{panicIn: "Name", classify: exactly}, pushed: true},
		{name: "projection panics", src: &hostSource{panicIn: "SupportsProjection", classify: exactly}, pushed: true},
		{name: "schema changes between calls", src: &hostSource{schemas: []plan.Schema{ab, other}, classify: exactly}, pushed: true},
		{name: "schema panics", src: &hostSource{panicIn: "Schema", classify: exactly}, err: "scan: source <source>: Schema panicked: schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			src.name = "host"
			if src.schemas == nil {
				src.schemas = []plan.Schema{ab}
			}
			p := plan.Scan(src).Filter(col("a").Gt(lit(1))).Select(col("a")).Node()
			res, err := Optimize(p, allFlags())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), strings.Replace(tc.err, "<source>", sourceLabel(tc.src), 1)) {
					t.Fatalf("Optimize error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var scan *plan.ScanNode
			plan.WalkNodes(res.Plan, func(n plan.Node) bool {
				if s, ok := n.(*plan.ScanNode); ok {
					scan = s
				}
				return true
			})
			if !scan.SourceSchema.Equal(ab) {
				t.Errorf("the scan's schema is %s, want the one captured when the plan was built", scan.SourceSchema)
			}
			if got := len(scan.Pushed) == 1; got != tc.pushed {
				t.Errorf("pushed = %v, want %v:\n%s", got, tc.pushed, plan.Explain(res.Plan))
			}
			// Not pushed: the filter is still there, so the result is right.
			hasFilter := strings.Contains(plan.Explain(res.Plan), "filter [a > 1]")
			if !tc.pushed && !hasFilter {
				t.Errorf("the conjunct vanished:\n%s", plan.Explain(res.Plan))
			}
			if tc.trace != "" && !strings.Contains(strings.Join(res.Trace.Lines(nil), "\n"), tc.trace) {
				t.Errorf("the trace does not say %q:\n%s", tc.trace, strings.Join(res.Trace.Lines(nil), "\n"))
			}
		})
	}
}

// sourceLabel is how the plan layer names a source whose Name panics.
func sourceLabel(s *hostSource) string {
	if s.panicIn == "Name" {
		return "<source>"
	}
	return "host"
}
