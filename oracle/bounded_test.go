package oracle_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/rules"
)

var updateBounded = flag.Bool("update-bounded", false, "rewrite testdata/bounded (only when the bounded tier is meant to change, which it is not)")

// TestBoundedTierUnchanged: the bounded tier — the founding contract, kept
// as a preset while the standard tier grows — optimizes every corpus file
// and example exactly as it did when the standard tier was introduced:
// plan, counters and every trace line, byte for byte, against goldens
// written then (testdata/bounded).
func TestBoundedTierUnchanged(t *testing.T) {
	for _, file := range corpusFiles(t) {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			doc := decode(t, file)
			doc.Tier = rules.TierBounded.String()
			flags, err := oracle.DocumentFlags(doc)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if res, err := rules.Optimize(doc.Plan, flags); err != nil {
				got = "error: " + err.Error() + "\n"
			} else {
				got = rules.ExplainText(res, true)
			}
			golden := filepath.Join("testdata", "bounded", strings.TrimSuffix(name, ".json")+".golden")
			if *updateBounded {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (a new corpus file: go test ./oracle -run TestBoundedTierUnchanged -update-bounded)", err)
			}
			if got != string(want) {
				t.Errorf("the bounded tier optimizes %s differently:\n--- got\n%s--- want\n%s", file, got, want)
			}
		})
	}
}
