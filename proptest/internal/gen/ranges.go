package gen

import (
	"math"
	"strconv"

	"github.com/dfopt/dfopt/plan"
)

// The range-proof templates (standard tier): the shapes range_proofs
// proves total (its cell rp.facts) and the refusals close by.
//
//	filter(k > 0) . with_columns(a * 3 + 1 as x, a / d as y) . T
//	filter(k < 2) . project(cast(a, int32) as x, cast(f, int64) as y, k) . T
//
// T is a table of its own whose facts (computed from its values) are
// small — |a| <= 1000, d in [1, 9] or [-9, -1], f in [-100.5, 100.5]
// without NaN — so the partial expressions over it are proven total and the
// filter moves below them, or large: the same table with an extreme value
// (MinInt64, MaxInt64, 2^62, 0 in d, NaN or 1e300 in f) somewhere, often
// on a row the filter removes, so that the proof fails and a mutant of
// rp.facts that trusts it anyway loses the error that row raises.

// rangeShape takes a share of the filter and project moves for the
// range-proof templates; ok is false when move m stays the generator's
// own. It draws from the random source only for those moves.
func (g *gen) rangeShape(m move, depth int) (frame, bool) {
	// The range table is a table of its own: only when the configuration
	// has room for it (a table more, five columns, a row). The chain is at
	// most four levels deep, so it is built only where the budget left is
	// about that: deep plans keep their depth.
	if g.nodesLeft <= 1 || depth < 2 || depth > 5 || len(g.tables) >= g.cfg.MaxTables || g.cfg.MaxColumns < 5 || g.cfg.MaxRows < 1 {
		return frame{}, false
	}
	switch m {
	case mFilter, mProject:
		if g.r.Intn(100) < 15 {
			return g.rangeChain(depth), true
		}
	}
	return frame{}, false
}

// rangeTable draws a table named after the generator's tables with an
// int64 column a, an int32 column c, a divisor column d that is never 0
// (int64), a float column f and a key k, values small; when large, one
// column holds an extreme value on one row.
func (g *gen) rangeTable() *plan.Table {
	rows := 1 + g.r.Intn(min(12, g.cfg.MaxRows))
	nullable := g.r.Intn(2) == 0
	a, c, d, f, k := make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows), make([]plan.Value, rows)
	sign := int64(1)
	if g.r.Intn(3) == 0 {
		sign = -1
	}
	for i := 0; i < rows; i++ {
		a[i] = plan.Int64Value(int64(g.r.Intn(2001) - 1000))
		c[i] = plan.Int32Value(int32(g.r.Intn(201) - 100))
		d[i] = plan.Int64Value(sign * int64(1+g.r.Intn(9)))
		f[i] = plan.Float64Value(float64(g.r.Intn(2011)-1005) / 10)
		k[i] = plan.Int64Value(int64(g.r.Intn(5) - 2))
		if nullable && g.r.Intn(6) == 0 {
			a[i] = plan.NullValue(plan.Int64)
		}
		if nullable && g.r.Intn(6) == 0 {
			f[i] = plan.NullValue(plan.Float64)
		}
	}
	if g.r.Intn(100) < 45 {
		// Large: one extreme value, often where k <= 0 (a row the usual
		// conjunct k > 0 removes).
		row := g.r.Intn(rows)
		switch g.r.Intn(6) {
		case 0:
			a[row] = plan.Int64Value([]int64{math.MinInt64, math.MaxInt64, 1 << 62, -(1 << 62)}[g.r.Intn(4)])
		case 1:
			a[row] = plan.Int64Value([]int64{3_000_000_000, -3_000_000_000, 1 << 40}[g.r.Intn(3)])
		case 2:
			d[row] = plan.Int64Value([]int64{0, -1}[g.r.Intn(2)])
			if g.r.Intn(2) == 0 {
				a[row] = plan.Int64Value(math.MinInt64)
			}
		case 3:
			f[row] = plan.Float64Value([]float64{math.NaN(), 1e300, -1e19, math.Inf(1), 3e9}[g.r.Intn(5)])
		case 4:
			c[row] = plan.Int32Value([]int32{math.MinInt32, math.MaxInt32}[g.r.Intn(2)])
		default:
			a[row] = plan.Int64Value(math.MaxInt64 / 2)
		}
		k[row] = plan.Int64Value(int64(-g.r.Intn(3)))
	}
	schema := plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: nullable},
		plan.Field{Name: "c", Type: plan.Int32},
		plan.Field{Name: "d", Type: plan.Int64},
		plan.Field{Name: "f", Type: plan.Float64, Nullable: nullable},
		plan.Field{Name: "k", Type: plan.Int64})
	t, err := plan.NewTable("t"+strconv.Itoa(len(g.tables)), schema, [][]plan.Value{a, c, d, f, k})
	if err != nil {
		return g.tables[0] // unreachable: the columns follow the schema
	}
	if g.r.Intn(4) == 0 {
		t = t.WithPushdown(plan.Exact)
	}
	g.tables = append(g.tables, t)
	return t
}

// rangeEntry is one partial expression over the range table's columns.
func (g *gen) rangeEntry() plan.Expr {
	mults := []int64{2, 3, -7, 1000, 1 << 20}
	adds := []int64{1, -1, 17, 1 << 30}
	switch x := g.r.Intn(100); {
	case x < 30:
		var e plan.Expr = col("a")
		for n := 1 + g.r.Intn(2); n > 0; n-- {
			if g.r.Intn(2) == 0 {
				e = call(plan.FuncMul, e, lit(plan.Int64Value(mults[g.r.Intn(len(mults))])))
			} else {
				e = call(plan.FuncAdd, e, lit(plan.Int64Value(adds[g.r.Intn(len(adds))])))
			}
		}
		return e
	case x < 42:
		return call(plan.FuncDiv, col("a"), col("d"))
	case x < 50:
		return call(plan.FuncMod, col("a"), col("d"))
	case x < 60:
		return &plan.Cast{Expr: col("a"), To: plan.Int32, Strict: true}
	case x < 70:
		return &plan.Cast{Expr: col("f"), To: []plan.Type{plan.Int64, plan.Int32}[g.r.Intn(2)], Strict: true}
	case x < 78:
		return call(plan.FuncMul, col("c"), lit(plan.Int32Value(int32([]int64{3, 1 << 20, -5}[g.r.Intn(3)]))))
	case x < 86:
		return call(plan.FuncNeg, col("a"))
	case x < 92:
		return call(plan.FuncAbs, col("c"))
	default:
		return call(plan.FuncSub, col("a"), call(plan.FuncMul, col("d"), col("c")))
	}
}

// rangeChain builds a filter over a project or with_columns of partial
// expressions over a range table, sometimes through a sort or limit, within
// depth levels.
func (g *gen) rangeChain(depth int) frame {
	in := g.scanOf(g.rangeTable())
	if depth >= 3 && g.r.Intn(4) == 0 {
		in = g.sort(in)
	}
	used := map[string]bool{}
	sc := newScope(in.schema())
	var exprs []plan.Expr
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		name := g.freshName(used, sc)
		used[name] = true
		exprs = append(exprs, alias(g.rangeEntry(), name))
	}
	var node plan.Node = &plan.WithColumnsNode{Input: in.raw, Exprs: exprs}
	if g.r.Intn(3) == 0 {
		node = &plan.ProjectNode{Input: in.raw, Exprs: append([]plan.Expr{col("k"), col("a")}, exprs...)}
	}
	mid := g.finish(node, in.rows, in)
	var pred plan.Expr
	switch x := g.r.Intn(100); {
	case x < 70:
		pred = call(plan.FuncGt, col("k"), lit(plan.Int64Value(0)))
	case x < 85:
		pred = call(plan.FuncLt, col("k"), lit(plan.Int64Value(int64(g.r.Intn(3)))))
	default:
		pred = call(plan.FuncIsNotNull, col("a"))
	}
	return g.finish(&plan.FilterNode{Input: mid.raw, Predicates: []plan.Expr{pred}}, mid.rows, mid)
}
