package dfopt_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/exec"
	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
)

// TestParquetNarrowNumeric: int8, int16, uint8, uint16, uint32, uint64
// and float32 columns written to Parquet (INT32 with INT(8/16, signed),
// INT(8/16/32, unsigned), INT64 with INT(64, unsigned), FLOAT) read back
// with their types and bits over several row groups: each type's extremes,
// nulls, and float32's NaN payloads, -0.0 and infinities.
func TestParquetNarrowNumeric(t *testing.T) {
	const n, group = 300, 64
	types := []plan.Type{plan.Int8, plan.Int16, plan.Uint8, plan.Uint16, plan.Uint32, plan.Uint64, plan.Float32}
	f32s := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32,
		math.SmallestNonzeroFloat32, math.Float32frombits(0x7fc00123), math.Float32frombits(0xff800001), 0.1}
	fields := make([]plan.Field, len(types))
	cols := make([][]plan.Value, len(types))
	for c, ty := range types {
		fields[c] = plan.Field{Name: ty.String(), Type: ty, Nullable: true}
		lo, hi, _ := plan.IntRange(ty)
		for i := 0; i < n; i++ {
			var v plan.Value
			switch {
			case i%13 == 5:
				v = plan.NullValue(ty)
			case ty == plan.Float32:
				v = plan.Float32Value(f32s[i%len(f32s)])
			case i%3 == 0:
				v, _ = plan.IntValue(ty, lo)
			case i%3 == 1:
				v, _ = plan.UintValue(ty, hi)
			default:
				v, _ = plan.UintValue(ty, uint64(i)%hi)
			}
			cols[c] = append(cols[c], v)
		}
	}
	tbl, err := plan.NewTable("t", plan.MustSchema(fields...), cols)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := dfparquet.WriteTable(path, tbl, group); err != nil {
		t.Fatal(err)
	}
	src, err := dfparquet.OpenFile("t", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Schema().Equal(tbl.Schema()) {
		t.Fatalf("schema read back %s, want %s", src.Schema(), tbl.Schema())
	}
	r, err := exec.Collect(context.Background(), plan.Scan(src).Node(), exec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	got, err := r.Columns()
	if err != nil {
		t.Fatal(err)
	}
	for c := range cols {
		for i := range cols[c] {
			if !got[c][i].Identical(cols[c][i]) {
				t.Fatalf("%s row %d: read back %v, wrote %v", types[c], i, got[c][i], cols[c][i])
			}
		}
	}
}
