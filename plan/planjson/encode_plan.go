package planjson

import (
	"reflect"

	"github.com/dfopt/dfopt/plan"
)

// encoder writes plan nodes and expressions. tableName names a scan's
// source: by the document's tables for Encode, by Source.Name() for
// EncodePlan.
type encoder struct {
	tableName func(plan.Source) (string, bool)
}

// obj builds an object from alternating keys and values; nil values are
// skipped (optional fields left out).
func obj(kv ...any) *jvalue {
	v := &jvalue{kind: jObject}
	for i := 0; i+1 < len(kv); i += 2 {
		val, _ := kv[i+1].(*jvalue)
		if val == nil {
			continue
		}
		v.obj = append(v.obj, jmember{key: kv[i].(string), val: val})
	}
	return v
}

func jstr(s string) *jvalue { return &jvalue{kind: jString, s: s} }

func jtrue() *jvalue { return &jvalue{kind: jBool, b: true} }

func (e *encoder) node(n plan.Node, p *path) (*jvalue, error) {
	// A nil pointer of a node type (a buggy rewrite's output) is a missing
	// node too, as everywhere in package plan.
	if v := reflect.ValueOf(n); n == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, encodeError(p, "nil plan node")
	}
	op := jstr(n.Kind().String())
	in := func(c plan.Node) (*jvalue, error) { return e.node(c, p.field("input")) }
	switch n := n.(type) {
	case *plan.ScanNode:
		return e.scan(n, p)
	case *plan.FilterNode:
		preds, err := e.exprs(n.Predicates, p.field("predicates"), true)
		if err != nil {
			return nil, err
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "predicates", preds, "input", input), nil
	case *plan.ProjectNode, *plan.WithColumnsNode:
		var exprs []plan.Expr
		var child plan.Node
		if pn, ok := n.(*plan.ProjectNode); ok {
			exprs, child = pn.Exprs, pn.Input
		} else {
			wn := n.(*plan.WithColumnsNode)
			exprs, child = wn.Exprs, wn.Input
		}
		if w, ok := plan.OwnedWindow(n); ok {
			if folded, ok := foldWindow(exprs, w); ok {
				exprs, child = folded, w.Input
			}
		}
		es, err := e.exprs(exprs, p.field("exprs"), true)
		if err != nil {
			return nil, err
		}
		input, err := in(child)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "exprs", es, "input", input), nil
	case *plan.WindowNode:
		es, err := e.exprs(n.Exprs, p.field("exprs"), true)
		if err != nil {
			return nil, err
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "exprs", es, "input", input), nil
	case *plan.SortNode:
		keys, err := e.sortKeys(n.Keys, p.field("keys"))
		if err != nil {
			return nil, err
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		var limit *jvalue
		if n.HasLimit {
			limit = encodeInt(n.Limit)
		}
		return obj("op", op, "keys", keys, "limit", limit, "input", input), nil
	case *plan.LimitNode:
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "n", encodeInt(n.N), "input", input), nil
	case *plan.SliceNode:
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "offset", encodeInt(n.Offset), "len", encodeInt(n.Len), "input", input), nil
	case *plan.TailNode:
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "n", encodeInt(n.N), "input", input), nil
	case *plan.ReverseNode:
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "input", input), nil
	case *plan.RowIndexNode:
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		var off *jvalue
		if n.Offset != 0 {
			off = encodeInt(n.Offset)
		}
		return obj("op", op, "name", jstr(n.Name), "offset", off, "input", input), nil
	case *plan.AggregateNode:
		keys, err := e.exprs(n.Keys, p.field("keys"), false)
		if err != nil {
			return nil, err
		}
		aggs, err := e.exprs(n.Aggs, p.field("aggs"), true)
		if err != nil {
			return nil, err
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "keys", keys, "aggs", aggs, "input", input), nil
	case *plan.JoinNode:
		kind := n.How.String()
		if _, ok := plan.ParseJoinKind(kind); !ok {
			return nil, encodeError(p.field("kind"), "invalid join kind %d", n.How)
		}
		leftOn, err := e.exprs(n.LeftOn, p.field("left_on"), false)
		if err != nil {
			return nil, err
		}
		rightOn, err := e.exprs(n.RightOn, p.field("right_on"), false)
		if err != nil {
			return nil, err
		}
		var suffix *jvalue
		if n.Suffix != "" {
			if err := checkName(p.field("suffix"), "suffix", n.Suffix); err != nil {
				return nil, err
			}
			suffix = jstr(n.Suffix)
		}
		var build *jvalue
		if n.BuildLeft {
			build = jstr("left")
		}
		left, err := e.node(n.Left, p.field("left"))
		if err != nil {
			return nil, err
		}
		right, err := e.node(n.Right, p.field("right"))
		if err != nil {
			return nil, err
		}
		var coalesce, nullsEqual, validate, residual *jvalue
		if n.Coalesce != plan.CoalesceAuto {
			coalesce = jstr(n.Coalesce.String())
		}
		if n.NullsEqual {
			nullsEqual = jtrue()
		}
		if n.Validate != plan.ValidateManyToMany {
			validate = jstr(n.Validate.String())
		}
		if n.Residual != nil {
			if residual, err = e.expr(n.Residual, p.field("residual")); err != nil {
				return nil, err
			}
		}
		return obj("op", op, "kind", jstr(kind), "left_on", leftOn, "right_on", rightOn, "suffix", suffix, "build", build,
			"coalesce", coalesce, "nulls_equal", nullsEqual, "validate", validate, "residual", residual,
			"left", left, "right", right), nil
	case *plan.AsOfJoinNode:
		return e.asofJoin(n, p)
	case *plan.TemporalGroupNode:
		return e.temporalGroup(n, p)
	case *plan.GuardNode:
		es, err := e.exprs(n.Exprs, p.field("exprs"), true)
		if err != nil {
			return nil, err
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "exprs", es, "input", input), nil
	case *plan.UnionNode:
		ins, err := e.nodes(n.Inputs, p.field("inputs"))
		if err != nil {
			return nil, err
		}
		var mode *jvalue
		if n.Diagonal {
			mode = jstr("diagonal")
		}
		return obj("op", op, "mode", mode, "inputs", ins), nil
	case *plan.HStackNode:
		ins, err := e.nodes(n.Inputs, p.field("inputs"))
		if err != nil {
			return nil, err
		}
		return obj("op", op, "inputs", ins), nil
	case *plan.MergeSortedNode:
		if err := checkName(p.field("key"), "column name", n.Key); err != nil {
			return nil, err
		}
		left, err := e.node(n.Left, p.field("left"))
		if err != nil {
			return nil, err
		}
		right, err := e.node(n.Right, p.field("right"))
		if err != nil {
			return nil, err
		}
		return obj("op", op, "key", jstr(n.Key), "left", left, "right", right), nil
	case *plan.ExplodeNode, *plan.UnnestNode:
		// Both are {"columns": [names], "input": ...}.
		var names []string
		var child plan.Node
		if e, ok := n.(*plan.ExplodeNode); ok {
			names, child = e.Columns, e.Input
		} else {
			u := n.(*plan.UnnestNode)
			names, child = u.Columns, u.Input
		}
		cols, err := nameList(p.field("columns"), names)
		if err != nil {
			return nil, err
		}
		input, err := in(child)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "columns", cols, "input", input), nil
	case *plan.UnpivotNode:
		on, err := nameList(p.field("on"), n.On)
		if err != nil {
			return nil, err
		}
		var index, variable, value *jvalue
		if n.Index != nil {
			if index, err = nameList(p.field("index"), n.Index); err != nil {
				return nil, err
			}
		}
		if n.VariableName != "" {
			if err := checkName(p.field("variable_name"), "column name", n.VariableName); err != nil {
				return nil, err
			}
			variable = jstr(n.VariableName)
		}
		if n.ValueName != "" {
			if err := checkName(p.field("value_name"), "column name", n.ValueName); err != nil {
				return nil, err
			}
			value = jstr(n.ValueName)
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "on", on, "index", index, "variable_name", variable, "value_name", value, "input", input), nil
	case *plan.DistinctNode:
		var subset *jvalue
		if len(n.Subset) > 0 {
			subset = &jvalue{kind: jArray}
			for i, c := range n.Subset {
				if err := checkName(p.field("subset").index(i), "column name", c); err != nil {
					return nil, err
				}
				subset.arr = append(subset.arr, jstr(c))
			}
		}
		input, err := in(n.Input)
		if err != nil {
			return nil, err
		}
		return obj("op", op, "subset", subset, "input", input), nil
	case *plan.ExtensionNode:
		if n.Def == nil {
			return nil, encodeError(p.field("name"), "extension node without a declaration")
		}
		if err := checkName(p.field("name"), "extension name", n.Def.Name); err != nil {
			return nil, err
		}
		name := jstr(n.Def.Name)
		if len(n.Inputs) == 1 {
			input, err := in(n.Inputs[0])
			if err != nil {
				return nil, err
			}
			return obj("op", op, "name", name, "input", input), nil
		}
		ins, err := e.nodes(n.Inputs, p.field("inputs"))
		if err != nil {
			return nil, err
		}
		return obj("op", op, "name", name, "inputs", ins), nil
	}
	return nil, encodeError(p, "unknown node type %T", n)
}

func (e *encoder) nodes(ns []plan.Node, p *path) (*jvalue, error) {
	out := &jvalue{kind: jArray, arr: make([]*jvalue, 0, len(ns))}
	for i, c := range ns {
		v, err := e.node(c, p.index(i))
		if err != nil {
			return nil, err
		}
		out.arr = append(out.arr, v)
	}
	return out, nil
}

func (e *encoder) scan(n *plan.ScanNode, p *path) (*jvalue, error) {
	if n.Source == nil {
		return nil, encodeError(p.field("table"), "scan without a source")
	}
	name, ok := e.tableName(n.Source)
	if !ok {
		sn, _ := sourceName(n.Source)
		return nil, encodeError(p.field("table"), "the scan's source %q is not one of the document's tables", sn)
	}
	if err := checkName(p.field("table"), "table name", name); err != nil {
		return nil, err
	}
	var cols, pushed *jvalue
	if n.Projected {
		cols = &jvalue{kind: jArray}
		for i, c := range n.Columns {
			if err := checkName(p.field("columns").index(i), "column name", c); err != nil {
				return nil, err
			}
			cols.arr = append(cols.arr, jstr(c))
		}
	}
	if len(n.Pushed) > 0 {
		pushed = &jvalue{kind: jArray}
		for i, pp := range n.Pushed {
			ip := p.field("pushed").index(i)
			ev, err := e.expr(pp.Expr, ip.field("expr"))
			if err != nil {
				return nil, err
			}
			if pp.Support > plan.Exact {
				return nil, encodeError(ip.field("support"), "invalid predicate support %d", pp.Support)
			}
			pushed.arr = append(pushed.arr, obj("expr", ev, "support", jstr(pp.Support.String())))
		}
	}
	var maxRows *jvalue
	if n.HasMaxRows {
		maxRows = encodeInt(n.MaxRows)
	}
	var assumes *jvalue
	if len(n.Assumes) > 0 {
		assumes = &jvalue{kind: jArray}
		for i, a := range n.Assumes {
			ap := p.field("assumes").index(i)
			if err := checkName(ap.field("column"), "column name", a.Column); err != nil {
				return nil, err
			}
			lo, err := encodeValue(a.Min)
			if err != nil {
				return nil, encodeError(ap.field("min"), "%v", err)
			}
			hi, err := encodeValue(a.Max)
			if err != nil {
				return nil, encodeError(ap.field("max"), "%v", err)
			}
			var nan *jvalue
			if a.NaNFree {
				nan = jtrue()
			}
			assumes.arr = append(assumes.arr, obj("column", jstr(a.Column), "min", lo, "max", hi, "no_nan", nan))
		}
	}
	guards, err := e.exprs(n.Guards, p.field("guards"), false)
	if err != nil {
		return nil, err
	}
	return obj("op", jstr("scan"), "table", jstr(name), "columns", cols, "pushed", pushed, "max_rows", maxRows, "assumes", assumes,
		"guards", guards), nil
}

// exprs writes a list; an empty optional list (always=false) is left out.
func (e *encoder) exprs(es []plan.Expr, p *path, always bool) (*jvalue, error) {
	if len(es) == 0 && !always {
		return nil, nil
	}
	out := &jvalue{kind: jArray, arr: make([]*jvalue, 0, len(es))}
	for i, x := range es {
		v, err := e.expr(x, p.index(i))
		if err != nil {
			return nil, err
		}
		out.arr = append(out.arr, v)
	}
	return out, nil
}

// expr writes an expression; one that stands in for another as written
// (plan.Origin: an inlined value, a window column) gets that one as its
// "written" field, so that a printed optimized plan reads back raising
// errors with the same texts.
func (e *encoder) expr(x plan.Expr, p *path) (*jvalue, error) {
	v, err := e.exprBody(x, p)
	if err != nil {
		return nil, err
	}
	if o := plan.Origin(x); o != nil {
		w, err := e.exprBody(o, p.field("written"))
		if err != nil {
			return nil, err
		}
		v.obj = append(v.obj, jmember{key: "written", val: w})
	}
	return v, nil
}

func (e *encoder) exprBody(x plan.Expr, p *path) (*jvalue, error) {
	switch x := x.(type) {
	case *plan.Column:
		if err := checkName(p.field("col"), "column name", x.Name); err != nil {
			return nil, err
		}
		return obj("col", jstr(x.Name)), nil
	case *plan.Literal:
		t := x.Value.Type()
		if _, ok := plan.ParseType(t.String()); !ok {
			return nil, encodeError(p.field("type"), "a literal of type %s cannot be written", t)
		}
		v, err := encodeValue(x.Value)
		if err != nil {
			return nil, encodeError(p.field("lit"), "%v", err)
		}
		return obj("lit", v, "type", jstr(t.String())), nil
	case *plan.Call:
		name := x.Fn.String()
		if _, ok := plan.ParseFunc(name); !ok {
			return nil, encodeError(p.field("fn"), "invalid function %d", x.Fn)
		}
		args, err := e.exprs(x.Args, p.field("args"), false)
		if err != nil {
			return nil, err
		}
		return obj("fn", jstr(name), "args", args), nil
	case *plan.Cast:
		inner, err := e.expr(x.Expr, p.field("cast"))
		if err != nil {
			return nil, err
		}
		if _, ok := plan.ParseType(x.To.String()); !ok {
			return nil, encodeError(p.field("to"), "a cast to %s cannot be written", x.To)
		}
		var strict *jvalue
		if !x.Strict {
			strict = &jvalue{kind: jBool}
		}
		return obj("cast", inner, "to", jstr(x.To.String()), "strict", strict), nil
	case *plan.Alias:
		inner, err := e.expr(x.Expr, p.field("alias"))
		if err != nil {
			return nil, err
		}
		if err := checkName(p.field("name"), "alias name", x.Name); err != nil {
			return nil, err
		}
		return obj("alias", inner, "name", jstr(x.Name)), nil
	case *plan.Over:
		agg, err := e.expr(x.Agg, p.field("over"))
		if err != nil {
			return nil, err
		}
		parts, err := e.exprs(x.PartitionBy, p.field("partition_by"), false)
		if err != nil {
			return nil, err
		}
		var order *jvalue
		if len(x.OrderBy) > 0 {
			if order, err = e.sortKeys(x.OrderBy, p.field("order_by")); err != nil {
				return nil, err
			}
		}
		return obj("over", agg, "partition_by", parts, "order_by", order), nil
	case *plan.UDFCall:
		if x.UDF == nil {
			return nil, encodeError(p.field("udf"), "udf call without a declaration")
		}
		if err := checkName(p.field("udf"), "udf name", x.UDF.Name); err != nil {
			return nil, err
		}
		args, err := e.exprs(x.Args, p.field("args"), false)
		if err != nil {
			return nil, err
		}
		return obj("udf", jstr(x.UDF.Name), "args", args), nil
	case nil:
		return nil, encodeError(p, "nil expression")
	}
	return nil, encodeError(p, "unknown expression type %T", x)
}

// sortKeys encodes sort keys (a sort node's, an over()'s order_by) as
// [{"expr": E, "desc": true, "nulls_last": true}, ...], leaving out false
// flags.
func (e *encoder) sortKeys(ks []plan.SortKey, p *path) (*jvalue, error) {
	keys := &jvalue{kind: jArray}
	for i, k := range ks {
		kp := p.index(i)
		ev, err := e.expr(k.Expr, kp.field("expr"))
		if err != nil {
			return nil, err
		}
		var desc, nullsLast *jvalue
		if k.Desc {
			desc = jtrue()
		}
		if k.NullsLast {
			nullsLast = jtrue()
		}
		keys.arr = append(keys.arr, obj("expr", ev, "desc", desc, "nulls_last", nullsLast))
	}
	return keys, nil
}

// names encodes a list of column names (nil when empty).
func names(list []string, p *path) (*jvalue, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := &jvalue{kind: jArray}
	for i, c := range list {
		if err := checkName(p.index(i), "column name", c); err != nil {
			return nil, err
		}
		out.arr = append(out.arr, jstr(c))
	}
	return out, nil
}

// nameList encodes a list of column names (always an array, possibly
// empty), for fields where an empty list differs from an absent one.
func nameList(p *path, cols []string) (*jvalue, error) {
	out := &jvalue{kind: jArray}
	for i, c := range cols {
		if err := checkName(p.index(i), "column name", c); err != nil {
			return nil, err
		}
		out.arr = append(out.arr, jstr(c))
	}
	return out, nil
}

// optExpr encodes an optional expression (nil when absent).
func (e *encoder) optExpr(x plan.Expr, p *path) (*jvalue, error) {
	if x == nil {
		return nil, nil
	}
	return e.expr(x, p)
}

func (e *encoder) asofJoin(n *plan.AsOfJoinNode, p *path) (*jvalue, error) {
	if _, ok := plan.ParseAsofStrategy(n.Strategy.String()); !ok {
		return nil, encodeError(p.field("strategy"), "invalid asof strategy %d", n.Strategy)
	}
	for _, c := range []struct{ field, name string }{{"left_on", n.LeftOn}, {"right_on", n.RightOn}} {
		if err := checkName(p.field(c.field), "column name", c.name); err != nil {
			return nil, err
		}
	}
	leftBy, err := names(n.LeftBy, p.field("left_by"))
	if err != nil {
		return nil, err
	}
	rightBy, err := names(n.RightBy, p.field("right_by"))
	if err != nil {
		return nil, err
	}
	var strategy, exact, suffix *jvalue
	if n.Strategy != plan.AsofBackward {
		strategy = jstr(n.Strategy.String())
	}
	if n.ExcludeExact {
		exact = &jvalue{kind: jBool, b: false}
	}
	if n.Suffix != "" {
		if err := checkName(p.field("suffix"), "suffix", n.Suffix); err != nil {
			return nil, err
		}
		suffix = jstr(n.Suffix)
	}
	tol, err := e.optExpr(n.Tolerance, p.field("tolerance"))
	if err != nil {
		return nil, err
	}
	left, err := e.node(n.Left, p.field("left"))
	if err != nil {
		return nil, err
	}
	right, err := e.node(n.Right, p.field("right"))
	if err != nil {
		return nil, err
	}
	return obj("op", jstr("asof_join"), "left_on", jstr(n.LeftOn), "right_on", jstr(n.RightOn), "left_by", leftBy, "right_by", rightBy,
		"strategy", strategy, "tolerance", tol, "allow_exact_matches", exact, "suffix", suffix, "left", left, "right", right), nil
}

func (e *encoder) temporalGroup(n *plan.TemporalGroupNode, p *path) (*jvalue, error) {
	if _, ok := plan.ParseTemporalMode(n.Mode.String()); !ok {
		return nil, encodeError(p.field("mode"), "invalid temporal_group mode %d", n.Mode)
	}
	if err := checkName(p.field("index"), "column name", n.Index); err != nil {
		return nil, err
	}
	var params [3]*jvalue
	for i, f := range []struct {
		name string
		x    plan.Expr
	}{{"every", n.Every}, {"period", n.Period}, {"offset", n.Offset}} {
		v, err := e.optExpr(f.x, p.field(f.name))
		if err != nil {
			return nil, err
		}
		params[i] = v
	}
	var closed, label *jvalue
	if n.Closed != plan.ClosedDefault {
		if _, ok := plan.ParseWindowClosed(n.Closed.String()); !ok {
			return nil, encodeError(p.field("closed"), "invalid closed %d", n.Closed)
		}
		closed = jstr(n.Closed.String())
	}
	if n.LabelKind != plan.LabelLeft {
		if _, ok := plan.ParseWindowLabel(n.LabelKind.String()); !ok {
			return nil, encodeError(p.field("label"), "invalid label %d", n.LabelKind)
		}
		label = jstr(n.LabelKind.String())
	}
	by, err := names(n.By, p.field("by"))
	if err != nil {
		return nil, err
	}
	aggs, err := e.exprs(n.Aggs, p.field("aggs"), true)
	if err != nil {
		return nil, err
	}
	input, err := e.node(n.Input, p.field("input"))
	if err != nil {
		return nil, err
	}
	return obj("op", jstr("temporal_group"), "mode", jstr(n.Mode.String()), "index", jstr(n.Index), "every", params[0], "period", params[1],
		"offset", params[2], "closed", closed, "label", label, "by", by, "aggs", aggs, "input", input), nil
}
