package eager

import (
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// apply checks and runs one operation with df as its first input and
// others after it, in df's session. build makes the equivalent plan node
// over placeholder scans standing for the inputs; plan.Resolve checks it
// (so the operation reports plan's error, kind and expression, and computes
// plan's schema, synthesizing the window an over() needs), and the
// resolved node runs at once over the frames. No input is consumed; a
// panic becomes an invalid_plan error.
func (df *DataFrame) apply(others []*DataFrame, build func(ins []plan.Node) plan.Node) (out *DataFrame, err error) {
	ins := append([]*DataFrame{df}, others...)
	leaves := make([]plan.Node, len(ins))
	for i, f := range ins {
		leaves[i] = &plan.ScanNode{Source: &input{i: i, schema: f.Schema()}, SourceSchema: f.Schema()}
	}
	node := build(leaves)
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, step.Locate(internalError("%v", step.Recovered("eager step", r)), step.Label(node), "")
		}
	}()
	for _, f := range ins {
		if err := f.live(); err != nil {
			return nil, step.Locate(err, step.Label(node), "")
		}
	}
	resolved, err := plan.Resolve(node)
	if err != nil {
		return nil, relative(err)
	}
	if err := df.s.env.CheckCtx(); err != nil {
		return nil, step.Locate(err, step.Label(node), "")
	}
	return df.s.run(resolved, &runner{inputs: ins})
}

// Filter keeps the rows for which every predicate is valid and true. Each
// predicate evaluates over all rows, in order, with no short-circuit.
func (df *DataFrame) Filter(preds ...plan.Expr) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.FilterNode{Input: in[0], Predicates: preds}
	})
}

// Select computes one column per expression (a literal broadcasts to the
// frame's height). over() is computed first, as plan.Resolve synthesizes
// it (see the package documentation).
func (df *DataFrame) Select(exprs ...plan.Expr) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.ProjectNode{Input: in[0], Exprs: exprs}
	})
}

// WithColumns adds or replaces columns: every expression reads the frame
// (a simultaneous assignment); an existing name is replaced in place, a new
// one appended. over() is computed first, as in Select.
func (df *DataFrame) WithColumns(exprs ...plan.Expr) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.WithColumnsNode{Input: in[0], Exprs: exprs}
	})
}

// Window appends one column per entry, each an over() aliased to its
// column name: the window node plan.Resolve synthesizes under a project or
// with_columns, as an operation of its own. The appended columns are
// ordinary columns of the new frame, so later steps pass them through
// (FromPlan, unlike this method, knows when a with_columns sits directly
// over a synthesized window and drops them, as plan.Resolve does). Since
// plan.Resolve accepts a window node only under an owner
// (plan.OwnedWindow), the step is the window under a project that passes
// every column through.
func (df *DataFrame) Window(exprs ...plan.Expr) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		names := df.Schema().Names()
		all := make([]plan.Expr, 0, len(names)+len(exprs))
		for _, n := range names {
			all = append(all, &plan.Column{Name: n})
		}
		for _, e := range exprs {
			if e != nil {
				all = append(all, &plan.Column{Name: plan.OutputName(e)})
			}
		}
		return &plan.ProjectNode{Input: &plan.WindowNode{Input: in[0], Exprs: exprs}, Exprs: all}
	})
}

// Sort orders the rows stably by the keys (floats by the total order,
// nulls first unless NullsLast; desc does not move nulls).
func (df *DataFrame) Sort(keys ...plan.SortKey) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.SortNode{Input: in[0], Keys: keys}
	})
}

// Head keeps the first n rows (n must not be negative).
func (df *DataFrame) Head(n int64) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.LimitNode{Input: in[0], N: n}
	})
}

// Slice keeps rows [offset, offset+length), clamped to the frame; a
// negative length keeps every row from offset to the end (offset must not
// be negative).
func (df *DataFrame) Slice(offset, length int64) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.SliceNode{Input: in[0], Offset: offset, Len: length}
	})
}

// Tail keeps the last n rows, in frame order (n must not be negative).
func (df *DataFrame) Tail(n int64) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.TailNode{Input: in[0], N: n}
	})
}

// Reverse yields the rows in the opposite order.
func (df *DataFrame) Reverse() (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.ReverseNode{Input: in[0]}
	})
}

// WithRowIndex prepends the non-null int64 column name numbering the rows
// from offset in frame order (name must be new, offset not negative).
func (df *DataFrame) WithRowIndex(name string, offset int64) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.RowIndexNode{Input: in[0], Name: name, Offset: offset}
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
	return g.df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.AggregateNode{Input: in[0], Keys: keys, Aggs: aggs}
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
	return df.apply([]*DataFrame{right}, func(in []plan.Node) plan.Node {
		return &plan.JoinNode{Left: in[0], Right: in[1], How: how, LeftOn: leftOn, RightOn: rightOn, Suffix: suffix}
	})
}

// JoinWith is Join with the join's options (docs/semantics.md, join
// options): coalesce, nulls_equal, validate and a semi or anti join's
// residual over the pair schema.
func (df *DataFrame) JoinWith(right *DataFrame, how plan.JoinKind, leftOn, rightOn []plan.Expr, suffix string, o plan.JoinOptions) (*DataFrame, error) {
	return df.apply([]*DataFrame{right}, func(in []plan.Node) plan.Node {
		return &plan.JoinNode{Left: in[0], Right: in[1], How: how, LeftOn: leftOn, RightOn: rightOn, Suffix: suffix,
			Coalesce: o.Coalesce, NullsEqual: o.NullsEqual, Validate: o.Validate, Residual: o.Residual.Expr()}
	})
}

// ConcatDiagonal is the diagonal union: df's rows, then each other frame's,
// the frames' columns in order of first appearance and a column a frame
// lacks null in its rows; a name must have one type in every frame.
func (df *DataFrame) ConcatDiagonal(others ...*DataFrame) (*DataFrame, error) {
	return df.apply(others, func(in []plan.Node) plan.Node {
		return &plan.UnionNode{Inputs: in, Diagonal: true}
	})
}

// JoinAsof joins every row of df, in order, with at most one row of right:
// the nearest by the key o names (docs/semantics.md, asof_join); both
// frames must be sorted on it within each by-group, which is verified.
func (df *DataFrame) JoinAsof(right *DataFrame, o plan.AsofOptions) (*DataFrame, error) {
	return df.apply([]*DataFrame{right}, func(in []plan.Node) plan.Node {
		return plan.FromNode(in[0]).JoinAsof(plan.FromNode(in[1]), o).Node()
	})
}

// GroupByDynamic aggregates over the windows of the index column on the
// grid offset + k × every (docs/semantics.md, temporal_group).
func (df *DataFrame) GroupByDynamic(index string, every plan.Expr, o plan.WindowOptions, aggs ...plan.Expr) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return plan.FromNode(in[0]).GroupByDynamic(index, plan.Wrap(every), o, wrapAll(aggs)...).Node()
	})
}

// Rolling aggregates, for every row, over the rows of its by-group whose
// index lies within period of its own (docs/semantics.md, temporal_group).
func (df *DataFrame) Rolling(index string, period plan.Expr, o plan.WindowOptions, aggs ...plan.Expr) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return plan.FromNode(in[0]).Rolling(index, plan.Wrap(period), o, wrapAll(aggs)...).Node()
	})
}

// wrapAll lifts expressions into the fluent API.
func wrapAll(xs []plan.Expr) []plan.E {
	out := make([]plan.E, len(xs))
	for i, x := range xs {
		out[i] = plan.Wrap(x)
	}
	return out
}

// Concat is the union: df's rows, then each other frame's, in order. The
// frames must have the same column names and types; a column is nullable
// when it is in any input.
func (df *DataFrame) Concat(others ...*DataFrame) (*DataFrame, error) {
	return df.apply(others, func(in []plan.Node) plan.Node {
		return &plan.UnionNode{Inputs: in}
	})
}

// HStack places the frames side by side, df's columns first: the frames
// must have equal heights (invalid_input otherwise) and distinct names.
func (df *DataFrame) HStack(others ...*DataFrame) (*DataFrame, error) {
	return df.apply(others, func(in []plan.Node) plan.Node {
		return &plan.HStackNode{Inputs: in}
	})
}

// MergeSorted merges df and other, both sorted ascending on the column key
// with nulls first (verified: invalid_input otherwise), df's rows first on
// equal keys.
func (df *DataFrame) MergeSorted(other *DataFrame, key string) (*DataFrame, error) {
	return df.apply([]*DataFrame{other}, func(in []plan.Node) plan.Node {
		return &plan.MergeSortedNode{Left: in[0], Right: in[1], Key: key}
	})
}

// Unpivot turns the on columns into rows, row-major: per row, one row per
// on column with the index columns (nil: every other column), the
// column's name and its value (empty names: "variable" and "value").
func (df *DataFrame) Unpivot(on, index []string, variableName, valueName string) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.UnpivotNode{Input: in[0], On: on, Index: index, VariableName: variableName, ValueName: valueName}
	})
}

// Unnest replaces each named struct column, in place, by its fields as
// columns (nullable; null where the struct is null); a field named like
// another column is an error.
func (df *DataFrame) Unnest(columns ...string) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.UnnestNode{Input: in[0], Columns: columns}
	})
}

// Explode turns each named list column into rows, in place: several
// columns are zipped (their lengths must agree per row: invalid_input), a
// null or empty list gives one row with null, the other columns repeat.
func (df *DataFrame) Explode(columns ...string) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.ExplodeNode{Input: in[0], Columns: columns}
	})
}

// Distinct keeps the first row of each distinct combination of the named
// columns (all columns when none are named), in input order. Keys compare
// with all NaNs equal, -0.0 equal to +0.0 and nulls equal.
func (df *DataFrame) Distinct(subset ...string) (*DataFrame, error) {
	return df.apply(nil, func(in []plan.Node) plan.Node {
		return &plan.DistinctNode{Input: in[0], Subset: subset}
	})
}

// Extension applies a host-defined operator, declared by def, to df and any
// further frames, through the session's Extensions registry. Its output
// schema is def.OutputSchema of the inputs' (the first input's when nil).
func (df *DataFrame) Extension(def *plan.ExtensionDef, others ...*DataFrame) (*DataFrame, error) {
	return df.apply(others, func(in []plan.Node) plan.Node {
		return &plan.ExtensionNode{Def: def, Inputs: in}
	})
}
