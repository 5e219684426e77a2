package bench

import (
	"math"
	"testing"
)

// TestH32Vectors checks lowbias32 against values derived step by step by
// hand (a second implementation, in Python, agreed). For x = 1:
//
//	x ^= x>>16          0x00000001
//	x *= 0x7feb352d     0x7feb352d
//	x ^= x>>15          0x7feb352d ^ 0x0000ffd6 = 0x7febcafb
//	x *= 0x846ca68b     0x6889f849 (mod 2^32)
//	x ^= x>>16          0x6889f849 ^ 0x00006889 = 0x688990c0
//
// For x = 2: 0x2, 0xffd66a5a, 0xffd795f6, 0xd113f092, 0xd1132181.
// For x = 0 every step keeps 0.
func TestH32Vectors(t *testing.T) {
	tests := []struct {
		in, want uint32
	}{
		{0, 0},
		{1, 0x688990c0},
		{2, 0xd1132181},
	}
	for _, tc := range tests {
		if got := H32(tc.in); got != tc.want {
			t.Errorf("H32(%#x) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// TestUVectors checks u(i, c) for the first streams of rows 0..2.
// u(0, 0) = h32(0 + 0) = 0; u(0, 1) = h32(0x9e3779b9); the rest were
// computed with the independent implementation.
func TestUVectors(t *testing.T) {
	tests := []struct {
		i    int64
		c    uint32
		want uint32
	}{
		{0, 0, 0},
		{0, 1, 33350994},
		{0, 2, 83415710},
		{0, 3, 260840893},
		{1, 0, 1492470133},
		{1, 1, 2988215890},
		{1, 2, 2105998277},
		{1, 3, 1507683795},
		{2, 0, 911671261},
		{2, 1, 3756008032},
		{2, 2, 3399710145},
		{2, 3, 1998074946},
	}
	for _, tc := range tests {
		if got := U(tc.i, tc.c); got != tc.want {
			t.Errorf("U(%d, %d) = %d, want %d", tc.i, tc.c, got, tc.want)
		}
	}
	if got, want := U(0, 1), H32(0x9e3779b9); got != want {
		t.Errorf("U(0, 1) = %d, want h32(0x9e3779b9) = %d", got, want)
	}
	// i is taken modulo 2^32.
	if U(1<<32+5, 7) != U(5, 7) {
		t.Error("U does not take i modulo 2^32")
	}
}

// TestRowTVectors spot-checks whole rows against hand-computed values:
// row 0: a = 0 mod 2000001 - 1000000 = -1000000; b = 83415710/2^32*2000 -
// 1000 (u(0,1) = 33350994 is not a multiple of 100); s = "s" + 260840893
// mod 100 = "s93"; k = 0.
func TestRowTVectors(t *testing.T) {
	tests := []struct {
		i       int64
		k, a    int64
		b       float64
		s       string
		f0, f11 float64
	}{
		{0, 0, -1000000, -961.1565330997109, "s93", 0.42049606679938734, 0.8301210911013186},
		{1, 919, -530613, -19.318131264299154, "s95", 0.19941805466078222, 0.646958916913718},
		{2, 838, 670806, 583.1134025938809, "s46", 0.7137632977683097, 0.7845001658424735},
	}
	for _, tc := range tests {
		r := RowT(tc.i)
		if r.ID != tc.i || r.K != tc.k || r.A != tc.a || r.BNull || r.B != tc.b || r.S != tc.s ||
			r.F[0] != tc.f0 || r.F[11] != tc.f11 {
			t.Errorf("RowT(%d) = %+v, want k=%d a=%d b=%v s=%s f0=%v f11=%v", tc.i, r, tc.k, tc.a, tc.b, tc.s, tc.f0, tc.f11)
		}
	}
	// Row 0's b by its formula, spelled out.
	if want := 83415710.0/4294967296.0*2000 - 1000; RowT(0).B != want {
		t.Errorf("RowT(0).B = %v, want %v", RowT(0).B, want)
	}
}

// TestRowTNulls checks that b is null exactly when u(i,1) mod 100 == 0,
// that this happens about 1% of the time, and that values stay in range.
func TestRowTNulls(t *testing.T) {
	nulls := 0
	const n = 100000
	for i := int64(0); i < n; i++ {
		r := RowT(i)
		if r.BNull != (U(i, 1)%100 == 0) {
			t.Fatalf("row %d: BNull = %v with u(i,1) = %d", i, r.BNull, U(i, 1))
		}
		if r.BNull {
			nulls++
			continue
		}
		if r.A < -1000000 || r.A > 1000000 || r.B < -1000 || r.B >= 1000 || math.IsNaN(r.B) {
			t.Fatalf("row %d out of range: %+v", i, r)
		}
		for j, f := range r.F {
			if f < 0 || f >= 1 || f != float64(U(i, uint32(4+j)))/4294967296.0 {
				t.Fatalf("row %d: f%d = %v", i, j, f)
			}
		}
	}
	if nulls < n/200 || nulls > n/50 {
		t.Errorf("%d nulls in %d rows, want about 1%%", nulls, n)
	}
}
