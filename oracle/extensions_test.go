package oracle

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// hostTag is a host operator dfopt does not ship: it returns its input
// unchanged and declares every property, so a filter above it may cross.
var hostTag = &plan.ExtensionDef{Name: "host_tag", Inputs: 1, Properties: plan.ExtensionProperties()}

func hostExtensions(t *testing.T) *eager.Extensions {
	t.Helper()
	exts := eager.BuiltinExtensions()
	err := exts.Register(hostTag.Name, func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, _ memory.Allocator) (arrow.RecordBatch, error) {
		in[0].Retain()
		return in[0], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return exts
}

// TestCaseExtensions checks that Case.Extensions reaches the eager way and
// the default executor: a plan with a host operator agrees three ways (with
// the filter moved below the operator), and fails only in the eager way
// when the host gives its operator to its executor alone.
func TestCaseExtensions(t *testing.T) {
	p := plan.Scan(testTable(t)).Extension(hostTag).Filter(plan.Col("a").Gt(plan.Lit(int64(1)))).Node()
	exts := hostExtensions(t)

	rep := Check(context.Background(), Case{Name: "host operator", Plan: p, Extensions: exts})
	if !rep.Agree() {
		t.Fatalf("with Extensions the three ways disagree:\n%s", rep)
	}
	if rep.Counters.Get("pushedFilters") != 1 {
		t.Errorf("pushedFilters = %d, want 1 (the filter crosses the operator)", rep.Counters.Get("pushedFilters"))
	}
	if got := rep.Results[Eager].Outcome.Rows; got != 2 {
		t.Errorf("eager rows = %d, want 2", got)
	}

	rep = Check(context.Background(), Case{Name: "eager without the operator", Plan: p,
		Executor: ExecExecutor{Options: exec.Options{Extensions: exts}}})
	if rep.Agree() {
		t.Fatal("the eager way ran an operator it was not given")
	}
	if err := rep.Results[Eager].Err; err == nil || !strings.Contains(err.Error(), "host_tag") {
		t.Errorf("eager error = %v, want one naming host_tag", err)
	}
	if rep.Results[Optimized].Err != nil || rep.Results[Unoptimized].Err != nil {
		t.Errorf("the executor ways failed: %v / %v", rep.Results[Optimized].Err, rep.Results[Unoptimized].Err)
	}
}
