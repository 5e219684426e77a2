package gen

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The narrower numeric types (docs/semantics.md, Numeric types): int8,
// int16, the unsigned integers and float32, with their adversarial values
// (each type's minimum and maximum, -1 and 0 for the unsigned casts,
// float32's NaNs with payloads, -0.0, infinities, its extremes and
// subnormals, and values a float64 overflows on its way to float32).

// narrowTypes lists them.
var narrowTypes = []plan.Type{plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64, plan.Float32}

// isNarrow reports whether t is one of narrowTypes.
func isNarrow(t plan.Type) bool {
	return t.IsUnsigned() || t == plan.Int8 || t == plan.Int16 || t == plan.Float32
}

var (
	// specialFloat32 holds float32's traps.
	specialFloat32 = []float32{0, float32(negZero), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, 0.1, 16777217, 2147483648, 255.5, -0.5, -1, 65535.9, 3.4e38}
	// nanPayloads32 are float32 NaNs: the quiet default, the negative one
	// x86 makes, and a signalling one with a payload.
	nanPayloads32 = []float32{math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00000), math.Float32frombits(0x7f800123)}
)

// narrowValue draws a value of a narrower type under profile p: near zero
// for profSmall, the type's edges often for profWild.
func (g *gen) narrowValue(t plan.Type, p profile) plan.Value {
	r := g.r
	if t == plan.Float32 {
		if p == profWild {
			switch x := r.Intn(100); {
			case x < 15:
				return plan.Float32Value(nanPayloads32[r.Intn(len(nanPayloads32))])
			case x < 50:
				return plan.Float32Value(specialFloat32[r.Intn(len(specialFloat32))])
			}
			return plan.Float32Value(float32(r.Intn(2001)-1000) / 8)
		}
		if r.Intn(20) == 0 {
			return plan.Float32Value(float32(negZero))
		}
		return plan.Float32Value(float32(r.Intn(17)-8) / 2)
	}
	lo, hi, _ := plan.IntRange(t)
	if p == profWild && r.Intn(100) < 40 {
		edges := []uint64{uint64(lo), hi, uint64(lo) + 1, hi - 1, 0, 1, hi / 2, hi/2 + 1}
		if lo < 0 {
			edges = append(edges, math.MaxUint64) // -1
		}
		v, ok := narrowInt(t, edges[r.Intn(len(edges))])
		if ok {
			return v
		}
	}
	span := int64(19)
	if p == profWild {
		span = 201
	}
	n := r.Int63n(span) - span/2
	if lo == 0 && n < 0 {
		n = -n
	}
	v, _ := plan.IntValue(t, n)
	return v
}

// narrowInt is the value of integer type t with bits b (a signed value as
// its two's complement), false when it does not fit.
func narrowInt(t plan.Type, b uint64) (plan.Value, bool) {
	if t.IsUnsigned() {
		return plan.UintValue(t, b)
	}
	return plan.IntValue(t, int64(b))
}

// narrowLiteral draws a literal of a narrower type: a typed null now and
// then, often a special value.
func (g *gen) narrowLiteral(t plan.Type) plan.Value {
	if g.r.Intn(100) < 8 {
		return plan.NullValue(t)
	}
	if g.r.Intn(100) < 30 {
		return g.narrowValue(t, profWild)
	}
	return g.narrowValue(t, profSmall)
}

// narrowPool is a low-cardinality pool value: 0..3, the type's maximum
// now and then, float32's zeros and NaNs.
func (g *gen) narrowPool(t plan.Type) plan.Value {
	if t == plan.Float32 {
		choices := []float32{0, float32(negZero), nanPayloads32[0], nanPayloads32[1], 1, 2.5}
		return plan.Float32Value(choices[g.r.Intn(len(choices))])
	}
	if g.r.Intn(12) == 0 {
		_, hi, _ := plan.IntRange(t)
		v, _ := plan.UintValue(t, hi)
		return v
	}
	v, _ := plan.IntValue(t, int64(g.r.Intn(4)))
	return v
}

// promotionPairs lists, per numeric type, the ordered operand pairs whose
// promotion it is.
var promotionPairs = func() map[plan.Type][][2]plan.Type {
	out := map[plan.Type][][2]plan.Type{}
	for _, a := range plan.NumericTypes() {
		for _, b := range plan.NumericTypes() {
			if p, ok := plan.Promote(a, b); ok {
				out[p] = append(out[p], [2]plan.Type{a, b})
			}
		}
	}
	return out
}()

// promotingPair draws operand types whose promotion is t.
func (g *gen) promotingPair(t plan.Type) (plan.Type, plan.Type) {
	ps := promotionPairs[t]
	if len(ps) == 0 {
		return t, t
	}
	p := ps[g.r.Intn(len(ps))]
	return p[0], p[1]
}

// comparableWith draws a numeric type with a common type with t (t itself
// when t is not a number): the older three mostly, a narrower one now and
// then.
func (g *gen) comparableWith(t plan.Type) plan.Type {
	if !t.IsNumeric() {
		return t
	}
	for {
		u := numericTypes[g.r.Intn(len(numericTypes))]
		if g.r.Intn(3) == 0 {
			u = narrowTypes[g.r.Intn(len(narrowTypes))]
		}
		if _, ok := plan.Promote(t, u); ok {
			return u
		}
	}
}
