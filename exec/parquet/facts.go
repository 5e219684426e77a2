package parquet

import (
	"math"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/dfopt/dfopt/plan"
)

// ColumnFacts returns what the file's row-group statistics, read when the
// source was opened, say of the column named column (plan.FactsReporter):
// for an int32, int64 or float64 column whose every row group has
// statistics, the range of its non-null values (the union of the groups'
// min/max) and its null count when every group has one. A float column is
// never stated free of NaN: Parquet's min/max leave NaN out and nothing
// records whether one occurs. A group whose float bounds are NaN, or which
// has values but no min/max, gives the column no range. The range is over
// every row of the file, so it holds whatever rows a scan reads; a file
// rewritten since it was opened may break it, which the executor's check
// of the plan's assumptions then reports.
func (s *Source) ColumnFacts(column string) (plan.ColumnFacts, bool) {
	f, ok := s.facts[column]
	return f, ok
}

// parquetFacts reads the facts of every int32, int64 and float64 column of
// the file from its row-group statistics (see Source.ColumnFacts).
// The file's columns are flat: field i is leaf i.
func parquetFacts(rdr *file.Reader, schema plan.Schema, leaves [][]int) map[string]plan.ColumnFacts {
	md := rdr.MetaData()
	out := map[string]plan.ColumnFacts{}
	for i, field := range schema.Fields() {
		if field.Type != plan.Int32 && field.Type != plan.Int64 && field.Type != plan.Float64 {
			continue
		}
		if f, ok := chunkFacts(md, leaves[i][0], field.Type); ok {
			out[field.Name] = f
		}
	}
	return out
}

// chunkFacts merges the statistics of leaf column i over every row group.
func chunkFacts(md *metadata.FileMetaData, i int, t plan.Type) (plan.ColumnFacts, bool) {
	return groupsFacts(md, 0, md.NumRowGroups(), i, t)
}

// groupsFacts merges the statistics of leaf column i over the row groups
// [from, to).
func groupsFacts(md *metadata.FileMetaData, from, to, i int, t plan.Type) (plan.ColumnFacts, bool) {
	f := plan.ColumnFacts{HasNullCount: true}
	var ilo, ihi int64
	var flo, fhi float64
	have := false
	for g := from; g < to; g++ {
		rg := md.RowGroup(g)
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			return plan.ColumnFacts{}, false
		}
		set, err := cc.StatsSet()
		if err != nil || !set {
			return plan.ColumnFacts{}, false
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			return plan.ColumnFacts{}, false
		}
		if st.HasNullCount() {
			f.NullCount += st.NullCount()
		} else {
			f.HasNullCount = false
		}
		if !st.HasMinMax() {
			if st.HasNullCount() && st.NullCount() == rg.NumRows() {
				continue // only nulls: nothing to bound
			}
			return plan.ColumnFacts{}, false
		}
		switch s := st.(type) {
		case *metadata.Int32Statistics:
			if t != plan.Int32 {
				return plan.ColumnFacts{}, false
			}
			lo, hi := int64(s.Min()), int64(s.Max())
			if !have || lo < ilo {
				ilo = lo
			}
			if !have || hi > ihi {
				ihi = hi
			}
		case *metadata.Int64Statistics:
			if t != plan.Int64 {
				return plan.ColumnFacts{}, false
			}
			lo, hi := s.Min(), s.Max()
			if !have || lo < ilo {
				ilo = lo
			}
			if !have || hi > ihi {
				ihi = hi
			}
		case *metadata.Float64Statistics:
			if t != plan.Float64 {
				return plan.ColumnFacts{}, false
			}
			lo, hi := s.Min(), s.Max()
			if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
				return plan.ColumnFacts{}, false
			}
			if !have || lo < flo {
				flo = lo
			}
			if !have || hi > fhi {
				fhi = hi
			}
		default:
			return plan.ColumnFacts{}, false
		}
		have = true
	}
	if !f.HasNullCount {
		f.NullCount = 0
	}
	if !have {
		return f, true
	}
	f.HasRange = true
	switch t {
	case plan.Int32:
		if ilo > ihi {
			return plan.ColumnFacts{}, false
		}
		f.Min, f.Max = plan.Int32Value(int32(ilo)), plan.Int32Value(int32(ihi))
	case plan.Int64:
		if ilo > ihi {
			return plan.ColumnFacts{}, false
		}
		f.Min, f.Max = plan.Int64Value(ilo), plan.Int64Value(ihi)
	default:
		// -0.0 and +0.0 are one bound (IEEE comparison).
		f.Min, f.Max = plan.Float64Value(flo+0), plan.Float64Value(fhi+0)
	}
	return f, true
}
