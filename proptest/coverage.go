package proptest

import (
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest/internal/planutil"
)

// Features lists what a case contains, as sorted feature names, for
// coverage reports (which node kinds, functions and legality-relevant
// shapes a campaign exercised):
//   - node:KIND for every node kind (node:window for a project or
//     with_columns using over(), which Resolve turns into a window node);
//   - fn:NAME, udf:NAME, expr:over, expr:alias, expr:cast_strict,
//     expr:cast_lenient, expr:null_literal;
//   - join:KIND; ext:NAME for every extension operator;
//   - shape:filter/KIND (a filter directly over KIND, with "+total" when
//     every computed expression of a project, with_columns or sort below is
//     bounded-total, "+partial" otherwise), shape:filter_chain,
//     shape:filter_chain_total_outer, shape:self_join, shape:union_same,
//     shape:nested_shared, shape:nd_shared, shape:nd_filter_over_sort,
//     shape:rename, shape:shadow, shape:project/with_columns,
//     shape:fusion_ref1, shape:fusion_ref2, shape:dead_entry,
//     shape:sort_computed_key, shape:agg_computed_key;
//   - ill:CORRUPTION for ill-typed cases;
//   - data:null, data:all_null_column, data:nan_payload, data:neg_zero,
//     data:inf, data:min_int64, data:max_int64, data:min_int32,
//     data:max_int32, data:empty_table, data:empty_string, data:non_ascii,
//     data:epoch_date, data:leap_day, data:min_date, data:max_date,
//     data:min_datetime, data:max_datetime, data:extreme_duration,
//     data:empty_list, data:null_list, data:list_of_nulls, data:null_struct,
//     data:struct_of_nulls.
func Features(c Case) []string {
	f := map[string]bool{}
	dataFeatures(c, f)
	if c.IllTyped {
		f["ill:"+c.Corruption] = true
	}
	r := newResolver()
	for _, n := range nodes(c.Plan) {
		nodeFeatures(n, r, f)
	}
	return slices.Sorted(maps.Keys(f))
}

// kindLabel names a node's kind for features: "window" for a project or
// with_columns that uses over().
func kindLabel(n plan.Node) string {
	for _, list := range exprLists(n) {
		for _, e := range list {
			if plan.ContainsOver(e) {
				switch n.(type) {
				case *plan.ProjectNode, *plan.WithColumnsNode:
					return "window"
				}
			}
		}
	}
	return n.Kind().String()
}

// allBoundedTotal reports whether every expression of n is total in the
// bounded tier (legality.Total).
func allBoundedTotal(n plan.Node) bool {
	for _, list := range exprLists(n) {
		for _, e := range list {
			if !legality.Total(e) {
				return false
			}
		}
	}
	return true
}

func nodeFeatures(n plan.Node, r *planutil.Resolver, f map[string]bool) {
	label := kindLabel(n)
	f["node:"+label] = true
	for _, list := range exprLists(n) {
		for _, e := range list {
			exprFeatures(e, f)
		}
	}
	switch n := n.(type) {
	case *plan.FilterNode:
		child := n.Input
		cl := kindLabel(child)
		switch child.(type) {
		case *plan.ProjectNode, *plan.WithColumnsNode, *plan.SortNode:
			if allBoundedTotal(child) {
				cl += "+total"
			} else {
				cl += "+partial"
			}
		}
		f["shape:filter/"+cl] = true
		if _, ok := child.(*plan.FilterNode); ok {
			f["shape:filter_chain"] = true
			total := true
			for _, p := range n.Predicates {
				total = total && legality.Total(p)
			}
			if total {
				f["shape:filter_chain_total_outer"] = true
			}
		}
		if _, ok := child.(*plan.SortNode); ok {
			for _, p := range n.Predicates {
				if !plan.IsDeterministic(p) {
					f["shape:nd_filter_over_sort"] = true
				}
			}
		}
	case *plan.ExtensionNode:
		if n.Def != nil {
			f["ext:"+n.Def.Name] = true
		}
	case *plan.JoinNode:
		f["join:"+n.How.String()] = true
		if plan.Equal(n.Left, n.Right) {
			f["shape:self_join"] = true
			if !plan.IsDeterministicPlan(n.Left) {
				f["shape:nd_shared"] = true
			}
		}
	case *plan.UnionNode:
		for i := 0; i < len(n.Inputs); i++ {
			for j := i + 1; j < len(n.Inputs); j++ {
				if !plan.Equal(n.Inputs[i], n.Inputs[j]) {
					continue
				}
				f["shape:union_same"] = true
				if !plan.IsDeterministicPlan(n.Inputs[i]) {
					f["shape:nd_shared"] = true
				}
				if j, ok := n.Inputs[i].(*plan.JoinNode); ok && plan.Equal(j.Left, j.Right) {
					f["shape:nested_shared"] = true
				}
			}
		}
	case *plan.ProjectNode:
		if in, ok := r.InputSchema(n, 0); ok {
			shadowFeatures(n.Exprs, in, f)
		}
		if wc, ok := n.Input.(*plan.WithColumnsNode); ok {
			f["shape:project/with_columns"] = true
			fusionFeatures(n, wc, f)
		}
		deadFeatures(n, readNames(n.Exprs), f)
	case *plan.WithColumnsNode:
		if in, ok := r.InputSchema(n, 0); ok {
			shadowFeatures(n.Exprs, in, f)
		}
	case *plan.AggregateNode:
		for _, k := range n.Keys {
			if _, ok := k.(*plan.Column); !ok {
				f["shape:agg_computed_key"] = true
			}
		}
		deadFeatures(n, readNames(append(append([]plan.Expr(nil), n.Keys...), n.Aggs...)), f)
	case *plan.SortNode:
		for _, k := range n.Keys {
			if _, ok := k.Expr.(*plan.Column); !ok {
				f["shape:sort_computed_key"] = true
			}
		}
	}
}

// shadowFeatures notes renames (col(a) as x) and shadowing outputs (an
// output named like an input column that is not that column).
func shadowFeatures(exprs []plan.Expr, in plan.Schema, f map[string]bool) {
	for _, e := range exprs {
		name := plan.OutputName(e)
		inner := plan.Unalias(e)
		if c, ok := inner.(*plan.Column); ok {
			if c.Name != name {
				f["shape:rename"] = true
			}
			if c.Name != name && in.Index(name) >= 0 {
				f["shape:shadow"] = true
			}
			continue
		}
		if in.Index(name) >= 0 {
			f["shape:shadow"] = true
		}
	}
}

// fusionFeatures notes how often the select reads a column the
// with_columns below it adds or replaces.
func fusionFeatures(p *plan.ProjectNode, wc *plan.WithColumnsNode, f map[string]bool) {
	for _, we := range wc.Exprs {
		name := plan.OutputName(we)
		refs := 0
		for _, e := range p.Exprs {
			plan.Walk(e, func(x plan.Expr) bool {
				if c, ok := x.(*plan.Column); ok && c.Name == name {
					refs++
				}
				return true
			})
		}
		switch {
		case refs == 1:
			f["shape:fusion_ref1"] = true
		case refs >= 2:
			f["shape:fusion_ref2"] = true
		}
	}
}

// readNames returns the column names the expressions read.
func readNames(exprs []plan.Expr) map[string]bool {
	out := map[string]bool{}
	for _, e := range exprs {
		for _, c := range plan.Columns(e) {
			out[c] = true
		}
	}
	return out
}

// deadFeatures notes a project or with_columns below n that computes an
// output n does not read.
func deadFeatures(n plan.Node, read map[string]bool, f map[string]bool) {
	var exprs []plan.Expr
	switch c := n.Children()[0].(type) {
	case *plan.ProjectNode:
		exprs = c.Exprs
	case *plan.WithColumnsNode:
		exprs = c.Exprs
	default:
		return
	}
	for _, e := range exprs {
		if !read[plan.OutputName(e)] {
			f["shape:dead_entry"] = true
		}
	}
}

func exprFeatures(e plan.Expr, f map[string]bool) {
	plan.Walk(e, func(x plan.Expr) bool {
		switch x := x.(type) {
		case *plan.Call:
			f["fn:"+x.Fn.String()] = true
		case *plan.UDFCall:
			if x.UDF != nil {
				f["udf:"+x.UDF.Name] = true
			}
		case *plan.Over:
			f["expr:over"] = true
		case *plan.Alias:
			f["expr:alias"] = true
		case *plan.Cast:
			if x.Strict {
				f["expr:cast_strict"] = true
			} else {
				f["expr:cast_lenient"] = true
			}
		case *plan.Literal:
			if x.Value.IsNull() {
				f["expr:null_literal"] = true
			}
		}
		return true
	})
}

func dataFeatures(c Case, f map[string]bool) {
	for _, t := range c.Tables {
		if t.Rows() == 0 {
			f["data:empty_table"] = true
		}
		for i := 0; i < t.Schema().Len(); i++ {
			col := t.Column(i)
			nulls := 0
			for _, v := range col {
				if v.IsNull() {
					nulls++
					f["data:null"] = true
					switch {
					case v.Type().IsList():
						f["data:null_list"] = true
					case v.Type().IsStruct():
						f["data:null_struct"] = true
					}
					continue
				}
				if t := v.Type(); t.IsNested() {
					nestedFeatures(v, f)
					continue
				}
				switch v.Type() {
				case plan.Float64:
					x := v.Float()
					switch {
					case math.IsNaN(x) && math.Float64bits(x) != canonicalNaN:
						f["data:nan_payload"] = true
					case math.IsInf(x, 0):
						f["data:inf"] = true
					case x == 0 && math.Signbit(x):
						f["data:neg_zero"] = true
					}
				case plan.Int64:
					switch v.Int() {
					case math.MinInt64:
						f["data:min_int64"] = true
					case math.MaxInt64:
						f["data:max_int64"] = true
					}
				case plan.Int32:
					switch v.Int() {
					case math.MinInt32:
						f["data:min_int32"] = true
					case math.MaxInt32:
						f["data:max_int32"] = true
					}
				case plan.Date:
					switch v.Int() {
					case 0:
						f["data:epoch_date"] = true
					case 11016, -25508: // 2000-02-29, 1900-03-01
						f["data:leap_day"] = true
					case math.MinInt32:
						f["data:min_date"] = true
					case math.MaxInt32:
						f["data:max_date"] = true
					}
				case plan.Datetime:
					switch v.Int() {
					case math.MinInt64:
						f["data:min_datetime"] = true
					case math.MaxInt64:
						f["data:max_datetime"] = true
					}
				case plan.Duration:
					if v.Int() == math.MaxInt64 || v.Int() == math.MinInt64 {
						f["data:extreme_duration"] = true
					}
				case plan.String:
					s := v.Str()
					if s == "" {
						f["data:empty_string"] = true
					} else if utf8.RuneCountInString(s) != len(s) {
						f["data:non_ascii"] = true
					}
				}
			}
			if len(col) > 0 && nulls == len(col) {
				f["data:all_null_column"] = true
			}
		}
	}
}

// nestedFeatures records the adversarial shapes of a non-null list or
// struct value (a null one is data:null_list or data:null_struct, which
// dataFeatures' caller sees as a null of a nested type).
func nestedFeatures(v plan.Value, f map[string]bool) {
	el := v.Elems()
	nulls := 0
	for _, e := range el {
		if e.IsNull() {
			nulls++
		}
	}
	switch {
	case v.Type().IsList() && len(el) == 0:
		f["data:empty_list"] = true
	case v.Type().IsList() && nulls == len(el):
		f["data:list_of_nulls"] = true
	case v.Type().IsStruct() && nulls == len(el):
		f["data:struct_of_nulls"] = true
	}
}
