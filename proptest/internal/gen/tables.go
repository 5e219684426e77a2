package gen

import (
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// columnNames is the pool of source column names: short, and shared between
// tables so that joins meet colliding names (suffixes, dropped keys).
var columnNames = []string{"a", "b", "c", "d", "k", "s", "x", "y", "v", "w"}

// typeWeights skews column types toward int64 (the UDFs' type) while
// keeping every type common; the temporal types make up 18 of 132, the
// narrower numeric types (int8 ... float32) 14.
var typeWeights = []struct {
	t plan.Type
	w int
}{{plan.Int64, 30}, {plan.Int32, 15}, {plan.Float64, 20}, {plan.String, 20}, {plan.Bool, 15},
	{plan.Date, 8}, {plan.Datetime, 6}, {plan.Duration, 4},
	{plan.Int8, 2}, {plan.Int16, 2}, {plan.Uint8, 2}, {plan.Uint16, 2}, {plan.Uint32, 2}, {plan.Uint64, 2}, {plan.Float32, 2}}

// typeWeightTotal is the sum of typeWeights.
const typeWeightTotal = 132

func (g *gen) columnType() plan.Type {
	x := g.r.Intn(typeWeightTotal)
	for _, tw := range typeWeights {
		if x < tw.w {
			return tw.t
		}
		x -= tw.w
	}
	return plan.Int64
}

// pickRows chooses a table's row count, skewed small: empty tables and one
// to three rows are common, larger tables up to cfg.MaxRows.
func (g *gen) pickRows() int {
	maxRows := g.cfg.MaxRows
	if maxRows <= 0 {
		return 0
	}
	x := g.r.Intn(100)
	switch {
	case x < 8:
		return 0
	case x < 28:
		return 1 + g.r.Intn(min(3, maxRows))
	case x < 68 || maxRows <= 16:
		return 1 + g.r.Intn(min(16, maxRows))
	default:
		return 17 + g.r.Intn(maxRows-16)
	}
}

// genTables draws one to cfg.MaxTables tables named t0, t1, t2.
func (g *gen) genTables() {
	n := 1
	switch x := g.r.Intn(100); {
	case x < 25:
		n = 3
	case x < 60:
		n = 2
	}
	n = min(n, g.cfg.MaxTables)
	for i := 0; i < n; i++ {
		g.tables = append(g.tables, g.table(i))
	}
}

// table draws one table. Later tables reuse some of the first table's
// column names (usually with the same type) to provoke join-suffix
// collisions and make same-name join keys common.
func (g *gen) table(i int) *plan.Table {
	ncols := 1 + g.r.Intn(min(5, g.cfg.MaxColumns))
	if g.r.Intn(100) < 30 {
		ncols = 1 + g.r.Intn(g.cfg.MaxColumns)
	}
	fields := make([]plan.Field, 0, ncols)
	used := map[string]bool{}
	if i > 0 && g.r.Intn(2) == 0 {
		first := g.tables[0].Schema()
		share := 1 + g.r.Intn(min(ncols, first.Len()))
		perm := g.r.Perm(first.Len())
		for _, j := range perm[:share] {
			f := first.Field(j)
			if g.r.Intn(100) < 30 {
				f.Type = g.columnType()
			}
			f.Nullable = g.r.Intn(100) < 70
			fields = append(fields, f)
			used[f.Name] = true
		}
	}
	perm := g.r.Perm(len(columnNames))
	for _, j := range perm {
		if len(fields) >= ncols {
			break
		}
		name := columnNames[j]
		if used[name] {
			continue
		}
		used[name] = true
		fields = append(fields, plan.Field{Name: name, Type: g.columnType(), Nullable: g.r.Intn(100) < 70})
	}
	name := "t" + strconv.Itoa(i)
	schema, err := plan.NewSchema(fields...)
	if err != nil {
		schema = plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64, Nullable: true})
		fields = schema.Fields()
	}
	rows := g.pickRows()
	cols := g.columns(fields, rows)
	t, err := plan.NewTable(name, schema, cols)
	if err != nil {
		// Unreachable: the columns are built from the schema. Fall back to
		// an empty table rather than panic.
		empty := make([][]plan.Value, len(fields))
		t, _ = plan.NewTable(name, schema, empty)
	}
	// Some tables accept pushed comparisons, so that scan pushdown (cell
	// pp.scan) both fires and refuses: Exact ones are filtered exactly by
	// the executor, Inexact ones return every row. A few accept every
	// conjunct Exact (exact_all), partial ones included, so that two
	// filters' conjuncts meet in one pushed list (cell pp.scan.merge). A
	// few are zone maps: they skip row groups by comparisons (Inexact)
	// before they apply every other conjunct Exact, so an Inexact conjunct
	// pushed beside an Exact one that raises loses its error (cell
	// pp.scan.skip).
	switch r := g.r.Intn(16); {
	case r < 5:
		t = t.WithPushdown(plan.Exact)
	case r < 7:
		t = t.WithExactAllPushdown()
	case r < 10:
		t = t.WithPushdown(plan.Inexact)
	case r < 12:
		t = t.WithZoneMaps(1 + g.r.Intn(3))
	}
	return t
}
