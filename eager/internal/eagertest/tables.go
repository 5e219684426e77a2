package eagertest

import (
	"math"

	"github.com/dfopt/dfopt/plan"
)

// The test tables. Each is small enough to compute expectations by hand.
var (
	// tT: duplicate and null keys, a null value, strings with "", null and
	// a multi-byte rune.
	tT = table("t",
		cl("k", plan.Int64, i64(1), i64(2), i64(1), nI64, i64(2)),
		cl("a", plan.Int64, i64(10), i64(20), i64(30), i64(40), nI64),
		cl("s", plan.String, str("x"), str(""), str("héllo"), nStr, str("x")),
	)
	// tD: integer division and overflow traps.
	tD = table("d",
		cl("a", plan.Int64, i64(6), i64(7), i64(math.MinInt64), i64(1)),
		cl("b", plan.Int64, i64(3), i64(0), i64(-1), i64(0)),
	)
	// tBig: a sum that overflows in its second row.
	tBig = table("big",
		cl("k", plan.Int64, i64(1), i64(1), i64(2)),
		cl("a", plan.Int64, i64(math.MaxInt64), i64(1), i64(5)),
	)
	// tF: float keys: NaNs with different payloads and signs, both zeros,
	// infinities, a null; g numbers the rows from 1.
	tF = table("fl",
		cl("x", plan.Float64, f64(nanA), f64(negZero), f64(0), f64(1), nF64, f64(nanB), f64(math.Inf(-1)), f64(math.Inf(1))),
		nn("g", plan.Int64, i64(1), i64(2), i64(3), i64(4), i64(5), i64(6), i64(7), i64(8)),
	)
	// tN: an all-null column next to a non-nullable int32 one.
	tN = table("n",
		cl("z", plan.Int64, nI64, nI64, nI64),
		nn("m", plan.Int32, i32(1), i32(2), i32(1)),
	)
	// tL and tR: join inputs with duplicate and null keys on both sides.
	tL = table("l",
		cl("lk", plan.Int64, i64(1), i64(2), nI64, i64(2), i64(3)),
		cl("lv", plan.String, str("a"), str("b"), str("c"), str("d"), str("e")),
	)
	tR = table("r",
		cl("rk", plan.Int64, i64(2), i64(4), i64(2), nI64, i64(1)),
		cl("rv", plan.String, str("p"), str("q"), str("r"), str("s"), str("t")),
	)
	// tA and tB share column names (k, v).
	tA = table("ta",
		cl("k", plan.Int64, i64(1), i64(2), i64(3)),
		cl("v", plan.String, str("a1"), str("a2"), str("a3")),
	)
	tB = table("tb",
		cl("k", plan.Int64, i64(3), i64(1), i64(9)),
		cl("v", plan.String, str("b3"), str("b1"), str("b9")),
	)
	// tC collides with tB after the default suffix.
	tC = table("tc",
		cl("k", plan.Int64, i64(1)),
		cl("v", plan.String, str("c1")),
		cl("v_right", plan.String, str("cx")),
	)
	// tI and tG: join keys of different numeric types, NaN and signed zeros.
	tI = table("ti",
		cl("ik", plan.Int32, i32(1), i32(0), nullI32(), i32(7)),
	)
	tG = table("tg",
		cl("fk", plan.Float64, f64(0), f64(1), f64(nanA), f64(negZero), nF64),
	)
	// tNN: a non-nullable version of tT's a, for union nullability.
	tNN = table("tnn",
		nn("k", plan.Int64, i64(5)),
		nn("a", plan.Int64, i64(50)),
		nn("s", plan.String, str("z")),
	)
	// tDup: duplicate rows for distinct over all columns.
	tDup = table("dup",
		cl("a", plan.Int64, i64(1), i64(1), nI64, nI64, i64(2)),
		cl("f", plan.Float64, f64(0), f64(negZero), f64(nanA), f64(nanB), f64(0)),
	)
	// tW has a column named like the first window temporary.
	tW = table("w",
		cl("__over_0", plan.Int64, i64(math.MinInt64)),
		cl("k", plan.Int64, i64(1)),
	)
)
