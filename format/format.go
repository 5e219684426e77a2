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
	"strconv"
)

// Float spells f in Go's shortest round-trip form (strconv 'g', -1: "0.1",
// "1", "1e+21"), with the specials spelled as in plan files
// (docs/plan-format.md): "NaN", "Inf", "-Inf" and "-0". It is the only
// float formatter of the table, CSV and JSON outputs.
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// isFloatSpecial reports whether Float spells f as a word ("NaN", "Inf",
// "-Inf") or as "-0", which JSON writes as a string.
func isFloatSpecial(f float64) bool {
	return math.IsNaN(f) || math.IsInf(f, 0) || f == 0 && math.Signbit(f)
}
