// Package format prints a collected result for people and for programs: as
// an aligned text table, as CSV or as JSON (docs/cli.md). It is the one
// place that spells values as text, so that `dfopt run`, the front door
// (package dfopt) and any host print a float, a null or a hostile string
// the same way; package exec stays free of presentation.
//
// Every output is safe to print on a terminal or to hand to a parser: the
// table escapes control characters in names and values, CSV tells a null
// from an empty string, and JSON quotes the int64 values a float64-based
// JSON reader would round.
package format

import (
	"math"
	"strings"

	"github.com/dfopt/dfopt/plan"
)

// Float spells f in Go's shortest round-trip form (strconv 'g', -1: "0.1",
// "1", "1e+21"), with the specials spelled as in plan files
// (docs/plan-format.md): "NaN", "Inf", "-Inf" and "-0". It is the only
// float formatter of the table, CSV and JSON outputs: plan.FormatFloat's
// spelling (the canonical text and a cast to string) without the ".0" that
// marks an integral float there ("1.0", "-0.0").
func Float(f float64) string { return strings.TrimSuffix(plan.FormatFloat(f), ".0") }

// Float32 spells a float32 as Float does a float64, with the shortest
// digits that read back as the same float32 ("0.1").
func Float32(f float32) string { return strings.TrimSuffix(plan.FormatFloat32(f), ".0") }

// isFloatSpecial reports whether Float spells f as a word ("NaN", "Inf",
// "-Inf") or as "-0", which JSON writes as a string.
func isFloatSpecial(f float64) bool {
	return math.IsNaN(f) || math.IsInf(f, 0) || f == 0 && math.Signbit(f)
}
