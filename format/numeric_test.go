package format

import (
	"bytes"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestNarrowNumericFormats checks the narrower and unsigned integers and
// float32 in every format: unsigned values beyond MaxInt64 in decimal,
// float32 with its own shortest digits ("0.1"), JSON quoting integers
// beyond 2^53 and the float specials.
func TestNarrowNumericFormats(t *testing.T) {
	r := collect(t, []plan.Field{{Name: "a", Type: plan.Int8, Nullable: true}, {Name: "u", Type: plan.Uint64, Nullable: true},
		{Name: "f", Type: plan.Float32, Nullable: true}},
		[]plan.Value{plan.Int8Value(-128), null(plan.Int8), plan.Int8Value(127)},
		[]plan.Value{plan.Uint64Value(math.MaxUint64), plan.Uint64Value(7), null(plan.Uint64)},
		[]plan.Value{plan.Float32Value(0.1), plan.Float32Value(float32(math.Inf(-1))), plan.Float32Value(float32(math.Copysign(0, -1)))})
	var b bytes.Buffer
	if err := CSV(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "a,u,f\n-128,18446744073709551615,0.1\n,7,-Inf\n127,,-0\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := JSON(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`-128`, `"18446744073709551615"`, `0.1`, `"-Inf"`, `"-0"`, `7`} {
		if !bytes.Contains(b.Bytes(), []byte(frag)) {
			t.Errorf("json lacks %s:\n%s", frag, b.String())
		}
	}
	b.Reset()
	if err := Table(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{"-128", "18446744073709551615", "0.1", "-Inf", "null"} {
		if !bytes.Contains(b.Bytes(), []byte(frag)) {
			t.Errorf("table lacks %s:\n%s", frag, b.String())
		}
	}
}
