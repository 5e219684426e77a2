package gen

import (
	"github.com/dfopt/dfopt/plan"
)

// The string, set and range functions (docs/semantics.md, Strings; Sets
// and ranges). None can raise, so every mode but the bounded one allows
// them; their operands follow the context's mode.

// strPatterns are the second operands of the string tests and replace:
// empty, multi-byte, partial and invalid UTF-8, and the LIKE wildcards,
// also escaped with "!".
var strPatterns = []string{"", "a", "é", "ß", "A", "ab", "\xc3", "\xff", "%", "_", "%a%", "a%", "%é", "_b%",
	"%_", "a_c", "%!%%", "!_", "!", "%%", "é%\xff", "1"}

// stripSets are strip's character sets.
var stripSets = []string{"", "a", "aé", " ", "\xff", "%_", "ab1"}

// pattern is a pattern operand: mostly a literal from strPatterns, else
// any string expression (a per-row pattern).
func (g *gen) pattern(c ectx, depth int) plan.Expr {
	if g.r.Intn(100) < 75 {
		return lit(plan.StringValue(strPatterns[g.r.Intn(len(strPatterns))]))
	}
	return g.expr(c, plan.String, depth-1)
}

// strTest generates starts_with, ends_with, contains or like (with or
// without the escape "!").
func (g *gen) strTest(c ectx, depth int) plan.Expr {
	s := g.expr(c, plan.String, depth-1)
	switch g.r.Intn(5) {
	case 0:
		return call(plan.FuncStartsWith, s, g.pattern(c, depth))
	case 1:
		return call(plan.FuncEndsWith, s, g.pattern(c, depth))
	case 2:
		return call(plan.FuncContains, s, g.pattern(c, depth))
	}
	if g.r.Intn(3) == 0 {
		return call(plan.FuncLike, s, g.pattern(c, depth), lit(plan.StringValue("!")))
	}
	return call(plan.FuncLike, s, g.pattern(c, depth))
}

// isIn generates is_in over a column-typed operand and zero to five
// literals of its type (sometimes a promoting numeric type, sometimes null).
func (g *gen) isIn(c ectx, depth int) plan.Expr {
	t := g.colType(c.sc)
	args := []plan.Expr{g.expr(c, t, depth-1)}
	for n := g.r.Intn(6); n > 0; n-- {
		lt := t
		if t.IsNumeric() && g.r.Intn(4) == 0 {
			lt = g.comparableWith(t)
		}
		v := g.literal(lt)
		if g.r.Intn(8) == 0 {
			v = plan.NullValue(lt)
		}
		args = append(args, lit(v))
	}
	return call(plan.FuncIsIn, args...)
}

// between generates between with bounds of x's type or a promoting one,
// usually literals.
func (g *gen) between(c ectx, depth int) plan.Expr {
	t := g.colType(c.sc)
	bound := func() plan.Expr {
		bt := t
		if t.IsNumeric() && g.r.Intn(3) == 0 {
			bt = g.comparableWith(t)
		}
		if g.r.Intn(100) < 70 {
			return lit(g.literal(bt))
		}
		return g.expr(c, bt, depth-1)
	}
	x := g.expr(c, t, depth-1)
	lo := bound()
	return call(plan.FuncBetween, x, lo, bound())
}

// strFunc generates lower, upper, substring, replace, replace_all or strip.
func (g *gen) strFunc(c ectx, depth int) plan.Expr {
	s := g.expr(c, plan.String, depth-1)
	switch g.r.Intn(6) {
	case 0:
		return call(plan.FuncLower, s)
	case 1:
		return call(plan.FuncUpper, s)
	case 2:
		it := plan.Int64
		if g.r.Intn(3) == 0 {
			it = plan.Int32
		}
		start := g.expr(c, it, depth-1)
		if g.r.Intn(2) == 0 {
			start = lit(plan.Int64Value(int64(g.r.Intn(9) - 4)))
		}
		if g.r.Intn(3) == 0 {
			return call(plan.FuncSubstring, s, start)
		}
		length := g.expr(c, it, depth-1)
		if g.r.Intn(2) == 0 {
			length = lit(plan.Int64Value(int64(g.r.Intn(6) - 1)))
		}
		return call(plan.FuncSubstring, s, start, length)
	case 3, 4:
		fn := plan.FuncReplace
		if g.r.Intn(2) == 0 {
			fn = plan.FuncReplaceAll
		}
		return call(fn, s, g.pattern(c, depth), g.pattern(c, depth))
	}
	if g.r.Intn(2) == 0 {
		return call(plan.FuncStrip, s)
	}
	if g.r.Intn(4) == 0 {
		return call(plan.FuncStrip, s, g.expr(c, plan.String, depth-1))
	}
	return call(plan.FuncStrip, s, lit(plan.StringValue(stripSets[g.r.Intn(len(stripSets))])))
}
