package eager

// The type checks of every operation. Each mirrors the corresponding
// resolve function of plan/resolve.go check for check and in the same order,
// so that a failing operation reports the *plan.Error kind and expression
// text plan.Resolve reports for the equivalent node. They are written here
// again on purpose (the eager chain must not trust the plan machinery it
// checks); the tests compare both on every operation. p is the node's path
// in plan-file syntax ("" for a direct DataFrame call).

import (
	"github.com/dfopt/dfopt/plan"
)

// noWindow rejects over() where only project and with_columns allow it.
func noWindow(e plan.Expr, p, where string) error {
	if plan.ContainsOver(e) {
		return planErr(plan.InvalidPlan, e.String(), p, "%s: over() is allowed only in project and with_columns", where)
	}
	return nil
}

func checkScan(n *plan.ScanNode, p string) (plan.Schema, error) {
	if n.Source == nil {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".table", "scan: no source")
	}
	src := n.SourceSchema
	for i, pp := range n.Pushed {
		f, err := plan.TypeOf(pp.Expr, src)
		if err != nil {
			return plan.Schema{}, exprError(err, field(p, "pushed", i))
		}
		if f.Type != plan.Bool {
			return plan.Schema{}, planErr(plan.TypeError, pp.Expr.String(), field(p, "pushed", i),
				"scan: a pushed predicate must be bool, got %s", f.Type)
		}
	}
	if !n.Projected {
		return src, nil
	}
	fields := make([]plan.Field, 0, len(n.Columns))
	for i, c := range n.Columns {
		f, ok := src.Lookup(c)
		if !ok {
			return plan.Schema{}, planErr(plan.UnknownColumn, quoteName(c), field(p, "columns", i),
				"scan: source %s has no column %q", sourceLabel(n.Source), c)
		}
		fields = append(fields, f)
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		return plan.Schema{}, planErr(plan.DuplicateColumn, "", p+".columns", "%v", err)
	}
	return s, nil
}

func checkFilter(in plan.Schema, preds []plan.Expr, p string) (plan.Schema, error) {
	if len(preds) == 0 {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".predicates", "filter: no predicates")
	}
	for i, e := range preds {
		pp := field(p, "predicates", i)
		if e != nil {
			if err := noWindow(e, pp, "filter"); err != nil {
				return plan.Schema{}, err
			}
		}
		f, err := plan.TypeOf(e, in)
		if err != nil {
			return plan.Schema{}, exprError(err, pp)
		}
		if f.Type != plan.Bool {
			return plan.Schema{}, planErr(plan.TypeError, e.String(), pp, "filter: a predicate must be bool, got %s", f.Type)
		}
	}
	return in, nil
}

// typeFields types each expression in a row context.
func typeFields(exprs []plan.Expr, in plan.Schema, p, name string) ([]plan.Field, error) {
	fields := make([]plan.Field, len(exprs))
	for i, e := range exprs {
		f, err := plan.TypeOf(e, in)
		if err != nil {
			return nil, exprError(err, field(p, name, i))
		}
		fields[i] = f
	}
	return fields, nil
}

// uniqueFields rejects an output name produced twice.
func uniqueFields(fields []plan.Field, exprs []plan.Expr, p, name string) (plan.Schema, error) {
	seen := make(map[string]int, len(fields))
	for i, f := range fields {
		if j, dup := seen[f.Name]; dup {
			return plan.Schema{}, planErr(plan.DuplicateColumn, quoteName(f.Name), field(p, name, i),
				"output column %q is produced twice (by `%s` and `%s`); alias one of them", f.Name, exprs[j], exprs[i])
		}
		seen[f.Name] = i
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+"."+name, "%v", err)
	}
	return s, nil
}

func checkProject(exprs []plan.Expr, in plan.Schema, p string) (plan.Schema, error) {
	fields, err := typeFields(exprs, in, p, "exprs")
	if err != nil {
		return plan.Schema{}, err
	}
	return uniqueFields(fields, exprs, p, "exprs")
}

// checkWithColumns types exprs over in and lays the output out over pass,
// the columns passed through (in itself, except over a window, whose
// temporaries are not passed through): a name of pass is replaced in
// place, a new one appended.
func checkWithColumns(exprs []plan.Expr, in, pass plan.Schema, p string) (plan.Schema, error) {
	fields, err := typeFields(exprs, in, p, "exprs")
	if err != nil {
		return plan.Schema{}, err
	}
	if _, err := uniqueFields(fields, exprs, p, "exprs"); err != nil {
		return plan.Schema{}, err
	}
	out := pass.Fields()
	index := make(map[string]int, len(out))
	for i, f := range out {
		index[f.Name] = i
	}
	for _, f := range fields {
		if i, ok := index[f.Name]; ok {
			out[i] = f
		} else {
			index[f.Name] = len(out)
			out = append(out, f)
		}
	}
	s, err := plan.NewSchema(out...)
	if err != nil {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".exprs", "%v", err)
	}
	return s, nil
}

func checkSort(in plan.Schema, keys []plan.SortKey, p string) (plan.Schema, error) {
	if len(keys) == 0 {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".keys", "sort: no keys")
	}
	for i, k := range keys {
		kp := field(p, "keys", i) + ".expr"
		if k.Expr != nil {
			if err := noWindow(k.Expr, kp, "sort"); err != nil {
				return plan.Schema{}, err
			}
		}
		if _, err := plan.TypeOf(k.Expr, in); err != nil {
			return plan.Schema{}, exprError(err, kp)
		}
	}
	return in, nil
}

func checkLimit(in plan.Schema, n int64, p string) (plan.Schema, error) {
	if n < 0 {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".n", "limit: n must not be negative, got %d", n)
	}
	return in, nil
}

func checkSlice(in plan.Schema, offset, length int64, p string) (plan.Schema, error) {
	switch {
	case offset < 0:
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".offset", "slice: offset must not be negative, got %d", offset)
	case length < 0:
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".len", "slice: len must not be negative, got %d", length)
	}
	return in, nil
}

func checkAggregate(in plan.Schema, keys, aggs []plan.Expr, p string) (plan.Schema, error) {
	fields := make([]plan.Field, 0, len(keys)+len(aggs))
	all := make([]plan.Expr, 0, len(keys)+len(aggs))
	for i, k := range keys {
		kp := field(p, "keys", i)
		if k != nil {
			if err := noWindow(k, kp, "aggregate keys"); err != nil {
				return plan.Schema{}, err
			}
		}
		f, err := plan.TypeOf(k, in)
		if err != nil {
			return plan.Schema{}, exprError(err, kp)
		}
		fields = append(fields, f)
		all = append(all, k)
	}
	for i, a := range aggs {
		ap := field(p, "aggs", i)
		if a != nil {
			if err := noWindow(a, ap, "aggregate"); err != nil {
				return plan.Schema{}, err
			}
		}
		f, err := plan.AggTypeOf(a, in)
		if err != nil {
			return plan.Schema{}, exprError(err, ap)
		}
		if len(keys) == 0 {
			// One row even over empty input: count and len are 0, the rest null.
			if c, ok := plan.Unalias(a).(*plan.Call); ok && c.Fn != plan.FuncCount && c.Fn != plan.FuncLen {
				f.Nullable = true
			}
		}
		fields = append(fields, f)
		all = append(all, a)
	}
	seen := map[string]int{}
	for i, f := range fields {
		if j, dup := seen[f.Name]; dup {
			fp := field(p, "keys", i)
			if i >= len(keys) {
				fp = field(p, "aggs", i-len(keys))
			}
			return plan.Schema{}, planErr(plan.DuplicateColumn, quoteName(f.Name), fp,
				"output column %q is produced twice (by `%s` and `%s`); alias one of them", f.Name, all[j], all[i])
		}
		seen[f.Name] = i
	}
	s, err := plan.NewSchema(fields...)
	if err != nil {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p, "%v", err)
	}
	return s, nil
}

// joinLayout is a checked join: its output schema and, for every right
// column, whether it is kept (the right keys an inner or left join drops
// are not).
type joinLayout struct {
	schema    plan.Schema
	keepRight []bool
}

// droppedRightKeys is the set of right columns an inner or left join drops:
// plain key columns named like their plain left key (they equal the left
// key on every output row).
func droppedRightKeys(how plan.JoinKind, leftOn, rightOn []plan.Expr) map[string]bool {
	if how != plan.InnerJoin && how != plan.LeftJoin {
		return nil
	}
	dropped := map[string]bool{}
	for i := range leftOn {
		if i >= len(rightOn) {
			break
		}
		l, lok := leftOn[i].(*plan.Column)
		r, rok := rightOn[i].(*plan.Column)
		if lok && rok && l.Name == r.Name {
			dropped[r.Name] = true
		}
	}
	return dropped
}

func checkJoin(ls, rs plan.Schema, how plan.JoinKind, leftOn, rightOn []plan.Expr, suffix, p string) (joinLayout, error) {
	if how > plan.CrossJoin {
		return joinLayout{}, planErr(plan.InvalidPlan, "", p+".kind", "join: invalid kind")
	}
	if len(leftOn) != len(rightOn) {
		return joinLayout{}, planErr(plan.InvalidPlan, "", p+".right_on", "join: %d left keys but %d right keys", len(leftOn), len(rightOn))
	}
	if how == plan.CrossJoin && len(leftOn) > 0 {
		return joinLayout{}, planErr(plan.InvalidPlan, "", p+".left_on", "join: a cross join takes no keys")
	}
	if how != plan.CrossJoin && len(leftOn) == 0 {
		return joinLayout{}, planErr(plan.InvalidPlan, "", p+".left_on", "join: a %s join needs at least one key", how)
	}
	for i := range leftOn {
		lp, rp := field(p, "left_on", i), field(p, "right_on", i)
		if leftOn[i] != nil {
			if err := noWindow(leftOn[i], lp, "join"); err != nil {
				return joinLayout{}, err
			}
		}
		if rightOn[i] != nil {
			if err := noWindow(rightOn[i], rp, "join"); err != nil {
				return joinLayout{}, err
			}
		}
		lf, err := plan.TypeOf(leftOn[i], ls)
		if err != nil {
			return joinLayout{}, exprError(err, lp)
		}
		rf, err := plan.TypeOf(rightOn[i], rs)
		if err != nil {
			return joinLayout{}, exprError(err, rp)
		}
		if _, ok := plan.JoinKeyType(lf.Type, rf.Type); !ok {
			return joinLayout{}, planErr(plan.TypeError, leftOn[i].String()+" = "+rightOn[i].String(), rp,
				"join: cannot compare key types %s and %s", lf.Type, rf.Type)
		}
	}
	if how == plan.SemiJoin || how == plan.AntiJoin {
		return joinLayout{schema: ls, keepRight: make([]bool, rs.Len())}, nil
	}
	out := ls.Fields()
	if how == plan.RightJoin || how == plan.FullJoin {
		for i := range out {
			out[i].Nullable = true
		}
	}
	names := make(map[string]bool, len(out)+rs.Len())
	left := make(map[string]bool, len(out))
	for _, f := range out {
		names[f.Name] = true
		left[f.Name] = true
	}
	dropped := droppedRightKeys(how, leftOn, rightOn)
	right := make(map[string]bool, rs.Len())
	for _, name := range rs.Names() {
		if !dropped[name] {
			right[name] = true
		}
	}
	if suffix == "" {
		suffix = plan.DefaultJoinSuffix
	}
	keep := make([]bool, rs.Len())
	for i := 0; i < rs.Len(); i++ {
		f := rs.Field(i)
		if dropped[f.Name] {
			continue
		}
		keep[i] = true
		if how == plan.LeftJoin || how == plan.FullJoin {
			f.Nullable = true
		}
		if left[f.Name] {
			f.Name += suffix
			if names[f.Name] || right[f.Name] {
				return joinLayout{}, planErr(plan.DuplicateColumn, quoteName(f.Name), p+".suffix",
					"join: right column %q collides with %q even after the suffix %q", rs.Field(i).Name, f.Name, suffix)
			}
		}
		names[f.Name] = true
		out = append(out, f)
	}
	s, err := plan.NewSchema(out...)
	if err != nil {
		return joinLayout{}, planErr(plan.InvalidPlan, "", p, "%v", err)
	}
	return joinLayout{schema: s, keepRight: keep}, nil
}

func checkUnion(ins []plan.Schema, p string) (plan.Schema, error) {
	if len(ins) == 0 {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".inputs", "union: no inputs")
	}
	out := ins[0].Fields()
	for i := 1; i < len(ins); i++ {
		s := ins[i]
		if s.Len() != len(out) {
			return plan.Schema{}, planErr(plan.TypeError, "", field(p, "inputs", i),
				"union: input %d has %d columns, input 0 has %d", i, s.Len(), len(out))
		}
		for j := range out {
			f := s.Field(j)
			if f.Name != out[j].Name || f.Type != out[j].Type {
				return plan.Schema{}, planErr(plan.TypeError, quoteName(f.Name), field(p, "inputs", i),
					"union: input %d column %d is %s, input 0 has %s", i, j, f, out[j])
			}
			out[j].Nullable = out[j].Nullable || f.Nullable
		}
	}
	s, err := plan.NewSchema(out...)
	if err != nil {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p, "%v", err)
	}
	return s, nil
}

func checkDistinct(in plan.Schema, subset []string, p string) (plan.Schema, error) {
	seen := map[string]bool{}
	for i, c := range subset {
		if _, ok := in.Lookup(c); !ok {
			return plan.Schema{}, planErr(plan.UnknownColumn, quoteName(c), field(p, "subset", i),
				"distinct: column %q not found; the input has %v", c, in.Names())
		}
		if seen[c] {
			return plan.Schema{}, planErr(plan.DuplicateColumn, quoteName(c), field(p, "subset", i),
				"distinct: column %q listed twice", c)
		}
		seen[c] = true
	}
	return in, nil
}

func checkWindow(in plan.Schema, exprs []plan.Expr, p string) (plan.Schema, error) {
	out := in.Fields()
	for i, e := range exprs {
		text := "<nil>"
		if e != nil {
			text = e.String()
		}
		a, ok := e.(*plan.Alias)
		if !ok {
			return plan.Schema{}, planErr(plan.InvalidPlan, text, field(p, "exprs", i), "window: each entry must be an aliased over()")
		}
		if _, ok := a.Expr.(*plan.Over); !ok {
			return plan.Schema{}, planErr(plan.InvalidPlan, text, field(p, "exprs", i), "window: each entry must be an aliased over()")
		}
		f, err := plan.TypeOf(e, in)
		if err != nil {
			return plan.Schema{}, exprError(err, field(p, "exprs", i))
		}
		out = append(out, f)
	}
	s, err := plan.NewSchema(out...)
	if err != nil {
		return plan.Schema{}, planErr(plan.DuplicateColumn, "", p+".exprs", "window: %v", err)
	}
	return s, nil
}

func checkExtension(def *plan.ExtensionDef, ins []plan.Schema, p string) (s plan.Schema, err error) {
	if def == nil {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".name", "extension: no declaration")
	}
	if len(ins) == 0 {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p+".input", "extension %s: needs at least one input", def.Name)
	}
	if len(ins) != def.Inputs {
		return plan.Schema{}, planErr(plan.InvalidPlan, "", p, "extension %s: takes %d inputs, got %d", def.Name, def.Inputs, len(ins))
	}
	if def.OutputSchema == nil {
		return ins[0], nil
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = plan.Schema{}, planErr(plan.InvalidPlan, "", p, "extension %s: OutputSchema panicked: %v", def.Name, r)
		}
	}()
	s, err = def.OutputSchema(append([]plan.Schema(nil), ins...))
	if err != nil {
		e := planErr(plan.InvalidPlan, "", p, "extension %s: %v", def.Name, err)
		e.Err = err
		return plan.Schema{}, e
	}
	return s, nil
}

// sourceLabel is a source's name for messages, defending against a
// panicking host Name method.
func sourceLabel(s plan.Source) (name string) {
	if s == nil {
		return "<no source>"
	}
	defer func() {
		if recover() != nil {
			name = "<source>"
		}
	}()
	return s.Name()
}
