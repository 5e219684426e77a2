package eager

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// safeLabel is a node's explain label, defending against a panic on a
// malformed node.
func safeLabel(n plan.Node) (label string) {
	defer func() {
		if recover() != nil {
			label = fmt.Sprintf("%s <unprintable>", n.Kind())
		}
	}()
	return n.Label()
}

// apply checks and runs one operation with df as its first input and
// others after it, in df's session. node builds the equivalent plan node
// (only for its label, on error). No input is consumed; a panic in a
// kernel becomes an invalid_plan error.
func (df *DataFrame) apply(node func() plan.Node, others []*DataFrame, prep func(ins []plan.Schema) (step, error)) (out *DataFrame, err error) {
	label := func() string { return safeLabel(node()) }
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, located(internalError("panic: %v", r), label(), "")
		}
	}()
	ins := append([]*DataFrame{df}, others...)
	schemas := make([]plan.Schema, len(ins))
	for i, f := range ins {
		if err := f.live(); err != nil {
			return nil, located(err, label(), "")
		}
		schemas[i] = f.schema
	}
	st, err := prep(schemas)
	if err != nil {
		return nil, located(err, label(), "")
	}
	if err := checkCtx(df.s.ctx); err != nil {
		return nil, located(err, label(), "")
	}
	out, err = st.run(df.s, ins)
	if err != nil {
		return nil, located(err, label(), "")
	}
	return out, nil
}

// Filter keeps the rows for which every predicate is valid and true. Each
// predicate evaluates over all rows, in order, with no short-circuit.
func (df *DataFrame) Filter(preds ...plan.Expr) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.FilterNode{Predicates: preds} }, nil,
		func(in []plan.Schema) (step, error) {
			out, err := checkFilter(in[0], preds, "")
			if err != nil {
				return nil, err
			}
			return &filterStep{preds: preds, out: out}, nil
		})
}

// Select computes one column per expression (a literal broadcasts to the
// frame's height). over() is computed first, as plan.Resolve synthesizes
// it (see the package documentation).
func (df *DataFrame) Select(exprs ...plan.Expr) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.ProjectNode{Exprs: exprs} }, nil,
		func(in []plan.Schema) (step, error) { return prepareProject(in[0], exprs, "") })
}

// WithColumns adds or replaces columns: every expression reads the frame
// (a simultaneous assignment); an existing name is replaced in place, a new
// one appended. over() is computed first, as in Select.
func (df *DataFrame) WithColumns(exprs ...plan.Expr) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.WithColumnsNode{Exprs: exprs} }, nil,
		func(in []plan.Schema) (step, error) { return prepareWithColumns(in[0], in[0], exprs, "") })
}

// Window appends one column per entry, each an over() aliased to its
// column name: the window node plan.Resolve synthesizes under a project or
// with_columns, as an operation of its own. The appended columns are
// ordinary columns of the new frame, so later steps pass them through
// (FromPlan, unlike this method, knows when a with_columns sits directly
// over a synthesized window and drops them, as plan.Resolve does).
func (df *DataFrame) Window(exprs ...plan.Expr) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.WindowNode{Exprs: exprs} }, nil,
		func(in []plan.Schema) (step, error) { return prepareWindow(in[0], exprs, "") })
}

// Sort orders the rows stably by the keys (floats by the total order,
// nulls first unless NullsLast; desc does not move nulls).
func (df *DataFrame) Sort(keys ...plan.SortKey) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.SortNode{Keys: keys} }, nil,
		func(in []plan.Schema) (step, error) {
			out, err := checkSort(in[0], keys, "")
			if err != nil {
				return nil, err
			}
			return &sortStep{keys: keys, out: out}, nil
		})
}

// Head keeps the first n rows (n must not be negative).
func (df *DataFrame) Head(n int64) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.LimitNode{N: n} }, nil,
		func(in []plan.Schema) (step, error) {
			out, err := checkLimit(in[0], n, "")
			if err != nil {
				return nil, err
			}
			return &sliceStep{offset: 0, length: n, out: out}, nil
		})
}

// Slice keeps rows [offset, offset+length), clamped to the frame (neither
// may be negative).
func (df *DataFrame) Slice(offset, length int64) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.SliceNode{Offset: offset, Len: length} }, nil,
		func(in []plan.Schema) (step, error) {
			out, err := checkSlice(in[0], offset, length, "")
			if err != nil {
				return nil, err
			}
			return &sliceStep{offset: offset, length: length, out: out}, nil
		})
}

// GroupBy is a pending aggregation of a frame; finish it with Agg.
type GroupBy struct {
	df   *DataFrame
	keys []plan.Expr
}

// GroupBy starts an aggregation by the given key expressions.
func (df *DataFrame) GroupBy(keys ...plan.Expr) *GroupBy {
	return &GroupBy{df: df, keys: keys}
}

// Agg computes the aggregates per group: groups in first-appearance order,
// keys first in the output, then the aggregates in list order.
func (g *GroupBy) Agg(aggs ...plan.Expr) (*DataFrame, error) {
	if g == nil {
		return nil, internalError("Agg on a nil GroupBy")
	}
	keys := g.keys
	return g.df.apply(func() plan.Node { return &plan.AggregateNode{Keys: keys, Aggs: aggs} }, nil,
		func(in []plan.Schema) (step, error) {
			out, err := checkAggregate(in[0], keys, aggs, "")
			if err != nil {
				return nil, err
			}
			return &aggregateStep{keys: keys, aggs: aggs, out: out}, nil
		})
}

// Agg computes aggregates over the whole frame: exactly one row, also for
// an empty frame (count and len 0, the other aggregates null).
func (df *DataFrame) Agg(aggs ...plan.Expr) (*DataFrame, error) {
	return df.GroupBy().Agg(aggs...)
}

// Join joins df (left) with right on pairwise-equal keys (none for a cross
// join), in the output order docs/semantics.md gives per kind. suffix ("" =
// plan.DefaultJoinSuffix) renames colliding right columns.
func (df *DataFrame) Join(right *DataFrame, how plan.JoinKind, leftOn, rightOn []plan.Expr, suffix string) (*DataFrame, error) {
	return df.apply(func() plan.Node {
		return &plan.JoinNode{How: how, LeftOn: leftOn, RightOn: rightOn, Suffix: suffix}
	}, []*DataFrame{right},
		func(in []plan.Schema) (step, error) {
			return prepareJoin(in[0], in[1], how, leftOn, rightOn, suffix, "")
		})
}

func prepareJoin(ls, rs plan.Schema, how plan.JoinKind, leftOn, rightOn []plan.Expr, suffix, p string) (step, error) {
	layout, err := checkJoin(ls, rs, how, leftOn, rightOn, suffix, p)
	if err != nil {
		return nil, err
	}
	return &joinStep{how: how, leftOn: leftOn, rightOn: rightOn, layout: layout}, nil
}

// Concat is the union: df's rows, then each other frame's, in order. The
// frames must have the same column names and types; a column is nullable
// when it is in any input.
func (df *DataFrame) Concat(others ...*DataFrame) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.UnionNode{} }, others,
		func(in []plan.Schema) (step, error) {
			out, err := checkUnion(in, "")
			if err != nil {
				return nil, err
			}
			return &unionStep{out: out}, nil
		})
}

// Distinct keeps the first row of each distinct combination of the named
// columns (all columns when none are named), in input order. Keys compare
// with all NaNs equal, -0.0 equal to +0.0 and nulls equal.
func (df *DataFrame) Distinct(subset ...string) (*DataFrame, error) {
	return df.apply(func() plan.Node { return &plan.DistinctNode{Subset: subset} }, nil,
		func(in []plan.Schema) (step, error) {
			out, err := checkDistinct(in[0], subset, "")
			if err != nil {
				return nil, err
			}
			return &distinctStep{subset: subset, out: out}, nil
		})
}

// Extension applies a host-defined operator, declared by def, to df and any
// further frames, through the session's Extensions registry. Its output
// schema is def.OutputSchema of the inputs' (the first input's when nil).
func (df *DataFrame) Extension(def *plan.ExtensionDef, others ...*DataFrame) (*DataFrame, error) {
	node := &plan.ExtensionNode{Def: def}
	return df.apply(func() plan.Node { return node }, others,
		func(in []plan.Schema) (step, error) {
			out, err := checkExtension(def, in, "")
			if err != nil {
				return nil, err
			}
			return &extensionStep{node: node, out: out}, nil
		})
}
