package tpch

import (
	"fmt"
	"math"
	"strconv"
)

// Scale is a TPC-H scale factor in thousandths: SF1 is 1000, SF 0.01 is 10.
// Thousandths because the TPC-H dbgen scales the tables of a fractional
// scale factor by (int)(1000 × SF) / 1000, so no finer scale exists.
type Scale int64

// Bounds of a Scale: SF 0.001 (the smallest dbgen knows) to SF 1000.
const (
	MinScale Scale = 1
	MaxScale Scale = 1000 * 1000
)

// ParseScale reads a scale factor written as a decimal number ("1", "10",
// "0.01"). A scale factor below 1 must be a multiple of 0.001; one of 1 or
// more must be an integer, because go-tpc's dbgen takes an integer scale
// (InitDbGen(int64)).
func ParseScale(s string) (Scale, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("scale factor %q is not a number", s)
	}
	if f < 0.001 || f > float64(MaxScale/1000) {
		return 0, fmt.Errorf("scale factor %s out of range [0.001, %d]", s, MaxScale/1000)
	}
	m := math.Round(f * 1000)
	if math.Abs(f*1000-m) > 1e-6 {
		return 0, fmt.Errorf("scale factor %s is not a multiple of 0.001 (dbgen scales fractional factors in thousandths)", s)
	}
	sc := Scale(m)
	if sc > 1000 && sc%1000 != 0 {
		return 0, fmt.Errorf("scale factor %s above 1 must be an integer (go-tpc's dbgen takes an integer scale)", s)
	}
	return sc, nil
}

// String formats the scale factor as ParseScale reads it: "1", "0.01".
func (s Scale) String() string {
	return strconv.FormatFloat(float64(s)/1000, 'f', -1, 64)
}

// Fractional reports whether the scale factor is below 1.
func (s Scale) Fractional() bool { return s < 1000 }

// dbgenScale is the integer scale handed to dbgen.InitDbGen: the scale
// factor itself, or 1 for a fractional one (whose tables are SF1's first
// rows, see Generate).
func (s Scale) dbgenScale() int64 {
	if s.Fractional() {
		return 1
	}
	return int64(s) / 1000
}

// base row counts of the scaled tables at SF1, as in dbgen.
const (
	basePart     = 200_000
	baseSupplier = 10_000
	baseCustomer = 150_000
	baseOrders   = 1_500_000
	suppPerPart  = 4
)

// rows scales an SF1 base count: base × SF for an integer SF, and for a
// fractional one dbgen's rule (int)(1000 × SF) × base / 1000, at least 1.
func (s Scale) rows(base int64) int64 {
	if !s.Fractional() {
		return base * int64(s) / 1000
	}
	return max(int64(s)*base/1000, 1)
}

// knownLineitemRows are the lineitem row counts of the official dbgen at
// the scale factors whose counts are published; lineitem's count is random
// (1 to 7 lines an order), so no formula gives it.
var knownLineitemRows = map[Scale]int64{
	10:     60_175,
	100:    600_572,
	1000:   6_001_215,
	10_000: 59_986_052,
}

// ExpectedRows is the row count of table at scale factor s, or -1 when only
// a range is known (lineitem at a scale factor without a published count:
// ExpectedRowsRange gives the bounds).
func ExpectedRows(table string, s Scale) int64 {
	switch table {
	case "region":
		return 5
	case "nation":
		return 25
	case "supplier":
		return s.rows(baseSupplier)
	case "customer":
		return s.rows(baseCustomer)
	case "part":
		return s.rows(basePart)
	case "partsupp":
		return suppPerPart * s.rows(basePart)
	case "orders":
		return s.rows(baseOrders)
	case "lineitem":
		if n, ok := knownLineitemRows[s]; ok {
			return n
		}
		return -1
	}
	return -1
}

// ExpectedRowsRange is the inclusive range of table's row count at scale
// factor s: one value for every table but lineitem at an unpublished
// scale, which has 1 to 7 lines an order.
func ExpectedRowsRange(table string, s Scale) (lo, hi int64) {
	if n := ExpectedRows(table, s); n >= 0 {
		return n, n
	}
	o := s.rows(baseOrders)
	return o, 7 * o
}
