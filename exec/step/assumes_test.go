package step

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// naiveViolation is violation written row by row from
// plan.Assumption.Violation: the first non-null value that breaks a.
func naiveViolation(a plan.Assumption, vals []plan.Value) (int64, string) {
	for r, v := range vals {
		if why := a.Violation(v); why != "" {
			return int64(r), why
		}
	}
	return -1, ""
}

// arrowOf builds an Arrow array of vals (all of type typ); an int64 null
// slot holds junk.
func arrowOf(t *testing.T, typ plan.Type, vals []plan.Value, junk int64) arrow.Array {
	t.Helper()
	mem := memory.NewGoAllocator()
	switch typ {
	case plan.Int64:
		// A null slot holds junk, a value far outside any range: the
		// fast pass reads it and must not report it.
		raw, valid := make([]int64, len(vals)), make([]bool, len(vals))
		for i, v := range vals {
			raw[i], valid[i] = junk, !v.IsNull()
			if valid[i] {
				raw[i] = v.Int()
			}
		}
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(raw, valid)
		return b.NewArray()
	case plan.Int32:
		b := array.NewInt32Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v.IsNull() {
				b.AppendNull()
				continue
			}
			b.Append(int32(v.Int()))
		}
		return b.NewArray()
	default:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v.IsNull() {
				b.AppendNull()
				continue
			}
			b.Append(v.Float())
		}
		return b.NewArray()
	}
}

// TestViolation: the scan's check (a branch-free pass, then a row search
// only when it fails) finds what the row-by-row rule finds — the first
// non-null value outside the range, or a NaN the assumption forbids — over
// lengths around the 4-way unrolling, null slots holding out-of-range
// junk, -0.0 and NaN, for a fixed seed.
func TestViolation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 16))
	cases := 0
	for _, typ := range []plan.Type{plan.Int64, plan.Int32, plan.Float64} {
		for n := 0; n < 12; n++ {
			for k := 0; k < 40; k++ {
				vals := make([]plan.Value, n)
				for i := range vals {
					x := rng.IntN(13) - 6
					switch {
					case rng.IntN(6) == 0:
						vals[i] = plan.NullValue(typ)
					case typ == plan.Int64:
						vals[i] = plan.Int64Value(int64(x))
					case typ == plan.Int32:
						vals[i] = plan.Int32Value(int32(x))
					case rng.IntN(8) == 0:
						vals[i] = plan.Float64Value(math.NaN())
					case x == 0 && rng.IntN(2) == 0:
						vals[i] = plan.Float64Value(math.Copysign(0, -1))
					default:
						vals[i] = plan.Float64Value(float64(x) / 2)
					}
				}
				lo := int64(rng.IntN(9) - 5)
				hi := lo + int64(rng.IntN(8))
				a := plan.Assumption{Column: "a"}
				switch typ {
				case plan.Int64:
					a.Min, a.Max = plan.Int64Value(lo), plan.Int64Value(hi)
				case plan.Int32:
					a.Min, a.Max = plan.Int32Value(int32(lo)), plan.Int32Value(int32(hi))
				default:
					a.Min, a.Max = plan.Float64Value(float64(lo)/2), plan.Float64Value(float64(hi)/2)
					a.NaNFree = rng.IntN(2) == 0
				}
				arr := arrowOf(t, typ, vals, math.MaxInt64-int64(k))
				gotRow, gotWhy := violation(a, arr)
				arr.Release()
				wantRow, wantWhy := naiveViolation(a, vals)
				if gotRow != wantRow || gotWhy != wantWhy {
					t.Fatalf("%s over %v: got row %d %q, want row %d %q", a, vals, gotRow, gotWhy, wantRow, wantWhy)
				}
				cases++
			}
		}
	}
	if cases == 0 {
		t.Fatal("no case ran")
	}
}

// TestChecks: an assumption that the facts a table computes from its own
// values imply is not checked (it cannot fail); one they do not imply is,
// and so is every assumption when no computed facts are given — facts a
// table merely states (WithStatedFacts) never excuse a check.
func TestChecks(t *testing.T) {
	tbl := table(t, "t") // a: 1, 2, 3
	in := func(lo, hi int64) plan.Assumption {
		return plan.Assumption{Column: "a", Min: i64(lo), Max: i64(hi)}
	}
	lie := map[string]plan.ColumnFacts{"a": {HasRange: true, Min: i64(2), Max: i64(2)}}
	cases := []struct {
		name     string
		src      *plan.Table
		assumes  []plan.Assumption
		computed bool
		want     []plan.Assumption
	}{
		{"implied", tbl, []plan.Assumption{in(0, 5)}, true, nil},
		{"exact bounds implied", tbl, []plan.Assumption{in(1, 3)}, true, nil},
		{"narrower, checked", tbl, []plan.Assumption{in(2, 3)}, true, []plan.Assumption{in(2, 3)}},
		{"no computed facts, checked", tbl, []plan.Assumption{in(0, 5)}, false, []plan.Assumption{in(0, 5)}},
		{"a stated lie is no computed fact", tbl.WithStatedFacts(lie), []plan.Assumption{in(2, 2)}, true, []plan.Assumption{in(2, 2)}},
		{"a stated lie does not hide the truth", tbl.WithStatedFacts(lie), []plan.Assumption{in(1, 3)}, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := plan.Scan(c.src).Node().(*plan.ScanNode)
			n.Assumes = c.assumes
			var computed ComputedFacts
			if c.computed {
				computed = c.src.ComputedFacts
			}
			got := Checks(n, computed)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if !got[i].Equal(c.want[i]) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
			if ReadsEveryRow(n, got) != (len(c.want) > 0) {
				t.Errorf("ReadsEveryRow(%v) = %v", got, ReadsEveryRow(n, got))
			}
		})
	}
}
