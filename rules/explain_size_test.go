package rules

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// explainBytes is the size of every explain output of one optimization:
// the text with --why, the trace as JSON and the DOT graph.
func explainBytes(tb testing.TB, n plan.Node) int {
	res, err := Optimize(n, DefaultFlags())
	if err != nil {
		tb.Fatal(err)
	}
	js, err := json.Marshal(res.Trace)
	if err != nil {
		tb.Fatal(err)
	}
	return len(ExplainText(res, true)) + len(js) + len(ExplainDOT(n, res)) + len(plan.Explain(n))
}

// TestExplainBytesLinear: explain's bytes per plan node stay flat from
// 1,000 to 20,000 nodes (BenchmarkExplain goes to 100,000; indentation no longer grows with depth, paths
// fold repeated segments, trace lines cut long labels): a deterministic
// size, unlike a timing.
func TestExplainBytesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, movable := range []bool{false, true} {
		var perNode []float64
		for _, n := range []int{1000, 20000} {
			perNode = append(perNode, float64(explainBytes(t, chain(n, movable)))/float64(n))
		}
		if perNode[1] > 1.5*perNode[0] {
			t.Errorf("movable=%v: %.0f bytes per node at 1,000 nodes, %.0f at 100,000", movable, perNode[0], perNode[1])
		}
	}
}

// BenchmarkExplain reports explain's bytes per node (text with --why, JSON
// trace, DOT) at 1,000, 10,000 and 100,000 nodes.
func BenchmarkExplain(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			p := chain(n, true)
			bytes := 0
			for b.Loop() {
				bytes = explainBytes(b, p)
			}
			b.ReportMetric(float64(bytes)/float64(n), "bytes/node")
		})
	}
}
