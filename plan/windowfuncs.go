package plan

// RankMethod returns the method of a rank(x, method) call: "dense" or
// "min", given as a non-null string literal (docs/semantics.md, Window
// functions and ordered windows); anything else is a type error naming the
// call.
func RankMethod(c *Call) (string, error) {
	if c == nil || c.Fn != FuncRank || len(c.Args) != 2 {
		return "", errorf(TypeError, c, "rank: expects rank(x, \"dense\") or rank(x, \"min\")")
	}
	lit, ok := Unalias(c.Args[1]).(*Literal)
	if !ok || lit.Value.Type() != String || lit.Value.IsNull() {
		return "", errorf(TypeError, c, "rank: the method must be the string literal \"dense\" or \"min\"")
	}
	switch m := lit.Value.Str(); m {
	case "dense", "min":
		return m, nil
	}
	return "", errorf(TypeError, c, "rank: unknown method %q (dense or min)", lit.Value.Str())
}

// ShiftParams returns the distance and the default of a shift(x, n) or
// shift(x, n, default) call whose x has type t: n a non-null integer
// literal, default a literal of type t (a typed null allowed; a null of t
// when the call has none). Anything else is a type error naming the call.
func ShiftParams(c *Call, t Type) (n int64, def Value, err error) {
	if c == nil || c.Fn != FuncShift || len(c.Args) < 2 || len(c.Args) > 3 {
		return 0, Value{}, errorf(TypeError, c, "shift: expects shift(x, n) or shift(x, n, default)")
	}
	lit, ok := Unalias(c.Args[1]).(*Literal)
	if !ok || !lit.Value.Type().IsInteger() || lit.Value.IsNull() {
		return 0, Value{}, errorf(TypeError, c, "shift: the distance n must be a non-null integer literal")
	}
	n = lit.Value.Int()
	def = NullValue(t)
	if len(c.Args) == 3 {
		d, ok := Unalias(c.Args[2]).(*Literal)
		if !ok || d.Value.Type() != t {
			return 0, Value{}, errorf(TypeError, c, "shift: the default must be a literal of the shifted value's type %s", t)
		}
		def = d.Value
	}
	return n, def, nil
}
