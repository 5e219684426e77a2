package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The special values the data and literal generators inject. Gopter's and
// rapid's float generators never produce NaN or ±Inf (notes/go-deps.md §4),
// so every special is listed here explicitly.
var (
	// NaNs: Go's math.NaN() (0x7ff8000000000001), the negative default NaN
	// of x86 arithmetic, a signalling-pattern NaN with a payload, and another
	// quiet NaN with a payload.
	nanPayloads = []float64{
		math.Float64frombits(0x7ff8000000000001),
		math.Float64frombits(0xfff8000000000000),
		math.Float64frombits(0x7ff0000000000123),
		math.Float64frombits(0x7ffc00000000beef),
	}
	negZero = math.Copysign(0, -1)

	specialInt64 = []int64{math.MinInt64, math.MaxInt64, math.MinInt64 + 1, math.MaxInt64 - 1,
		0, -1, 1, 2, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1,
		1 << 62, -(1 << 62), 3037000500, 1<<53 + 1}
	specialInt32 = []int32{math.MinInt32, math.MaxInt32, math.MinInt32 + 1, math.MaxInt32 - 1,
		0, -1, 1, 2, 46341, 1 << 30}
	specialFloat = []float64{0, negZero, math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0.1, 0.5, -1.5, 1e300, 9223372036854775808.0, -9223372036854775808.0,
		2147483648.0, 1, -1, 2.5, 3, 1 << 53}
	specialString = []string{"", "a", "b", "A", "ab", "é", "日本", "🙂", "ß", "0", "1", "-1", "12", " 1",
		"1.5", "NaN", "Inf", "-0.0", "true", "false", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "2147483648", "x y", "a,b",
		// for the string functions: invalid UTF-8, LIKE's wildcards and
		// the escape in the data, case mappings that change the length,
		// white space to strip
		"\xff", "a\xc3", "é\xa9", "%", "_", "a%_b", "50!%", "İ", "ȿ", "ı", " x\t", "\u00a0é\u3000", "ABC"}
	// lowCardStrings are the pools of low-cardinality string columns; "" and
	// "é" make empty and non-ASCII keys common.
	lowCardStrings = []string{"a", "b", "", "é", "A"}
	// numericStrings mostly parse as integers and floats, so strict casts
	// succeed often enough to let later operators run.
	numericStrings = []string{"0", "1", "-1", "2", "7", "-3", "10", "2.5", "-0.0", "NaN", "Inf"}
)

// profile is the distribution a column's values are drawn from.
type profile uint8

const (
	profSmall   profile = iota // small numbers around zero, zeros included
	profLowCard                // one to three distinct values: heavy duplicate keys
	profWild                   // a large share of special values
	profNumeric                // strings that mostly parse as numbers
)

// colSpec is how one column's data is generated.
type colSpec struct {
	field    plan.Field
	prof     profile
	nullRate float64
	pool     []plan.Value // for profLowCard
}

// pickProfile chooses the column's distribution; a column named k is always
// low-cardinality, so joins and group-bys on k see duplicates.
func (g *gen) pickProfile(f plan.Field) profile {
	if f.Name == "k" {
		return profLowCard
	}
	if f.Type.IsNested() {
		return []profile{profSmall, profWild}[g.r.Intn(2)]
	}
	x := g.r.Intn(100)
	switch {
	case x < 35:
		if f.Type == plan.String {
			return profNumeric
		}
		return profSmall
	case x < 65:
		return profLowCard
	default:
		return profWild
	}
}

// nullRate chooses how often a nullable column holds null, all-null columns
// included.
func (g *gen) nullRate(nullable bool) float64 {
	if !nullable {
		return 0
	}
	x := g.r.Intn(100)
	switch {
	case x < 20:
		return 0
	case x < 55:
		return 0.1
	case x < 85:
		return 0.3
	case x < 95:
		return 0.6
	default:
		return 1
	}
}

// value draws one non-null value of type t under profile p.
func (g *gen) value(t plan.Type, p profile) plan.Value {
	if t.IsNested() {
		return g.nestedValue(t, p)
	}
	r := g.r
	switch t {
	case plan.Bool:
		return plan.BoolValue(r.Intn(2) == 0)
	case plan.Int64:
		if p == profWild && r.Intn(100) < 35 {
			return plan.Int64Value(specialInt64[r.Intn(len(specialInt64))])
		}
		if p == profWild {
			return plan.Int64Value(int64(r.Intn(201) - 100))
		}
		return plan.Int64Value(int64(r.Intn(19) - 9))
	case plan.Int32:
		if p == profWild && r.Intn(100) < 35 {
			return plan.Int32Value(specialInt32[r.Intn(len(specialInt32))])
		}
		if p == profWild {
			return plan.Int32Value(int32(r.Intn(201) - 100))
		}
		return plan.Int32Value(int32(r.Intn(19) - 9))
	case plan.Float64:
		if p == profWild {
			switch x := r.Intn(100); {
			case x < 15:
				return plan.Float64Value(nanPayloads[r.Intn(len(nanPayloads))])
			case x < 45:
				return plan.Float64Value(specialFloat[r.Intn(len(specialFloat))])
			}
			return plan.Float64Value(float64(r.Intn(2001)-1000) / 8)
		}
		if r.Intn(20) == 0 {
			return plan.Float64Value(negZero)
		}
		return plan.Float64Value(float64(r.Intn(17)-8) / 2)
	case plan.String:
		switch p {
		case profNumeric:
			if r.Intn(10) == 0 {
				return plan.StringValue(specialString[r.Intn(len(specialString))])
			}
			return plan.StringValue(numericStrings[r.Intn(len(numericStrings))])
		case profWild:
			if r.Intn(100) < 60 {
				return plan.StringValue(specialString[r.Intn(len(specialString))])
			}
		}
		return plan.StringValue(g.shortString())
	case plan.Date, plan.Datetime, plan.Duration:
		return g.temporalValue(t, p)
	}
	if isNarrow(t) {
		return g.narrowValue(t, p)
	}
	return plan.NullValue(t)
}

// shortString draws a string of zero to three letters from a small
// alphabet (ASCII and non-ASCII), so that equal strings recur.
func (g *gen) shortString() string {
	const alphabet = "abcé"
	runes := []rune(alphabet)
	n := g.r.Intn(4)
	buf := make([]rune, n)
	for i := range buf {
		buf[i] = runes[g.r.Intn(len(runes))]
	}
	return string(buf)
}

// lowCardPool draws the one to three distinct values of a low-cardinality
// column. Float pools favour the key-equality traps: 0.0 with -0.0 and two
// NaN payloads.
func (g *gen) lowCardPool(t plan.Type) []plan.Value {
	n := 1 + g.r.Intn(3)
	pool := make([]plan.Value, n)
	for i := range pool {
		switch t {
		case plan.Int64:
			v := int64(g.r.Intn(4))
			if g.r.Intn(12) == 0 {
				v = math.MaxInt64
			}
			pool[i] = plan.Int64Value(v)
		case plan.Int32:
			pool[i] = plan.Int32Value(int32(g.r.Intn(4)))
		case plan.Float64:
			choices := []float64{0, negZero, nanPayloads[0], nanPayloads[1], 1, 2.5}
			pool[i] = plan.Float64Value(choices[g.r.Intn(len(choices))])
		case plan.String:
			pool[i] = plan.StringValue(lowCardStrings[g.r.Intn(len(lowCardStrings))])
		case plan.Bool:
			pool[i] = plan.BoolValue(g.r.Intn(2) == 0)
		case plan.Date, plan.Datetime, plan.Duration:
			pool[i] = g.temporalPool(t)
		default:
			if isNarrow(t) {
				pool[i] = g.narrowPool(t)
			}
		}
	}
	return pool
}

// columns draws the values of a table of rows rows with these fields, each
// column with its own null rate, profile and (low-cardinality profile)
// value pool.
func (g *gen) columns(fields []plan.Field, rows int) [][]plan.Value {
	cols := make([][]plan.Value, len(fields))
	for j, f := range fields {
		spec := colSpec{field: f, nullRate: g.nullRate(f.Nullable)}
		spec.prof = g.pickProfile(f)
		if spec.prof == profLowCard {
			spec.pool = g.lowCardPool(f.Type)
		}
		cols[j] = g.column(&spec, rows)
	}
	return cols
}

// column draws rows values for one column.
func (g *gen) column(spec *colSpec, rows int) []plan.Value {
	out := make([]plan.Value, rows)
	t := spec.field.Type
	for i := range out {
		switch {
		case spec.nullRate > 0 && g.r.Float64() < spec.nullRate:
			out[i] = plan.NullValue(t)
		case spec.prof == profLowCard:
			out[i] = spec.pool[g.r.Intn(len(spec.pool))]
		default:
			out[i] = g.value(t, spec.prof)
		}
	}
	return out
}

// literal draws a literal value of type t: often a special value, sometimes
// a typed null, otherwise a small value.
func (g *gen) literal(t plan.Type) plan.Value {
	r := g.r
	if isNarrow(t) {
		return g.narrowLiteral(t)
	}
	x := r.Intn(100)
	if x < 8 {
		return plan.NullValue(t)
	}
	special := x < 30
	switch t {
	case plan.Date, plan.Datetime, plan.Duration:
		if special {
			return g.temporalSpecial(t)
		}
		return g.temporalValue(t, profSmall)
	case plan.Bool:
		return plan.BoolValue(r.Intn(2) == 0)
	case plan.Int64:
		if special {
			return plan.Int64Value(specialInt64[r.Intn(len(specialInt64))])
		}
		return plan.Int64Value(int64(r.Intn(11) - 3))
	case plan.Int32:
		if special {
			return plan.Int32Value(specialInt32[r.Intn(len(specialInt32))])
		}
		return plan.Int32Value(int32(r.Intn(11) - 3))
	case plan.Float64:
		if special {
			if r.Intn(4) == 0 {
				return plan.Float64Value(nanPayloads[r.Intn(len(nanPayloads))])
			}
			return plan.Float64Value(specialFloat[r.Intn(len(specialFloat))])
		}
		return plan.Float64Value(float64(r.Intn(11)-3) / 2)
	case plan.String:
		if special {
			return plan.StringValue(specialString[r.Intn(len(specialString))])
		}
		return plan.StringValue(lowCardStrings[r.Intn(len(lowCardStrings))])
	}
	return plan.NullValue(t)
}
