//go:build computebench

// This file measures arrow/compute's take and filter against the
// hand-written kernels on the same 1M-row inputs, which is the evidence the
// design asks for before preferring either. It is behind a build tag because
// compiling arrow/compute costs minutes: run it with
//
//	go test -tags computebench -run XXX -bench Compute ./exec/ops/
package ops

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

func BenchmarkComputeTake(b *testing.B) {
	rng := rand.New(rand.NewSource(4))
	random := make([]int32, benchRows)
	for i := range random {
		random[i] = int32(rng.Intn(benchRows))
	}
	ib := array.NewInt32Builder(benchMem)
	ib.AppendValues(random, nil)
	idxArr := ib.NewArray()
	ib.Release()
	defer idxArr.Release()
	ints := benchInt64(benchRows, 0, 0)
	defer ints.Release()
	strs := benchString(benchRows, 0)
	defer strs.Release()
	ctx := compute.WithAllocator(context.Background(), benchMem)
	for _, tc := range []struct {
		name string
		arr  arrow.Array
	}{{"int64", ints}, {"string", strs}} {
		b.Run(tc.name+"/compute", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := compute.TakeArray(ctx, tc.arr, idxArr)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			perRow(b, benchRows)
		})
		b.Run(tc.name+"/ops", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := Take(benchMem, tc.arr, random)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			perRow(b, benchRows)
		})
	}
}

func BenchmarkComputeFilter(b *testing.B) {
	rng := rand.New(rand.NewSource(5))
	mb := array.NewBooleanBuilder(benchMem)
	for i := 0; i < benchRows; i++ {
		mb.Append(rng.Intn(2) == 0)
	}
	mask := mb.NewArray()
	mb.Release()
	defer mask.Release()
	ints := benchInt64(benchRows, 0, 0)
	defer ints.Release()
	floats := benchFloat64(benchRows, 0)
	defer floats.Release()
	strs := benchString(benchRows, 0)
	defer strs.Release()
	rec := record(ints, floats, strs)
	defer rec.Release()
	ctx := compute.WithAllocator(context.Background(), benchMem)
	b.Run("int64_float64_string/compute", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, err := compute.FilterRecordBatch(ctx, rec, mask, compute.DefaultFilterOptions())
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
		perRow(b, benchRows)
	})
	b.Run("int64_float64_string/ops", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, err := FilterRecord(benchMem, rec, mask)
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
		perRow(b, benchRows)
	})
}
