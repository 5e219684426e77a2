package dfopt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// The fuzz targets here run the whole path a plan file takes: decode,
// optimize with Verify on, collect. plan/planjson's FuzzDecode stops at
// decoding and Resolve. CI runs each for a few seconds (.ci/run); run one
// longer with
//
//	go test -run XXX -fuzz FuzzCollect -fuzztime 10m .

// fuzzSeeds adds every plan file of examples/ and of the oracle's
// regression corpus.
func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("examples", "*.json"))
	corpus, _ := filepath.Glob(filepath.Join("proptest", "testdata", "corpus", "*.json"))
	files = append(files, corpus...)
	if len(files) < 10 {
		f.Fatalf("found %d seed plan files; run from the module root", len(files))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// maxFuzzRows bounds the rows a fuzzed plan may produce at any node (a
// cross join of cross joins of small tables grows fast); larger plans are
// skipped, not run.
const maxFuzzRows = 1 << 14

// rowBound is an upper bound of the rows any node of n can produce: a join
// multiplies (every kind is at most a cross join plus both sides), a union
// adds, every other node keeps at most its largest input's rows.
func rowBound(n plan.Node) float64 {
	switch n := n.(type) {
	case *plan.ScanNode:
		if t, ok := n.Source.(*plan.Table); ok {
			return float64(t.Rows())
		}
		return maxFuzzRows + 1
	case *plan.JoinNode:
		l, r := rowBound(n.Left), rowBound(n.Right)
		return l*r + l + r
	}
	var sum, most float64
	for _, c := range n.Children() {
		b := rowBound(c)
		sum += b
		most = max(most, b)
	}
	if _, ok := n.(*plan.UnionNode); ok {
		return sum
	}
	return most
}

// decodeForFuzz decodes data with no Parquet reader (a fuzzed path must
// not open files) and reports whether the plan is small enough to run.
func decodeForFuzz(t *testing.T, data []byte) (*planjson.Document, bool) {
	doc, err := planjson.Decode(data, planjson.Options{})
	if err != nil {
		var pe *planjson.Error
		if !errors.As(err, &pe) {
			t.Fatalf("decode error %v is a %T, not a *planjson.Error", err, err)
		}
		return nil, false
	}
	if plan.Size(doc.Plan) > 200 || rowBound(doc.Plan) > maxFuzzRows {
		return nil, false
	}
	return doc, true
}

// checkCollectError fails the test when a collect error is not an error
// value of the model: a *plan.Error, and not a recovered panic.
func checkCollectError(t *testing.T, what string, err error) {
	t.Helper()
	pe, ok := plan.AsError(err)
	if !ok {
		t.Fatalf("%s: error %v is a %T, not a *plan.Error", what, err, err)
	}
	if strings.Contains(pe.Error(), "panic") {
		t.Fatalf("%s: a panic was recovered: %v", what, err)
	}
}

// FuzzCollect decodes arbitrary bytes as a plan file, optimizes the plan
// with Verify on and collects both the optimized and the written plan.
// Nothing may panic; every failure must be an error value (a
// *planjson.Error, a *plan.Error or an optimizer error, never a recovered
// panic); the two collects must both succeed or both fail; and every
// Arrow buffer must be released.
func FuzzCollect(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := decodeForFuzz(t, data)
		if !ok {
			return
		}
		flags, err := rules.FlagsFromMap(doc.Flags)
		if err != nil {
			flags = rules.DefaultFlags()
		}
		flags.Verify = true
		optimized := doc.Plan
		res, err := rules.Optimize(doc.Plan, flags)
		var ie *rules.InternalError
		switch {
		case errors.As(err, &ie):
			t.Fatalf("optimize panicked: %v\n%s", ie, ie.Stack)
		case err == nil:
			optimized = res.Plan
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var outcomes [2]error
		for i, root := range []plan.Node{doc.Plan, optimized} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			r, err := exec.Collect(ctx, root, exec.Options{Mem: mem, Parallelism: 2, PartitionRows: 1})
			if err != nil {
				checkCollectError(t, "collect", err)
			} else {
				if _, rErr := r.Rows(); rErr != nil {
					t.Fatalf("rows of a collected result: %v", rErr)
				}
				r.Release()
			}
			if n := mem.CurrentAlloc(); n != 0 {
				t.Fatalf("collect left %d bytes allocated", n)
			}
			outcomes[i] = err
		}
		if ctx.Err() == nil && (outcomes[0] == nil) != (outcomes[1] == nil) {
			t.Fatalf("the written plan gives %v, the optimized plan %v", outcomes[0], outcomes[1])
		}
	})
}

// FuzzOracle decodes arbitrary bytes as a plan file and runs the
// three-way oracle on it (optimized, unoptimized, eager): they must agree,
// and the check must not panic.
func FuzzOracle(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := decodeForFuzz(t, data)
		if !ok {
			return
		}
		doc.Expect = nil // a fuzzed expect is not a finding
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		rep, err := oracle.CheckDocument(ctx, doc)
		if err != nil || ctx.Err() != nil {
			return // flags the rules do not know, or too slow
		}
		if len(rep.Divergences) > 0 {
			t.Fatalf("divergence:\n%s", rep.String())
		}
	})
}
