package kernel

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// benchTemporalBatch builds benchRows rows of x (int32) and d (date32)
// holding the same days (1990-01-01 ... 1999-12-31, uniform), m
// (timestamp[us]) an instant of d's day, and u (duration[us]) within ±30
// days, with nullPct percent nulls.
func benchTemporalBatch(b *testing.B, nullPct int) arrow.RecordBatch {
	b.Helper()
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	days := make([]int32, benchRows)
	valid := make([]bool, benchRows)
	for i := range days {
		days[i] = 7305 + int32(r.Intn(3652))
		valid[i] = r.Intn(100) >= nullPct
	}
	xb := array.NewInt32Builder(mem)
	defer xb.Release()
	xb.AppendValues(days, valid)
	db := array.NewDate32Builder(mem)
	defer db.Release()
	mb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
	defer mb.Release()
	ub := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: arrow.Microsecond})
	defer ub.Release()
	for i, d := range days {
		if !valid[i] {
			db.AppendNull()
			mb.AppendNull()
			ub.AppendNull()
			continue
		}
		db.Append(arrow.Date32(d))
		mb.Append(arrow.Timestamp(int64(d)*plan.MicrosPerDay + r.Int63n(plan.MicrosPerDay)))
		ub.Append(arrow.Duration(r.Int63n(60*plan.MicrosPerDay) - 30*plan.MicrosPerDay))
	}
	cols := []arrow.Array{xb.NewArray(), db.NewArray(), mb.NewArray(), ub.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "m", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "u", Type: arrow.FixedWidthTypes.Duration_us, Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, benchRows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// benchTemporal times Eval of e over benchTemporalBatch, as benchEval does.
func benchTemporal(b *testing.B, e plan.E, bytesPerRow int64) {
	benchEvalOn(b, benchTemporalBatch, e, bytesPerRow)
}

// BenchmarkCmpInt32Lit is the old kernel the date comparison runs on: an
// int32 column against a literal.
func BenchmarkCmpInt32Lit(b *testing.B) { benchTemporal(b, col("x").Lt(lit(int32(8970))), 4) }

// BenchmarkCmpDateLit compares a date column with a date literal (the
// TPC-H filter's conjunct).
func BenchmarkCmpDateLit(b *testing.B) {
	benchTemporal(b, col("d").Lt(plan.DateLit("1994-07-22")), 4)
}

// BenchmarkYearDate extracts the calendar year of a date column.
func BenchmarkYearDate(b *testing.B) { benchTemporal(b, col("d").Year(), 4) }

// BenchmarkYearDatetime extracts the calendar year of a datetime column.
func BenchmarkYearDatetime(b *testing.B) { benchTemporal(b, col("m").Year(), 8) }

// BenchmarkDateAddDuration adds a duration column to a date column
// (checked: temporal_out_of_range).
func BenchmarkDateAddDuration(b *testing.B) { benchTemporal(b, col("d").Add(col("u")), 12) }

// BenchmarkDatetimeAddDuration adds a duration column to a datetime
// column (checked int64 addition).
func BenchmarkDatetimeAddDuration(b *testing.B) { benchTemporal(b, col("m").Add(col("u")), 16) }
