package planjson

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dfopt/dfopt/plan"
)

// nodeFields lists, per op, the allowed fields and then the required ones.
// "window" and the scan fields "columns" and "pushed" are optimizer output:
// they let an optimized plan round-trip (docs/plan-format.md).
var nodeFields = map[string]struct{ allowed, required []string }{
	"scan":         {[]string{"op", "table", "columns", "pushed", "max_rows", "assumes", "guards"}, []string{"table"}},
	"filter":       {[]string{"op", "input", "predicates"}, []string{"input", "predicates"}},
	"project":      {[]string{"op", "input", "exprs"}, []string{"input", "exprs"}},
	"with_columns": {[]string{"op", "input", "exprs"}, []string{"input", "exprs"}},
	"sort":         {[]string{"op", "input", "keys", "limit"}, []string{"input", "keys"}},
	"limit":        {[]string{"op", "input", "n"}, []string{"input", "n"}},
	"slice":        {[]string{"op", "input", "offset", "len"}, []string{"input", "offset", "len"}},
	"tail":         {[]string{"op", "input", "n"}, []string{"input", "n"}},
	"reverse":      {[]string{"op", "input"}, []string{"input"}},
	"row_index":    {[]string{"op", "input", "name", "offset"}, []string{"input", "name"}},
	"hstack":       {[]string{"op", "inputs"}, []string{"inputs"}},
	"merge_sorted": {[]string{"op", "left", "right", "key"}, []string{"left", "right", "key"}},
	"unpivot":      {[]string{"op", "input", "on", "index", "variable_name", "value_name"}, []string{"input", "on"}},
	"unnest":       {[]string{"op", "input", "columns"}, []string{"input", "columns"}},
	"explode":      {[]string{"op", "input", "columns"}, []string{"input", "columns"}},
	"aggregate":    {[]string{"op", "input", "keys", "aggs"}, []string{"input", "aggs"}},
	"join":         {[]string{"op", "left", "right", "kind", "left_on", "right_on", "suffix", "build", "coalesce", "nulls_equal", "validate", "residual"}, []string{"left", "right", "kind"}},
	"union":        {[]string{"op", "inputs", "mode"}, []string{"inputs"}},
	"distinct":     {[]string{"op", "input", "subset"}, []string{"input"}},
	"window":       {[]string{"op", "input", "exprs"}, []string{"input", "exprs"}},
	"guard":        {[]string{"op", "input", "exprs"}, []string{"input", "exprs"}},
	"extension":    {[]string{"op", "name", "input", "inputs"}, []string{"name"}},
	"asof_join": {[]string{"op", "left", "right", "left_on", "right_on", "on", "left_by", "right_by", "by", "strategy",
		"tolerance", "allow_exact_matches", "suffix"}, []string{"left", "right"}},
	"temporal_group": {[]string{"op", "input", "mode", "index", "every", "period", "offset", "closed", "label", "by", "aggs"},
		[]string{"input", "mode", "index", "aggs"}},
}

func opNames() []string { return slices.Sorted(maps.Keys(nodeFields)) }

// node decodes a plan node.
func (d *decoder) node(v *jvalue, p *path) (plan.Node, *Error) {
	if v.kind != jObject {
		return nil, errAt(v, p, "expected a plan node (an object with \"op\"), got %s", v.kind)
	}
	opv := v.get("op")
	if opv == nil {
		if isExprObject(v) {
			return nil, errAt(v, p, "expected a plan node, got an expression (a node has an \"op\" field)")
		}
		return nil, errAt(v, p, "missing required field \"op\" in a plan node")
	}
	op, err := str(opv, p.field("op"))
	if err != nil {
		return nil, err
	}
	spec, ok := nodeFields[op]
	if !ok {
		return nil, errAt(opv, p, "unknown op %q (known: %s)%s", op, list(opNames()), suggest(op, opNames()))
	}
	what := "a " + op + " node"
	if op == "aggregate" || op == "extension" {
		what = "an " + op + " node"
	}
	if err := checkFields(v, p, what, spec.allowed, spec.required...); err != nil {
		return nil, err
	}
	// Children first, then the node's own fields: errors come out bottom-up,
	// in the order plan.Resolve reports them.
	var in plan.Node
	if v.get("input") != nil && op != "extension" {
		var err *Error
		if in, err = d.node(v.get("input"), p.field("input")); err != nil {
			return nil, err
		}
	}
	exprs := func(field string) ([]plan.Expr, *Error) {
		if f := v.get(field); f != nil {
			return d.exprList(f, p.field(field))
		}
		return nil, nil
	}
	switch op {
	case "scan":
		return d.scan(v, p)
	case "filter":
		preds, err := exprs("predicates")
		if err != nil {
			return nil, err
		}
		return &plan.FilterNode{Input: in, Predicates: preds}, nil
	case "project", "with_columns", "window", "guard":
		es, err := exprs("exprs")
		if err != nil {
			return nil, err
		}
		switch op {
		case "project":
			return &plan.ProjectNode{Input: in, Exprs: es}, nil
		case "with_columns":
			return &plan.WithColumnsNode{Input: in, Exprs: es}, nil
		case "guard":
			return &plan.GuardNode{Input: in, Exprs: es}, nil
		}
		return &plan.WindowNode{Input: in, Exprs: es}, nil
	case "sort":
		keys, err := d.sortKeys(v.get("keys"), p.field("keys"))
		if err != nil {
			return nil, err
		}
		sn := &plan.SortNode{Input: in, Keys: keys}
		if lv := v.get("limit"); lv != nil {
			if sn.Limit, err = integer(lv, p.field("limit")); err != nil {
				return nil, err
			}
			sn.HasLimit = true
		}
		return sn, nil
	case "limit":
		n, err := integer(v.get("n"), p.field("n"))
		if err != nil {
			return nil, err
		}
		return &plan.LimitNode{Input: in, N: n}, nil
	case "slice":
		off, err := integer(v.get("offset"), p.field("offset"))
		if err != nil {
			return nil, err
		}
		n, err := integer(v.get("len"), p.field("len"))
		if err != nil {
			return nil, err
		}
		return &plan.SliceNode{Input: in, Offset: off, Len: n}, nil
	case "tail":
		n, err := integer(v.get("n"), p.field("n"))
		if err != nil {
			return nil, err
		}
		return &plan.TailNode{Input: in, N: n}, nil
	case "reverse":
		return &plan.ReverseNode{Input: in}, nil
	case "row_index":
		name, err := str(v.get("name"), p.field("name"))
		if err != nil {
			return nil, err
		}
		var off int64
		if ov := v.get("offset"); ov != nil {
			if off, err = integer(ov, p.field("offset")); err != nil {
				return nil, err
			}
		}
		return &plan.RowIndexNode{Input: in, Name: name, Offset: off}, nil
	case "aggregate":
		keys, err := exprs("keys")
		if err != nil {
			return nil, err
		}
		aggs, err := exprs("aggs")
		if err != nil {
			return nil, err
		}
		return &plan.AggregateNode{Input: in, Keys: keys, Aggs: aggs}, nil
	case "join":
		return d.join(v, p)
	case "asof_join":
		return d.asofJoin(v, p)
	case "temporal_group":
		return d.temporalGroup(v, p, in)
	case "union":
		ins, err := d.nodeList(v.get("inputs"), p.field("inputs"))
		if err != nil {
			return nil, err
		}
		u := &plan.UnionNode{Inputs: ins}
		if mv := v.get("mode"); mv != nil {
			mode, err := str(mv, p.field("mode"))
			if err != nil {
				return nil, err
			}
			switch mode {
			case "diagonal":
				u.Diagonal = true
			case "strict":
			default:
				return nil, errAt(mv, p.field("mode"), "unknown union mode %q (known: diagonal, strict)", mode)
			}
		}
		return u, nil
	case "hstack":
		ins, err := d.nodeList(v.get("inputs"), p.field("inputs"))
		if err != nil {
			return nil, err
		}
		return &plan.HStackNode{Inputs: ins}, nil
	case "merge_sorted":
		left, err := d.node(v.get("left"), p.field("left"))
		if err != nil {
			return nil, err
		}
		right, err := d.node(v.get("right"), p.field("right"))
		if err != nil {
			return nil, err
		}
		key, err := str(v.get("key"), p.field("key"))
		if err != nil {
			return nil, err
		}
		return &plan.MergeSortedNode{Left: left, Right: right, Key: key}, nil
	case "unnest":
		cols, err := stringList(v.get("columns"), p.field("columns"))
		if err != nil {
			return nil, err
		}
		return &plan.UnnestNode{Input: in, Columns: cols}, nil
	case "explode":
		cols, err := stringList(v.get("columns"), p.field("columns"))
		if err != nil {
			return nil, err
		}
		return &plan.ExplodeNode{Input: in, Columns: cols}, nil
	case "unpivot":
		on, err := stringList(v.get("on"), p.field("on"))
		if err != nil {
			return nil, err
		}
		n := &plan.UnpivotNode{Input: in, On: on}
		if iv := v.get("index"); iv != nil {
			if n.Index, err = stringList(iv, p.field("index")); err != nil {
				return nil, err
			}
			if n.Index == nil {
				n.Index = []string{}
			}
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"variable_name", &n.VariableName}, {"value_name", &n.ValueName}} {
			if fv := v.get(f.key); fv != nil {
				if *f.dst, err = str(fv, p.field(f.key)); err != nil {
					return nil, err
				}
			}
		}
		return n, nil
	case "distinct":
		var subset []string
		if s := v.get("subset"); s != nil {
			if subset, err = stringList(s, p.field("subset")); err != nil {
				return nil, err
			}
		}
		return &plan.DistinctNode{Input: in, Subset: subset}, nil
	case "extension":
		return d.extension(v, p)
	}
	return nil, errAt(opv, p, "unknown op %q", op)
}

func (d *decoder) nodeList(v *jvalue, p *path) ([]plan.Node, *Error) {
	items, err := array(v, p)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Node, len(items))
	for i, it := range items {
		if out[i], err = d.node(it, p.index(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *decoder) scan(v *jvalue, p *path) (plan.Node, *Error) {
	tv := v.get("table")
	name, err := str(tv, p.field("table"))
	if err != nil {
		return nil, err
	}
	spec, ok := d.tables[name]
	if !ok {
		names := slices.Sorted(maps.Keys(d.tables))
		return nil, errAt(tv, p.field("table"), "unknown table %q (declared: %s)%s", name, list(names), suggest(name, names))
	}
	src := spec.Source()
	schema, serr := sourceSchema(src)
	if serr != nil {
		e := errAt(tv, p.field("table"), "table %q", name)
		e.Err = serr
		return nil, e
	}
	n := &plan.ScanNode{Source: src, SourceSchema: schema}
	if c := v.get("columns"); c != nil {
		cols, err := stringList(c, p.field("columns"))
		if err != nil {
			return nil, err
		}
		n.Projected, n.Columns = true, cols
	}
	if pv := v.get("pushed"); pv != nil {
		pp := p.field("pushed")
		items, err := array(pv, pp)
		if err != nil {
			return nil, err
		}
		for i, it := range items {
			ip := pp.index(i)
			if err := checkFields(it, ip, "a pushed predicate", []string{"expr", "support"}, "expr", "support"); err != nil {
				return nil, err
			}
			e, err := d.expr(it.get("expr"), ip.field("expr"))
			if err != nil {
				return nil, err
			}
			sv := it.get("support")
			s, err := str(sv, ip.field("support"))
			if err != nil {
				return nil, err
			}
			support, ok := parseSupport(s)
			if !ok {
				return nil, errAt(sv, ip.field("support"), "unknown predicate support %q (known: exact, inexact, unsupported)", s)
			}
			n.Pushed = append(n.Pushed, plan.PushedPredicate{Expr: e, Support: support})
		}
	}
	if mv := v.get("max_rows"); mv != nil {
		m, err := integer(mv, p.field("max_rows"))
		if err != nil {
			return nil, err
		}
		n.HasMaxRows, n.MaxRows = true, m
	}
	if av := v.get("assumes"); av != nil {
		as, err := decodeAssumes(av, p.field("assumes"), schema)
		if err != nil {
			return nil, err
		}
		n.Assumes = as
	}
	if gv := v.get("guards"); gv != nil {
		gs, err := d.exprList(gv, p.field("guards"))
		if err != nil {
			return nil, err
		}
		n.Guards = gs
	}
	return n, nil
}

// decodeAssumes reads a scan's "assumes": the facts the optimized plan
// relies on ({"column", "min", "max", "no_nan"}), bounds typed by the
// column's type in the source's schema, each checked as Resolve checks it
// (plan.ValidateAssumptions) so that an error points at the assumption.
func decodeAssumes(v *jvalue, p *path, schema plan.Schema) ([]plan.Assumption, *Error) {
	items, err := array(v, p)
	if err != nil {
		return nil, err
	}
	var out []plan.Assumption
	for i, it := range items {
		ip := p.index(i)
		if err := checkFields(it, ip, "an assumption", []string{"column", "min", "max", "no_nan"}, "column", "min", "max"); err != nil {
			return nil, err
		}
		col, err := str(it.get("column"), ip.field("column"))
		if err != nil {
			return nil, err
		}
		f, ok := schema.Lookup(col)
		if !ok {
			return nil, errAt(it.get("column"), ip.field("column"), "no column %q in the table", echo(col))
		}
		a := plan.Assumption{Column: col}
		for _, b := range []struct {
			key string
			dst *plan.Value
		}{{"min", &a.Min}, {"max", &a.Max}} {
			val, msg := decodeValue(it.get(b.key), f.Type)
			if msg != "" {
				return nil, errAt(it.get(b.key), ip.field(b.key), "%s", msg)
			}
			*b.dst = val
		}
		if nv := it.get("no_nan"); nv != nil {
			nan, err := boolean(nv, ip.field("no_nan"))
			if err != nil {
				return nil, err
			}
			a.NaNFree = nan
		}
		// Resolve checks the same (plan.ValidateAssumptions); checked here
		// too, an error names the assumption's line, column and path.
		if err := plan.ValidateAssumptions(append(out, a), schema); err != nil {
			return nil, errAt(it, ip, "%s", err.Error())
		}
		out = append(out, a)
	}
	return out, nil
}

func parseSupport(s string) (plan.PredicateSupport, bool) {
	for _, ps := range []plan.PredicateSupport{plan.Unsupported, plan.Inexact, plan.Exact} {
		if ps.String() == s {
			return ps, true
		}
	}
	return plan.Unsupported, false
}

func (d *decoder) sortKeys(v *jvalue, p *path) ([]plan.SortKey, *Error) {
	items, err := array(v, p)
	if err != nil {
		return nil, err
	}
	keys := make([]plan.SortKey, len(items))
	for i, it := range items {
		kp := p.index(i)
		if err := checkFields(it, kp, `a sort key ({"expr": E, "desc": false, "nulls_last": false})`, []string{"expr", "desc", "nulls_last"}, "expr"); err != nil {
			return nil, err
		}
		if keys[i].Expr, err = d.expr(it.get("expr"), kp.field("expr")); err != nil {
			return nil, err
		}
		if b := it.get("desc"); b != nil {
			if keys[i].Desc, err = boolean(b, kp.field("desc")); err != nil {
				return nil, err
			}
		}
		if b := it.get("nulls_last"); b != nil {
			if keys[i].NullsLast, err = boolean(b, kp.field("nulls_last")); err != nil {
				return nil, err
			}
		}
	}
	return keys, nil
}

// joinKindHints maps other systems' names to ours.
var joinKindHints = map[string]string{"outer": "full", "full_outer": "full", "left_outer": "left",
	"right_outer": "right", "left_semi": "semi", "left_anti": "anti"}

func (d *decoder) join(v *jvalue, p *path) (plan.Node, *Error) {
	kv := v.get("kind")
	ks, err := str(kv, p.field("kind"))
	if err != nil {
		return nil, err
	}
	how, ok := plan.ParseJoinKind(ks)
	if !ok {
		var names []string
		for _, k := range plan.JoinKinds() {
			names = append(names, k.String())
		}
		hint := suggest(ks, names)
		if h, ok := joinKindHints[ks]; ok {
			hint = fmt.Sprintf("; did you mean %q?", h)
		}
		return nil, errAt(kv, p.field("kind"), "unknown join kind %q (known: %s)%s", ks, list(names), hint)
	}
	n := &plan.JoinNode{How: how}
	if n.Left, err = d.node(v.get("left"), p.field("left")); err != nil {
		return nil, err
	}
	if n.Right, err = d.node(v.get("right"), p.field("right")); err != nil {
		return nil, err
	}
	if f := v.get("left_on"); f != nil {
		if n.LeftOn, err = d.exprList(f, p.field("left_on")); err != nil {
			return nil, err
		}
	}
	if f := v.get("right_on"); f != nil {
		if n.RightOn, err = d.exprList(f, p.field("right_on")); err != nil {
			return nil, err
		}
	}
	if f := v.get("suffix"); f != nil {
		if n.Suffix, err = str(f, p.field("suffix")); err != nil {
			return nil, err
		}
	}
	if f := v.get("build"); f != nil {
		side, err := str(f, p.field("build"))
		if err != nil {
			return nil, err
		}
		switch side {
		case "left":
			n.BuildLeft = true
		case "right":
		default:
			return nil, errAt(f, p.field("build"), "unknown build side %q (known: left, right)", side)
		}
	}
	if f := v.get("coalesce"); f != nil {
		c, err := str(f, p.field("coalesce"))
		if err != nil {
			return nil, err
		}
		var ok bool
		if n.Coalesce, ok = plan.ParseJoinCoalesce(c); !ok {
			return nil, errAt(f, p.field("coalesce"), "unknown coalesce %q (known: auto, coalesce, keep)", c)
		}
	}
	if f := v.get("nulls_equal"); f != nil {
		if n.NullsEqual, err = boolean(f, p.field("nulls_equal")); err != nil {
			return nil, err
		}
	}
	if f := v.get("validate"); f != nil {
		c, err := str(f, p.field("validate"))
		if err != nil {
			return nil, err
		}
		var ok bool
		if n.Validate, ok = plan.ParseJoinValidate(c); !ok {
			return nil, errAt(f, p.field("validate"), "unknown validate %q (known: m:m, 1:1, 1:m, m:1)", c)
		}
	}
	if f := v.get("residual"); f != nil {
		if n.Residual, err = d.expr(f, p.field("residual")); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (d *decoder) extension(v *jvalue, p *path) (plan.Node, *Error) {
	nv := v.get("name")
	name, err := str(nv, p.field("name"))
	if err != nil {
		return nil, err
	}
	def, ok := d.exts.Lookup(name)
	if !ok {
		names := d.exts.Names()
		return nil, errAt(nv, p, "unknown extension %q (registered: %s)%s", name, list(names), suggest(name, names))
	}
	in, ins := v.get("input"), v.get("inputs")
	n := &plan.ExtensionNode{Def: def}
	switch {
	case in != nil && ins != nil:
		return nil, errAt(v, p, `an extension node has "input" (one child) or "inputs" (a list), not both`)
	case in != nil:
		child, err := d.node(in, p.field("input"))
		if err != nil {
			return nil, err
		}
		n.Inputs = []plan.Node{child}
	case ins != nil:
		if n.Inputs, err = d.nodeList(ins, p.field("inputs")); err != nil {
			return nil, err
		}
	default:
		return nil, errAt(v, p, `missing required field "input" (or "inputs") in an extension node`)
	}
	return n, nil
}

// exprKeys are the fields that say which expression an object is, each with
// the other fields it allows.
var exprKeys = []struct {
	key   string
	extra []string
}{
	{"col", nil},
	{"lit", []string{"type"}},
	{"fn", []string{"args"}},
	{"cast", []string{"to", "strict"}},
	{"alias", []string{"name"}},
	{"over", []string{"partition_by", "order_by"}},
	{"udf", []string{"args"}},
}

func isExprObject(v *jvalue) bool {
	for _, k := range exprKeys {
		if v.get(k.key) != nil {
			return true
		}
	}
	return false
}

func (d *decoder) exprList(v *jvalue, p *path) ([]plan.Expr, *Error) {
	items, err := array(v, p)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Expr, len(items))
	for i, it := range items {
		if out[i], err = d.expr(it, p.index(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// expr decodes an expression, with the "written" field optimizer output
// may carry: the expression it stands in for as written (plan.WithOrigin).
func (d *decoder) expr(v *jvalue, p *path) (plan.Expr, *Error) {
	x, err := d.exprBody(v, p)
	if err != nil {
		return nil, err
	}
	if w := v.get("written"); w != nil {
		o, err := d.exprBody(w, p.field("written"))
		if err != nil {
			return nil, err
		}
		x = plan.WithOrigin(x, o)
	}
	return x, nil
}

func (d *decoder) exprBody(v *jvalue, p *path) (plan.Expr, *Error) {
	if v.kind != jObject {
		return nil, errAt(v, p, `expected an expression (an object such as {"col": "a"}), got %s`, v.kind)
	}
	which := -1
	for i, k := range exprKeys {
		if v.get(k.key) == nil {
			continue
		}
		if which >= 0 {
			return nil, errAt(v, p, "an expression has both %q and %q; write one expression per object", exprKeys[which].key, k.key)
		}
		which = i
	}
	if which < 0 {
		if v.get("op") != nil {
			return nil, errAt(v, p, `expected an expression, got a plan node (an object with "op")`)
		}
		var keys []string
		for _, k := range exprKeys {
			keys = append(keys, k.key)
		}
		hint := ""
		if len(v.obj) > 0 {
			hint = suggest(v.obj[0].key, keys)
		}
		return nil, errAt(v, p, "expected an expression: an object with one of %s%s", list(keys), hint)
	}
	k := exprKeys[which]
	what := "a " + k.key + " expression"
	if k.key == "alias" || k.key == "over" {
		what = "an " + k.key + " expression"
	}
	if err := checkFields(v, p, what, append([]string{k.key, "written"}, k.extra...)); err != nil {
		return nil, err
	}
	body, bp := v.get(k.key), p.field(k.key)
	switch k.key {
	case "col":
		name, err := str(body, bp)
		if err != nil {
			return nil, err
		}
		return &plan.Column{Name: name}, nil
	case "lit":
		return d.literal(v, body, p)
	case "fn":
		name, err := str(body, bp)
		if err != nil {
			return nil, err
		}
		if name == "when" {
			// when(c1, v1, ..., otherwise) is a chain of if() calls.
			args, err := d.args(v, p)
			if err != nil {
				return nil, err
			}
			w, werr := plan.WhenExpr(args)
			if werr != nil {
				return nil, errAt(v, p, "%v", werr)
			}
			return w, nil
		}
		fn, ok := plan.ParseFunc(name)
		if !ok {
			var names []string
			for _, f := range plan.Funcs() {
				names = append(names, f.String())
			}
			hint := suggest(name, names)
			if _, isUDF := d.udfs.Lookup(name); isUDF {
				hint = fmt.Sprintf(`; %q is a udf: write {"udf": %q, "args": [...]}`, name, name)
			}
			return nil, errAt(body, p, "unknown function %q%s", name, hint)
		}
		args, err := d.args(v, p)
		if err != nil {
			return nil, err
		}
		return &plan.Call{Fn: fn, Args: args}, nil
	case "cast":
		inner, err := d.expr(body, bp)
		if err != nil {
			return nil, err
		}
		tv := v.get("to")
		if tv == nil {
			return nil, errAt(v, p, `missing required field "to" in a cast expression`)
		}
		to, err := parseType(tv, p.field("to"))
		if err != nil {
			return nil, err
		}
		strict := true
		if sv := v.get("strict"); sv != nil {
			if strict, err = boolean(sv, p.field("strict")); err != nil {
				return nil, err
			}
		}
		return &plan.Cast{Expr: inner, To: to, Strict: strict}, nil
	case "alias":
		inner, err := d.expr(body, bp)
		if err != nil {
			return nil, err
		}
		nv := v.get("name")
		if nv == nil {
			return nil, errAt(v, p, `missing required field "name" in an alias expression`)
		}
		name, err := str(nv, p.field("name"))
		if err != nil {
			return nil, err
		}
		return &plan.Alias{Expr: inner, Name: name}, nil
	case "over":
		agg, err := d.expr(body, bp)
		if err != nil {
			return nil, err
		}
		var parts []plan.Expr
		if pv := v.get("partition_by"); pv != nil {
			if parts, err = d.exprList(pv, p.field("partition_by")); err != nil {
				return nil, err
			}
		}
		var order []plan.SortKey
		if ov := v.get("order_by"); ov != nil {
			if order, err = d.sortKeys(ov, p.field("order_by")); err != nil {
				return nil, err
			}
		}
		return &plan.Over{Agg: agg, PartitionBy: parts, OrderBy: order}, nil
	case "udf":
		name, err := str(body, bp)
		if err != nil {
			return nil, err
		}
		u, ok := d.udfs.Lookup(name)
		if !ok {
			names := d.udfs.Names()
			hint := suggest(name, names)
			if _, builtin := plan.ParseFunc(name); builtin {
				hint = fmt.Sprintf(`; %q is a built-in function: write {"fn": %q, "args": [...]}`, name, name)
			}
			return nil, errAt(body, p, "unknown udf %q (registered: %s)%s", name, list(names), hint)
		}
		args, err := d.args(v, p)
		if err != nil {
			return nil, err
		}
		return &plan.UDFCall{UDF: u, Args: args}, nil
	}
	return nil, errAt(v, p, "unknown expression")
}

func (d *decoder) args(v *jvalue, p *path) ([]plan.Expr, *Error) {
	if a := v.get("args"); a != nil {
		return d.exprList(a, p.field("args"))
	}
	return nil, nil
}

// literal decodes {"lit": V, "type": T}. Without "type" the type follows
// the JSON value: an integer number is int64, any other number float64, a
// string a string, a bool a bool; a null needs a type.
func (d *decoder) literal(v, body *jvalue, p *path) (plan.Expr, *Error) {
	var t plan.Type
	if tv := v.get("type"); tv != nil {
		var err *Error
		if t, err = parseType(tv, p.field("type")); err != nil {
			return nil, err
		}
	} else {
		switch body.kind {
		case jNumber:
			t = plan.Int64
			for _, c := range body.s {
				if c == '.' || c == 'e' || c == 'E' {
					t = plan.Float64
				}
			}
		case jString:
			t = plan.String
		case jBool:
			t = plan.Bool
		case jNull:
			return nil, errAt(v, p, `a null literal needs a "type": {"lit": null, "type": "int64"}`)
		default:
			return nil, errAt(body, p.field("lit"), "a literal is a number, string, bool or null, got %s", body.kind)
		}
	}
	val, msg := decodeValue(body, t)
	if msg != "" {
		return nil, errAt(body, p.field("lit"), "%s", msg)
	}
	return &plan.Literal{Value: val}, nil
}

// sourceSchema asks a (possibly host-provided) source for its schema,
// turning a panic into an error.
func sourceSchema(src plan.Source) (s plan.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the source's Schema panicked: %v", r)
		}
	}()
	return src.Schema(), nil
}

// asofJoin decodes an asof_join node: "on" names a key of both inputs
// (else "left_on" and "right_on"), "by" by-keys of both (else "left_by"
// and "right_by").
func (d *decoder) asofJoin(v *jvalue, p *path) (plan.Node, *Error) {
	n := &plan.AsOfJoinNode{}
	var err *Error
	if n.Left, err = d.node(v.get("left"), p.field("left")); err != nil {
		return nil, err
	}
	if n.Right, err = d.node(v.get("right"), p.field("right")); err != nil {
		return nil, err
	}
	if on := v.get("on"); on != nil {
		if v.get("left_on") != nil || v.get("right_on") != nil {
			return nil, errAt(on, p.field("on"), "asof_join: give either \"on\" or \"left_on\" and \"right_on\", not both")
		}
		if n.LeftOn, err = str(on, p.field("on")); err != nil {
			return nil, err
		}
		n.RightOn = n.LeftOn
	} else {
		lv, rv := v.get("left_on"), v.get("right_on")
		if lv == nil || rv == nil {
			return nil, errAt(v, p, "asof_join: missing the key: \"on\", or \"left_on\" and \"right_on\"")
		}
		if n.LeftOn, err = str(lv, p.field("left_on")); err != nil {
			return nil, err
		}
		if n.RightOn, err = str(rv, p.field("right_on")); err != nil {
			return nil, err
		}
	}
	if by := v.get("by"); by != nil {
		if v.get("left_by") != nil || v.get("right_by") != nil {
			return nil, errAt(by, p.field("by"), "asof_join: give either \"by\" or \"left_by\" and \"right_by\", not both")
		}
		if n.LeftBy, err = stringList(by, p.field("by")); err != nil {
			return nil, err
		}
		n.RightBy = n.LeftBy
	} else {
		if f := v.get("left_by"); f != nil {
			if n.LeftBy, err = stringList(f, p.field("left_by")); err != nil {
				return nil, err
			}
		}
		if f := v.get("right_by"); f != nil {
			if n.RightBy, err = stringList(f, p.field("right_by")); err != nil {
				return nil, err
			}
		}
	}
	if f := v.get("strategy"); f != nil {
		s, err := str(f, p.field("strategy"))
		if err != nil {
			return nil, err
		}
		st, ok := plan.ParseAsofStrategy(s)
		if !ok {
			names := []string{"backward", "forward", "nearest"}
			return nil, errAt(f, p.field("strategy"), "unknown asof strategy %q (known: %s)%s", s, list(names), suggest(s, names))
		}
		n.Strategy = st
	}
	if f := v.get("tolerance"); f != nil {
		if n.Tolerance, err = d.expr(f, p.field("tolerance")); err != nil {
			return nil, err
		}
	}
	if f := v.get("allow_exact_matches"); f != nil {
		allow, err := boolean(f, p.field("allow_exact_matches"))
		if err != nil {
			return nil, err
		}
		n.ExcludeExact = !allow
	}
	if f := v.get("suffix"); f != nil {
		if n.Suffix, err = str(f, p.field("suffix")); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// temporalGroup decodes a temporal_group node.
func (d *decoder) temporalGroup(v *jvalue, p *path, in plan.Node) (plan.Node, *Error) {
	n := &plan.TemporalGroupNode{Input: in}
	mv := v.get("mode")
	ms, err := str(mv, p.field("mode"))
	if err != nil {
		return nil, err
	}
	mode, ok := plan.ParseTemporalMode(ms)
	if !ok {
		names := []string{"dynamic", "rolling"}
		return nil, errAt(mv, p.field("mode"), "unknown temporal_group mode %q (known: %s)%s", ms, list(names), suggest(ms, names))
	}
	n.Mode = mode
	if n.Index, err = str(v.get("index"), p.field("index")); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		dst  *plan.Expr
	}{{"every", &n.Every}, {"period", &n.Period}, {"offset", &n.Offset}} {
		if fv := v.get(f.name); fv != nil {
			if *f.dst, err = d.expr(fv, p.field(f.name)); err != nil {
				return nil, err
			}
		}
	}
	if f := v.get("closed"); f != nil {
		s, err := str(f, p.field("closed"))
		if err != nil {
			return nil, err
		}
		c, ok := plan.ParseWindowClosed(s)
		if !ok {
			names := []string{"left", "right", "both", "none"}
			return nil, errAt(f, p.field("closed"), "unknown closed %q (known: %s)%s", s, list(names), suggest(s, names))
		}
		n.Closed = c
	}
	if f := v.get("label"); f != nil {
		s, err := str(f, p.field("label"))
		if err != nil {
			return nil, err
		}
		l, ok := plan.ParseWindowLabel(s)
		if !ok {
			names := []string{"left", "right", "datapoint"}
			return nil, errAt(f, p.field("label"), "unknown label %q (known: %s)%s", s, list(names), suggest(s, names))
		}
		n.LabelKind = l
	}
	if f := v.get("by"); f != nil {
		if n.By, err = stringList(f, p.field("by")); err != nil {
			return nil, err
		}
	}
	if n.Aggs, err = d.exprList(v.get("aggs"), p.field("aggs")); err != nil {
		return nil, err
	}
	return n, nil
}
