package exec

import (
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// TestArrowSourceFacts: an Arrow source's facts (computed over all its
// batches when it is made) are exactly plan.ComputeFacts of its values —
// nulls, NaN payloads, -0.0, extremes, several batches — and survive the
// source's Release.
func TestArrowSourceFacts(t *testing.T) {
	schema := plan.MustSchema(plan.Field{Name: "i", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "j", Type: plan.Int32, Nullable: true}, plan.Field{Name: "f", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "s", Type: plan.String, Nullable: true})
	params := gopter.DefaultTestParametersWithSeed(20261201)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	props.Property("arrow facts equal plan.ComputeFacts", prop.ForAll(func(seed int64) (bool, error) {
		r := rand.New(rand.NewSource(seed))
		var recs []arrow.RecordBatch
		all := make([][]plan.Value, schema.Len())
		for b := r.Intn(3); b >= 0; b-- {
			rows := r.Intn(6)
			cols := make([][]plan.Value, schema.Len())
			for k := 0; k < rows; k++ {
				vals := []plan.Value{
					plan.Int64Value([]int64{math.MinInt64, -3, 0, 7, math.MaxInt64}[r.Intn(5)]),
					plan.Int32Value([]int32{math.MinInt32, -1, 5, math.MaxInt32}[r.Intn(4)]),
					plan.Float64Value([]float64{math.NaN(), math.Copysign(0, -1), 0, 2.5, math.Inf(-1), -1e300}[r.Intn(6)]),
					plan.StringValue("x"),
				}
				for c := range vals {
					if r.Intn(4) == 0 {
						vals[c] = plan.NullValue(schema.Field(c).Type)
					}
					cols[c] = append(cols[c], vals[c])
					all[c] = append(all[c], vals[c])
				}
			}
			tbl, err := plan.NewTable("t", schema, cols)
			if err != nil {
				return false, err
			}
			rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
			if err != nil {
				return false, err
			}
			recs = append(recs, rec)
		}
		at := array.NewTableFromRecords(recs[0].Schema(), recs)
		for _, rec := range recs {
			rec.Release()
		}
		src, err := NewArrowSource("t", at)
		at.Release()
		if err != nil {
			return false, err
		}
		src.Release()
		for c, f := range schema.Fields() {
			got, ok := src.ColumnFacts(f.Name)
			want := plan.ComputeFacts(f.Type, all[c])
			if !ok || got.HasRange != want.HasRange || got.NullCount != want.NullCount || got.NaNFree != want.NaNFree ||
				(want.HasRange && (!got.Min.Identical(want.Min) || !got.Max.Identical(want.Max))) {
				t.Logf("seed %d column %s: got %v, want %v", seed, f.Name, got, want)
				return false, nil
			}
		}
		return true, nil
	}, gen.Int64()))
	props.TestingRun(t)
}
