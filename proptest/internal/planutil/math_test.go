package planutil

import "math"

// mathNaNPayload is a NaN that is not math.NaN() (whose bits are
// 0x7ff8000000000001).
func mathNaNPayload() float64 { return math.Float64frombits(0x7ff0000000000123) }

func negZero() float64 { return math.Copysign(0, -1) }
