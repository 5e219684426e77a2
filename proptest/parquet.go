package proptest

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"

	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// ParquetTable is one of a case's tables written as a Parquet file.
type ParquetTable struct {
	// Table is the case's table.
	Table *plan.Table
	// Path is the file written from it, and GroupRows the rows per row
	// group (1 to 3, so that even a few rows make several groups).
	Path      string
	GroupRows int
	// Source is the file opened as a scan source.
	Source *parquet.Source
}

// WithParquet returns the case's plan with the scans of some of its tables
// reading Parquet files written from them into dir instead (percent of the
// tables, at least one when percent > 0): the same rows and schema, but
// through the Parquet source — its own decoder, row-group statistics with
// NaN, nulls and ±0.0, and pruning by Inexact conjuncts — in the executor,
// and through arrow-go's reader in the eager chain. The choice of tables
// and row-group sizes depends only on the case's seed and the table names,
// so the candidates of a shrink are backed the same way. A table with a
// pushdown policy other than the default loses it (a Parquet file
// classifies its own conjuncts). Files are named after the case's seed and
// the table; the caller removes dir.
func WithParquet(c Case, dir string, percent int) (plan.Node, []ParquetTable, error) {
	if percent <= 0 || len(c.Tables) == 0 {
		return c.Plan, nil, nil
	}
	r := rand.New(rand.NewSource(c.Seed ^ 0x5051_5241_5155_4554)) // "PQRAQUET", any fixed salt
	var chosen []ParquetTable
	remap := map[*plan.Table]plan.Source{}
	for i, t := range c.Tables {
		pick := r.Intn(100) < percent
		rows := 1 + r.Intn(3)
		if !pick && !(i == len(c.Tables)-1 && len(chosen) == 0) {
			continue
		}
		path := filepath.Join(dir, "case"+strconv.FormatInt(c.Seed, 36)+"_"+t.Name()+".parquet")
		if err := parquet.WriteTable(path, t, rows); err != nil {
			return nil, nil, err
		}
		src, err := parquet.OpenFile(t.Name(), path)
		if err != nil {
			return nil, nil, fmt.Errorf("parquet table %s: %w", t.Name(), err)
		}
		remap[t] = src
		chosen = append(chosen, ParquetTable{Table: t, Path: path, GroupRows: rows, Source: src})
	}
	root := planutil.ReplaceSources(c.Plan, func(t *plan.Table) (plan.Source, bool) {
		src, ok := remap[t]
		return src, ok
	})
	return root, chosen, nil
}
