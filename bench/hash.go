package bench

import "strconv"

// H32 is the lowbias32 integer hash (Chris Wellons' hash-prospector): a
// cheap, well-mixed bijection on uint32 that every engine can reproduce
// exactly, so the benchmark data needs no random-number library.
func H32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

// golden is 2^32 divided by the golden ratio: it spreads the stream
// numbers c of U apart before the second hash.
const golden uint32 = 0x9e3779b9

// U is the c-th pseudo-random uint32 of row i: h32(h32(i) + c*0x9e3779b9),
// all in uint32 arithmetic, with i taken modulo 2^32.
func U(i int64, c uint32) uint32 {
	return uStream(H32(uint32(i)), c)
}

// uStream is U given h32(i), so a row's columns hash its index once.
func uStream(hi uint32, c uint32) uint32 {
	return H32(hi + c*golden)
}

// twoTo32 is 2^32 as a float64, the divisor that maps a uint32 into [0, 1).
const twoTo32 = 4294967296.0

// NumFloatColumns is the number of f columns of table t (f0..f11).
const NumFloatColumns = 12

// DRows is the number of rows of table d (k = 0..999).
const DRows = 1000

// TRow is one row of table t, computed from its index by the formulas of the
// package documentation. BNull reports a null b (B is then 0).
type TRow struct {
	ID, K, A int64
	B        float64
	BNull    bool
	S        string
	F        [NumFloatColumns]float64
}

// RowT computes row i of table t. Tests and other tools use it as the
// specification the generator must match.
func RowT(i int64) TRow {
	hi := H32(uint32(i))
	r := TRow{ID: i, K: (i * 7919) % 1000, A: colA(hi)}
	r.B, r.BNull = colB(hi)
	r.S = sValues[colS(hi)]
	for j := range r.F {
		r.F[j] = colF(hi, j)
	}
	return r
}

// colA is a = u(i,0) mod 2000001 - 1000000.
func colA(hi uint32) int64 { return int64(uStream(hi, 0)%2000001) - 1000000 }

// colB is b: null when u(i,1) mod 100 == 0, else u(i,2)/2^32*2000 - 1000,
// evaluated left to right in float64.
func colB(hi uint32) (float64, bool) {
	if uStream(hi, 1)%100 == 0 {
		return 0, true
	}
	// The conversion rounds the product, so that no compiler fuses the
	// multiply and subtract into one FMA (the Go spec allows that without
	// it, on arm64 for instance), which would change the last bit.
	return float64(float64(uStream(hi, 2))/twoTo32*2000) - 1000, false
}

// colS is the index n of s = "s" + n, n = u(i,3) mod 100.
func colS(hi uint32) int { return int(uStream(hi, 3) % 100) }

// colF is f_j = u(i,4+j)/2^32.
func colF(hi uint32, j int) float64 { return float64(uStream(hi, uint32(4+j))) / twoTo32 }

// sValues and nameValues are the 100 strings of t.s and the 1000 of d.name.
var (
	sValues    = decimalStrings("s", 100)
	nameValues = decimalStrings("n", DRows)
)

func decimalStrings(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}
