package plan

import "fmt"

// Frame builds a plan fluently, in the style of a Polars LazyFrame:
//
//	plan.Scan(src).Filter(plan.Col("a").Gt(plan.Lit(5))).Select(plan.Col("a"))
//
// Building never fails; Resolve (or collecting) reports what is wrong.
type Frame struct{ node Node }

// FromNode wraps an existing plan to continue building on it.
func FromNode(n Node) Frame { return Frame{node: n} }

// Node returns the plan built so far.
func (f Frame) Node() Node { return f.node }

// Scan starts a plan that reads src; the source's schema is captured now.
func Scan(src Source) Frame {
	n := &ScanNode{Source: src}
	if src != nil {
		n.SourceSchema, n.schemaErr = captureSchema(src)
	}
	return Frame{node: n}
}

// captureSchema calls a host's Schema, turning a panic into an error the
// scan reports when it is resolved.
func captureSchema(src Source) (s Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = Schema{}, fmt.Errorf("Schema panicked: %v", r)
		}
	}()
	return src.Schema(), nil
}

// Filter keeps the rows for which every predicate is valid and true.
func (f Frame) Filter(predicates ...E) Frame {
	return Frame{node: &FilterNode{Input: f.node, Predicates: unwrap(predicates)}}
}

// Select computes one column per expression.
func (f Frame) Select(exprs ...E) Frame {
	return Frame{node: &ProjectNode{Input: f.node, Exprs: unwrap(exprs)}}
}

// WithColumns adds or replaces columns.
func (f Frame) WithColumns(exprs ...E) Frame {
	return Frame{node: &WithColumnsNode{Input: f.node, Exprs: unwrap(exprs)}}
}

// Sort orders rows stably by the given keys (see Asc, Desc).
func (f Frame) Sort(keys ...SortKey) Frame {
	return Frame{node: &SortNode{Input: f.node, Keys: append([]SortKey(nil), keys...)}}
}

// SortBy orders rows ascending, nulls first, by the named columns.
func (f Frame) SortBy(columns ...string) Frame {
	keys := make([]SortKey, len(columns))
	for i, c := range columns {
		keys[i] = SortKey{Expr: &Column{Name: c}}
	}
	return f.Sort(keys...)
}

// Head keeps the first n rows.
func (f Frame) Head(n int64) Frame { return Frame{node: &LimitNode{Input: f.node, N: n}} }

// Slice keeps length rows starting at offset (a negative length: every
// row from offset to the end).
func (f Frame) Slice(offset, length int64) Frame {
	return Frame{node: &SliceNode{Input: f.node, Offset: offset, Len: length}}
}

// Tail keeps the last n rows, in input order.
func (f Frame) Tail(n int64) Frame { return Frame{node: &TailNode{Input: f.node, N: n}} }

// Reverse yields the rows in the opposite order.
func (f Frame) Reverse() Frame { return Frame{node: &ReverseNode{Input: f.node}} }

// WithRowIndex prepends the non-null int64 column name numbering the rows
// from offset, in input order.
func (f Frame) WithRowIndex(name string, offset int64) Frame {
	return Frame{node: &RowIndexNode{Input: f.node, Name: name, Offset: offset}}
}

// Distinct keeps the first row of each distinct combination of the named
// columns (all columns when none are named).
func (f Frame) Distinct(subset ...string) Frame {
	return Frame{node: &DistinctNode{Input: f.node, Subset: append([]string(nil), subset...)}}
}

// GroupBy starts an aggregation; finish it with Agg.
func (f Frame) GroupBy(keys ...E) GroupBy { return GroupBy{input: f.node, keys: unwrap(keys)} }

// Agg computes aggregates over the whole input (one row).
func (f Frame) Agg(aggs ...E) Frame { return f.GroupBy().Agg(aggs...) }

// GroupBy is a pending aggregation.
type GroupBy struct {
	input Node
	keys  []Expr
}

// Agg finishes the aggregation.
func (g GroupBy) Agg(aggs ...E) Frame {
	return Frame{node: &AggregateNode{Input: g.input, Keys: g.keys, Aggs: unwrap(aggs)}}
}

// Join joins f (left) with right on pairwise-equal keys.
func (f Frame) Join(right Frame, how JoinKind, leftOn, rightOn []E) Frame {
	return Frame{node: &JoinNode{Left: f.node, Right: right.node, How: how, LeftOn: unwrap(leftOn), RightOn: unwrap(rightOn)}}
}

// JoinOn joins on columns that have the same names on both sides.
func (f Frame) JoinOn(right Frame, how JoinKind, columns ...string) Frame {
	keys := make([]E, len(columns))
	for i, c := range columns {
		keys[i] = Col(c)
	}
	return f.Join(right, how, keys, keys)
}

// WithSuffix sets the suffix of the join just built (it must be the last
// step); it is a no-op on anything else.
func (f Frame) WithSuffix(suffix string) Frame {
	if j, ok := f.node.(*JoinNode); ok && !j.Resolved() {
		c := *j
		c.Suffix = suffix
		return Frame{node: &c}
	}
	return f
}

// JoinOptions are a join's options (docs/semantics.md, join options); the
// zero value is the plain join.
type JoinOptions struct {
	Coalesce   JoinCoalesce
	NullsEqual bool
	Validate   JoinValidate
	// Residual is a semi or anti join's per-pair predicate over the pair
	// schema (colliding right names suffixed); the zero E means none.
	Residual E
}

// WithJoinOptions sets the options of the join just built (it must be the
// last step); it is a no-op on anything else.
func (f Frame) WithJoinOptions(o JoinOptions) Frame {
	if j, ok := f.node.(*JoinNode); ok && !j.Resolved() {
		c := *j
		c.Coalesce, c.NullsEqual, c.Validate = o.Coalesce, o.NullsEqual, o.Validate
		c.Residual = o.Residual.x
		return Frame{node: &c}
	}
	return f
}

// CrossJoin pairs every left row with every right row.
func (f Frame) CrossJoin(right Frame) Frame {
	return Frame{node: &JoinNode{Left: f.node, Right: right.node, How: CrossJoin}}
}

// JoinWhere joins f with right the way a SQL front end writes
// `FROM f, right WHERE predicates`: a filter of the predicates over the
// cross join of the two, whose columns are f's, then right's with a
// colliding name suffixed ("k_right"). The predicates read those output
// names. It is the shape the standard tier's collapse_cross_join turns
// into an inner hash join on the predicates that equate a left expression
// with a right one, when it can prove nothing observable changes.
func (f Frame) JoinWhere(right Frame, predicates ...E) Frame {
	return f.CrossJoin(right).Filter(predicates...)
}

// Union concatenates f and others.
func (f Frame) Union(others ...Frame) Frame {
	inputs := []Node{f.node}
	for _, o := range others {
		inputs = append(inputs, o.node)
	}
	return Frame{node: &UnionNode{Inputs: inputs}}
}

// UnionDiagonal concatenates f and others, which may have different column
// sets: the output has every column in order of first appearance, and an
// input lacking one contributes nulls.
func (f Frame) UnionDiagonal(others ...Frame) Frame {
	u := f.Union(others...)
	u.node.(*UnionNode).Diagonal = true
	return u
}

// Extension applies a host-defined operator to f and any further inputs.
func (f Frame) Extension(def *ExtensionDef, more ...Frame) Frame {
	inputs := []Node{f.node}
	for _, o := range more {
		inputs = append(inputs, o.node)
	}
	return Frame{node: &ExtensionNode{Def: def, Inputs: inputs}}
}

// Asc is an ascending, nulls-first sort key.
func Asc(e E) SortKey { return SortKey{Expr: e.x} }

// Desc is a descending, nulls-first sort key.
func Desc(e E) SortKey { return SortKey{Expr: e.x, Desc: true} }

// E wraps an expression with fluent constructors:
// plan.Col("a").Add(plan.Lit(1)).Alias("b"). It deliberately does not
// implement Expr; call Expr() to get the expression.
type E struct{ x Expr }

// Wrap lifts an Expr into the fluent API.
func Wrap(e Expr) E { return E{x: e} }

// Expr returns the built expression.
func (e E) Expr() Expr { return e.x }

// String returns the canonical text.
func (e E) String() string { return render(e.x, 0) }

func unwrap(es []E) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = e.x
	}
	return out
}

// Col references a column.
func Col(name string) E { return E{&Column{Name: name}} }

// Lit is a literal from a Go value: int and int64 become int64, int8,
// int16, int32, uint8, uint16, uint32, uint64 and float32 keep their types
// (uint, whose width varies, does not), float64, string and bool map to
// their types, and a Value is used as is. Anything else becomes a typed null of type invalid, which Resolve
// rejects.
func Lit(v any) E {
	switch v := v.(type) {
	case int:
		return E{&Literal{Value: Int64Value(int64(v))}}
	case int64:
		return E{&Literal{Value: Int64Value(v)}}
	case int32:
		return E{&Literal{Value: Int32Value(v)}}
	case int8:
		return E{&Literal{Value: Int8Value(v)}}
	case int16:
		return E{&Literal{Value: Int16Value(v)}}
	case uint8:
		return E{&Literal{Value: Uint8Value(v)}}
	case uint16:
		return E{&Literal{Value: Uint16Value(v)}}
	case uint32:
		return E{&Literal{Value: Uint32Value(v)}}
	case uint64:
		return E{&Literal{Value: Uint64Value(v)}}
	case float32:
		return E{&Literal{Value: Float32Value(v)}}
	case float64:
		return E{&Literal{Value: Float64Value(v)}}
	case string:
		return E{&Literal{Value: StringValue(v)}}
	case bool:
		return E{&Literal{Value: BoolValue(v)}}
	case Value:
		return E{&Literal{Value: v}}
	}
	return E{&Literal{Value: NullValue(Invalid), bad: fmt.Sprintf("%T %s", v, Abbrev(fmt.Sprint(v), 40))}}
}

// Null is the typed null literal.
func Null(t Type) E { return E{&Literal{Value: NullValue(t)}} }

func call(fn Func, args ...E) E { return E{&Call{Fn: fn, Args: unwrap(args)}} }

// Add is e + o (checked for integers).
func (e E) Add(o E) E { return call(FuncAdd, e, o) }

// Sub is e - o (checked for integers).
func (e E) Sub(o E) E { return call(FuncSub, e, o) }

// Mul is e * o (checked for integers).
func (e E) Mul(o E) E { return call(FuncMul, e, o) }

// Div is e / o: truncating and checked for integers, IEEE for floats.
func (e E) Div(o E) E { return call(FuncDiv, e, o) }

// Mod is e % o, with the sign of e.
func (e E) Mod(o E) E { return call(FuncMod, e, o) }

// Neg is -e (checked for integers).
func (e E) Neg() E { return call(FuncNeg, e) }

// Abs is |e| (checked for integers).
func (e E) Abs() E { return call(FuncAbs, e) }

// Eq is e == o.
func (e E) Eq(o E) E { return call(FuncEq, e, o) }

// Ne is e != o.
func (e E) Ne(o E) E { return call(FuncNe, e, o) }

// Lt is e < o.
func (e E) Lt(o E) E { return call(FuncLt, e, o) }

// Le is e <= o.
func (e E) Le(o E) E { return call(FuncLe, e, o) }

// Gt is e > o.
func (e E) Gt(o E) E { return call(FuncGt, e, o) }

// Ge is e >= o.
func (e E) Ge(o E) E { return call(FuncGe, e, o) }

// And is Kleene e and o.
func (e E) And(o E) E { return call(FuncAnd, e, o) }

// Or is Kleene e or o.
func (e E) Or(o E) E { return call(FuncOr, e, o) }

// Not is logical negation.
func (e E) Not() E { return call(FuncNot, e) }

// IsNull tests for null.
func (e E) IsNull() E { return call(FuncIsNull, e) }

// IsNotNull tests for a value.
func (e E) IsNotNull() E { return call(FuncIsNotNull, e) }

// IsNaN tests a float for NaN.
func (e E) IsNaN() E { return call(FuncIsNaN, e) }

// StrLen counts the code points of a string.
func (e E) StrLen() E { return call(FuncStrLen, e) }

// StrLenBytes counts the bytes of a string.
func (e E) StrLenBytes() E { return call(FuncStrLenBytes, e) }

// Lower maps every character to lower case (Go's unicode.ToLower; invalid
// UTF-8 bytes pass unchanged).
func (e E) Lower() E { return call(FuncLower, e) }

// Upper maps every character to upper case (Go's unicode.ToUpper; invalid
// UTF-8 bytes pass unchanged).
func (e E) Upper() E { return call(FuncUpper, e) }

// StartsWith tests whether e's bytes begin with prefix's.
func (e E) StartsWith(prefix E) E { return call(FuncStartsWith, e, prefix) }

// EndsWith tests whether e's bytes end with suffix's.
func (e E) EndsWith(suffix E) E { return call(FuncEndsWith, e, suffix) }

// Contains tests whether e's bytes contain sub's (a literal substring, not
// a regular expression).
func (e E) Contains(sub E) E { return call(FuncContains, e, sub) }

// Like matches e against a SQL LIKE pattern (% any run of characters, _
// one character), character by character.
func (e E) Like(pattern E) E { return call(FuncLike, e, pattern) }

// LikeEscape is Like with an escape character: escape must be a string
// literal of one character; it makes the next pattern character literal.
func (e E) LikeEscape(pattern, escape E) E { return call(FuncLike, e, pattern, escape) }

// Substring is the characters of e from start (0-based; negative counts
// from the end) on, length of them; the range clamps to the string.
func (e E) Substring(start, length E) E { return call(FuncSubstring, e, start, length) }

// SubstringFrom is the characters of e from start (as Substring) to the end.
func (e E) SubstringFrom(start E) E { return call(FuncSubstring, e, start) }

// Replace replaces the first occurrence of the literal old by repl.
func (e E) Replace(old, repl E) E { return call(FuncReplace, e, old, repl) }

// ReplaceAll replaces every non-overlapping occurrence of old, left to
// right, by repl.
func (e E) ReplaceAll(old, repl E) E { return call(FuncReplaceAll, e, old, repl) }

// Strip removes leading and trailing white space (unicode.IsSpace).
func (e E) Strip() E { return call(FuncStrip, e) }

// StripChars removes leading and trailing characters that occur in chars.
func (e E) StripChars(chars E) E { return call(FuncStrip, e, chars) }

// IsIn tests membership in a list of literals with SQL's null rules: null
// when e is null, or when nothing matches and the list holds a null.
func (e E) IsIn(values ...Value) E {
	args := []E{e}
	for _, v := range values {
		args = append(args, E{&Literal{Value: v}})
	}
	return call(FuncIsIn, args...)
}

// Between is lo <= e and e <= hi, Kleene and included.
func (e E) Between(lo, hi E) E { return call(FuncBetween, e, lo, hi) }

// Cast converts strictly: failures are invalid_cast errors.
func (e E) Cast(to Type) E { return E{&Cast{Expr: e.x, To: to, Strict: true}} }

// TryCast converts non-strictly: failures become null.
func (e E) TryCast(to Type) E { return E{&Cast{Expr: e.x, To: to}} }

// Alias names the result.
func (e E) Alias(name string) E { return E{&Alias{Expr: e.x, Name: name}} }

// Sum is the sum of the group (overflow is an error).
func (e E) Sum() E { return call(FuncSum, e) }

// Mean is the float64 mean of the group's non-null values.
func (e E) Mean() E { return call(FuncMean, e) }

// Min is the smallest non-null value.
func (e E) Min() E { return call(FuncMin, e) }

// Max is the largest non-null value.
func (e E) Max() E { return call(FuncMax, e) }

// Count counts non-null values.
func (e E) Count() E { return call(FuncCount, e) }

// First is the group's first value (possibly null).
func (e E) First() E { return call(FuncFirst, e) }

// Last is the group's last value (possibly null).
func (e E) Last() E { return call(FuncLast, e) }

// NUnique counts the group's distinct values, a null counting as one
// value (docs/semantics.md).
func (e E) NUnique() E { return call(FuncNUnique, e) }

// Median is quantile(0.5) of the group's non-null values, as float64.
func (e E) Median() E { return call(FuncMedian, e) }

// Quantile is the q-quantile (q in [0, 1]) of the group's non-null values
// by linear interpolation, as float64 (docs/semantics.md).
func (e E) Quantile(q float64) E { return call(FuncQuantile, e, Lit(q)) }

// Var is the sample variance (ddof 1) of the group's non-null values.
func (e E) Var() E { return call(FuncVar, e) }

// VarDdof is the variance with ddof delta degrees of freedom.
func (e E) VarDdof(ddof int64) E { return call(FuncVar, e, Lit(ddof)) }

// Std is the sample standard deviation (ddof 1) of the group's non-null
// values.
func (e E) Std() E { return call(FuncStd, e) }

// StdDdof is the standard deviation with ddof delta degrees of freedom.
func (e E) StdDdof(ddof int64) E { return call(FuncStd, e, Lit(ddof)) }

// Any reports whether some non-null value of a bool group is true.
func (e E) Any() E { return call(FuncAny, e) }

// All reports whether no non-null value of a bool group is false.
func (e E) All() E { return call(FuncAll, e) }

// Over evaluates the aggregate e per partition of the keys.
func (e E) Over(partitionBy ...E) E { return E{&Over{Agg: e.x, PartitionBy: unwrap(partitionBy)}} }

// ArgMin is the index within the group (from 0, counting every row) of the
// first row holding the group's minimum non-null value; null when none.
func (e E) ArgMin() E { return call(FuncArgMin, e) }

// ArgMax is the index within the group (from 0, counting every row) of the
// first row holding the group's maximum non-null value; null when none.
func (e E) ArgMax() E { return call(FuncArgMax, e) }

// Truncate rounds a date or datetime down to the start of its window of
// the calendar step every ("1mo", "1w", "2h"; docs/semantics.md, Calendar
// steps).
func (e E) Truncate(every string) E { return call(FuncTruncate, e, Lit(every)) }

// OffsetBy adds the calendar step every ("1mo", "-1y2d") to a date or
// datetime, months on the calendar with the month-end rule.
func (e E) OffsetBy(every string) E { return call(FuncOffsetBy, e, Lit(every)) }

// OverOrdered evaluates the window function e per partition of the keys,
// each partition's rows in the window order the order keys give (ties in
// input order): `cum_sum(a).over(k, order_by=[t desc])` is
// Col("a").CumSum().OverOrdered([]E{Col("k")}, Desc(Col("t"))).
func (e E) OverOrdered(partitionBy []E, orderBy ...SortKey) E {
	return E{&Over{Agg: e.x, PartitionBy: unwrap(partitionBy), OrderBy: append([]SortKey(nil), orderBy...)}}
}

// CumSum is the running sum of the non-null values in window order (null
// on a null row); a window function.
func (e E) CumSum() E { return call(FuncCumSum, e) }

// CumCount is the running count of non-null values in window order; a
// window function.
func (e E) CumCount() E { return call(FuncCumCount, e) }

// CumMin is the running minimum in window order (null on a null row); a
// window function.
func (e E) CumMin() E { return call(FuncCumMin, e) }

// CumMax is the running maximum in window order (null on a null row); a
// window function.
func (e E) CumMax() E { return call(FuncCumMax, e) }

// RowNumber numbers a partition's rows from 1 in window order; a window
// function.
func RowNumber() E { return call(FuncRowNumber) }

// Rank ranks the value among its partition's non-null values, method
// "dense" or "min"; a window function.
func (e E) Rank(method string) E { return call(FuncRank, e, Lit(method)) }

// Shift is the value n rows earlier in window order (n < 0: later), null
// outside the partition; a window function.
func (e E) Shift(n int64) E { return call(FuncShift, e, Lit(n)) }

// ShiftOr is Shift with def in place of null outside the partition; def
// must be a literal of e's type.
func (e E) ShiftOr(n int64, def E) E { return call(FuncShift, e, Lit(n), def) }

// Len counts the group's rows.
func Len() E { return call(FuncLen) }

// If evaluates then on the rows where cond is true and otherwise on the rest
// (a null cond takes otherwise).
func If(cond, then, otherwise E) E { return call(FuncIf, cond, then, otherwise) }

// When is when(c1, v1, c2, v2, ..., otherwise): the value of the first
// condition that is true, else otherwise; it is if(c1, v1, if(c2, v2,
// ..., otherwise)), so each condition and value is evaluated only on the
// rows that reach it. A count of arguments that is even or below three
// builds an if() call with those arguments, which Resolve rejects.
func When(args ...E) E {
	w, err := WhenExpr(unwrap(args))
	if err != nil {
		return call(FuncIf, args...)
	}
	return E{w}
}

// Coalesce is the first non-null argument.
func Coalesce(args ...E) E { return call(FuncCoalesce, args...) }

// Concat joins strings (null if any is null).
func Concat(args ...E) E { return call(FuncConcat, args...) }

// CallUDF applies a registered UDF.
func CallUDF(u *UDF, args ...E) E { return E{&UDFCall{UDF: u, Args: unwrap(args)}} }

// ListLen is list.len(e): the number of elements of the list e, nulls
// included; null for a null list (docs/semantics.md, Lists and structs).
func (e E) ListLen() E { return call(FuncListLen, e) }

// ListGet is list.get(e, i): the element at position i (negative from the
// end), null when i is outside the list.
func (e E) ListGet(i E) E { return call(FuncListGet, e, i) }

// ListContains is list.contains(e, x): whether some non-null element of
// the list e equals x.
func (e E) ListContains(x E) E { return call(FuncListContains, e, x) }

// ListSum is list.sum(e): the sum of the list's non-null elements (int64
// for integer elements, checked; float64 for floats), null when none.
func (e E) ListSum() E { return call(FuncListSum, e) }

// ListMin is list.min(e): the least non-null element, null when none.
func (e E) ListMin() E { return call(FuncListMin, e) }

// ListMax is list.max(e): the greatest non-null element, null when none.
func (e E) ListMax() E { return call(FuncListMax, e) }

// StructField is struct.field(e, name): the field name of the struct e,
// null for a null struct.
func (e E) StructField(name string) E { return call(FuncStructField, e, Lit(name)) }
