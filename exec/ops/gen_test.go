package ops

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
)

// This file generates adversarial columns for the property tests and holds
// the reference semantics they are checked against: plain Go over Go
// values, written from docs/semantics.md and independent of the kernels.

// tcol is a generated column: nil is a null, other values are int64, int32,
// float64, string or bool according to dt.
type tcol struct {
	dt   arrow.DataType
	vals []any
}

// String renders a column compactly for failure reports.
func (c tcol) String() string {
	parts := make([]string, len(c.vals))
	for i, v := range c.vals {
		switch v := v.(type) {
		case nil:
			parts[i] = "null"
		case float64:
			parts[i] = fmt.Sprintf("%v/%#x", v, math.Float64bits(v))
		case string:
			parts[i] = fmt.Sprintf("%q", v)
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return c.dt.String() + "[" + strings.Join(parts, " ") + "]"
}

// pick returns the rows of c listed in rows.
func (c tcol) pick(rows []int) tcol {
	out := tcol{dt: c.dt, vals: make([]any, len(rows))}
	for j, r := range rows {
		out.vals[j] = c.vals[r]
	}
	return out
}

// array builds c as an Arrow array. For a third of the row counts it builds
// a longer array (with a null and a value before, values after) and returns
// the zero-copy slice holding c, so every property also runs on arrays with
// a data offset that is not a multiple of 8.
func (c tcol) array(t testing.TB, mem memory.Allocator) arrow.Array {
	if len(c.vals)%3 != 1 {
		return build(t, mem, c.dt, c.vals...)
	}
	pool := poolOf(c.dt)
	padded := append([]any{nil, pool[0], pool[1%len(pool)]}, c.vals...)
	padded = append(padded, pool[0], nil)
	full := build(t, mem, c.dt, padded...)
	defer full.Release()
	return sliceArray(full, 3, int64(3+len(c.vals)))
}

// Value pools: edge values first, with heavy overlap so keys repeat and the
// promoted comparisons (int vs float) have matches to find.
var (
	int64Pool = []any{minInt64, maxInt64, int64(0), int64(-1), int64(1), int64(2), int64(3),
		int64(1) << 53, int64(1)<<53 + 1, int64(-7), int64(1) << 40}
	int32Pool = []any{int32(math.MinInt32), int32(math.MaxInt32), int32(0), int32(-1), int32(1), int32(2), int32(3), int32(-7)}
	floatPool = []any{qNaN, hwNaN, sNaN, payNaN, 0.0, negZero, posInf, negInf, 1.5, -1.5, 1.0, 2.0, 3.0,
		-7.0, 9007199254740992.0, 1e300, -1e300, 5e-324}
	stringPool = []any{"", "a", "b", "B", "ab", "a\x00", "abcdefgh", "abcdefghi", "abcdefgh\x00", "abcdefgg", "é", "z"}
	boolPool   = []any{true, false}
)

// keyTypes are the column types the generators draw from.
var keyTypes = []arrow.DataType{tI64, tI32, tF64, tStr, tBool}

// poolOf returns the value pool of a type.
func poolOf(dt arrow.DataType) []any {
	switch dt.ID() {
	case arrow.INT64:
		return int64Pool
	case arrow.INT32:
		return int32Pool
	case arrow.FLOAT64:
		return floatPool
	case arrow.STRING:
		return stringPool
	}
	return boolPool
}

// genCol draws n values of type dt: nulls with probability nullP, values
// from the first `domain` entries of the pool (so small domains repeat), and
// now and then a random value outside the pool.
func genCol(rng *rand.Rand, dt arrow.DataType, n int, nullP float64, domain int) tcol {
	pool := poolOf(dt)
	domain = max(1, min(domain, len(pool)))
	c := tcol{dt: dt, vals: make([]any, n)}
	for i := range c.vals {
		switch r := rng.Float64(); {
		case r < nullP:
		case r < nullP+0.1:
			c.vals[i] = randomValue(rng, dt)
		default:
			c.vals[i] = pool[rng.Intn(domain)]
		}
	}
	return c
}

// randomValue is an arbitrary value of type dt.
func randomValue(rng *rand.Rand, dt arrow.DataType) any {
	switch dt.ID() {
	case arrow.INT64:
		return rng.Int63() - rng.Int63()
	case arrow.INT32:
		return int32(rng.Uint32())
	case arrow.FLOAT64:
		if rng.Intn(2) == 0 {
			return math.Float64frombits(rng.Uint64()) // any bits: NaN payloads too
		}
		return float64(rng.Intn(20) - 10)
	case arrow.STRING:
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = "ab\x00z"[rng.Intn(4)]
		}
		return string(b)
	}
	return rng.Intn(2) == 0
}

// genRows picks a row count: mostly up to the gopter size, sometimes large
// enough for the radix and heap paths.
func genRows(p *gopter.GenParameters) int {
	if p.Rng.Intn(8) == 0 {
		return 1024 + p.Rng.Intn(2000)
	}
	return p.Rng.Intn(p.MaxSize + 1)
}

// --- reference semantics ---

// refFloatCmp is the sort total order on floats: -Inf < ... < -0.0 < +0.0 <
// ... < +Inf < NaN, all NaNs equal.
func refFloatCmp(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	sa, sb := math.Signbit(a), math.Signbit(b)
	switch {
	case sa == sb:
		return 0
	case sa:
		return -1
	}
	return 1
}

// refCmp orders two non-null values of one type.
func refCmp(a, b any) int {
	switch a := a.(type) {
	case int64:
		return cmp.Compare(a, b.(int64))
	case int32:
		return cmp.Compare(a, b.(int32))
	case float64:
		return refFloatCmp(a, b.(float64))
	case string:
		return strings.Compare(a, b.(string))
	case bool:
		bb := b.(bool)
		switch {
		case a == bb:
			return 0
		case !a:
			return -1
		}
		return 1
	}
	panic(fmt.Sprintf("refCmp %T", a))
}

// refKey is a row's grouping key as a string: NaNs one key, -0.0 = +0.0,
// null a key of its own.
func refKey(cols []tcol, i int) string {
	var b strings.Builder
	for _, c := range cols {
		switch v := c.vals[i].(type) {
		case nil:
			b.WriteString("N|")
		case float64:
			switch {
			case math.IsNaN(v):
				b.WriteString("f:nan|")
			case v == 0:
				b.WriteString("f:0|")
			default:
				fmt.Fprintf(&b, "f:%x|", math.Float64bits(v))
			}
		case string:
			fmt.Fprintf(&b, "s:%q|", v)
		default:
			fmt.Fprintf(&b, "%T:%v|", v, v)
		}
	}
	return b.String()
}

// refJoinMatch reports whether two join key values match: both non-null and
// equal in the promoted type (all NaNs equal, -0.0 = +0.0).
func refJoinMatch(a, b any) bool {
	if a == nil || b == nil {
		return false
	}
	asInt := func(v any) (int64, bool) {
		switch v := v.(type) {
		case int64:
			return v, true
		case int32:
			return int64(v), true
		}
		return 0, false
	}
	ai, aok := asInt(a)
	bi, bok := asInt(b)
	if aok && bok {
		return ai == bi
	}
	asFloat := func(v any) (float64, bool) {
		switch v := v.(type) {
		case int64:
			return float64(v), true
		case int32:
			return float64(v), true
		case float64:
			return v, true
		}
		return 0, false
	}
	af, aok := asFloat(a)
	bf, bok := asFloat(b)
	if aok && bok {
		return af == bf || (math.IsNaN(af) && math.IsNaN(bf))
	}
	return a == b
}
