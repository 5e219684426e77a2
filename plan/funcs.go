package plan

import "fmt"

// Func names a built-in function of the expression language (docs/design.md §3).
// Arithmetic, comparison, logic, string, conditional and aggregate functions
// all share this one enumeration so that every consumer can switch over it
// exhaustively.
type Func uint8

// The built-in functions. Invalid is the zero value.
const (
	FuncInvalid Func = iota
	FuncAdd
	FuncSub
	FuncMul
	FuncDiv
	FuncMod
	FuncNeg
	FuncAbs
	FuncEq
	FuncNe
	FuncLt
	FuncLe
	FuncGt
	FuncGe
	FuncAnd
	FuncOr
	FuncNot
	FuncIsNull
	FuncIsNotNull
	FuncIsNaN
	FuncStrLen
	FuncConcat
	FuncIf
	FuncCoalesce
	// String, set and range functions (docs/semantics.md, Strings and
	// Sets and ranges). They sit in one block after coalesce and before
	// the aggregates.
	FuncLower
	FuncUpper
	FuncStartsWith
	FuncEndsWith
	FuncContains
	FuncLike
	FuncSubstring
	FuncReplace
	FuncReplaceAll
	FuncStrip
	FuncStrLenBytes
	FuncIsIn
	FuncBetween
	FuncSum
	FuncMean
	FuncMin
	FuncMax
	FuncCount
	FuncLen
	FuncFirst
	FuncLast
	FuncNUnique
	FuncMedian
	FuncQuantile
	FuncVar
	FuncStd
	FuncAny
	FuncAll

	// Temporal functions (docs/semantics.md, Temporal types).
	FuncYear
	FuncMonth
	FuncDay
	FuncWeekday
	FuncHour
	FuncMinute
	FuncSecond

	// List and struct functions (docs/semantics.md, Lists and structs).
	FuncListLen
	FuncListGet
	FuncListContains
	FuncListSum
	FuncListMin
	FuncListMax
	FuncStructField
	// Window functions (docs/semantics.md, Window functions and ordered
	// windows): allowed only directly under over().
	FuncCumSum
	FuncCumCount
	FuncCumMin
	FuncCumMax
	FuncRowNumber
	FuncRank
	FuncShift

	// Aggregates added after the window functions.
	FuncArgMin
	FuncArgMax

	// Calendar steps (docs/semantics.md, Calendar steps).
	FuncTruncate
	FuncOffsetBy

	funcCount
)

type funcInfo struct {
	name      string
	symbol    string // infix operator, "" for call syntax
	prec      int    // infix precedence
	minArgs   int
	maxArgs   int // -1: variadic
	aggregate bool
	window    bool
}

var funcs = [funcCount]funcInfo{
	FuncAdd:         {name: "add", symbol: "+", prec: precAdd, minArgs: 2, maxArgs: 2},
	FuncSub:         {name: "sub", symbol: "-", prec: precAdd, minArgs: 2, maxArgs: 2},
	FuncMul:         {name: "mul", symbol: "*", prec: precMul, minArgs: 2, maxArgs: 2},
	FuncDiv:         {name: "div", symbol: "/", prec: precMul, minArgs: 2, maxArgs: 2},
	FuncMod:         {name: "mod", symbol: "%", prec: precMul, minArgs: 2, maxArgs: 2},
	FuncNeg:         {name: "neg", minArgs: 1, maxArgs: 1},
	FuncAbs:         {name: "abs", minArgs: 1, maxArgs: 1},
	FuncEq:          {name: "eq", symbol: "==", prec: precCmp, minArgs: 2, maxArgs: 2},
	FuncNe:          {name: "ne", symbol: "!=", prec: precCmp, minArgs: 2, maxArgs: 2},
	FuncLt:          {name: "lt", symbol: "<", prec: precCmp, minArgs: 2, maxArgs: 2},
	FuncLe:          {name: "le", symbol: "<=", prec: precCmp, minArgs: 2, maxArgs: 2},
	FuncGt:          {name: "gt", symbol: ">", prec: precCmp, minArgs: 2, maxArgs: 2},
	FuncGe:          {name: "ge", symbol: ">=", prec: precCmp, minArgs: 2, maxArgs: 2},
	FuncAnd:         {name: "and", symbol: "and", prec: precAnd, minArgs: 2, maxArgs: 2},
	FuncOr:          {name: "or", symbol: "or", prec: precOr, minArgs: 2, maxArgs: 2},
	FuncNot:         {name: "not", minArgs: 1, maxArgs: 1},
	FuncIsNull:      {name: "is_null", minArgs: 1, maxArgs: 1},
	FuncIsNotNull:   {name: "is_not_null", minArgs: 1, maxArgs: 1},
	FuncIsNaN:       {name: "is_nan", minArgs: 1, maxArgs: 1},
	FuncStrLen:      {name: "str_len", minArgs: 1, maxArgs: 1},
	FuncConcat:      {name: "concat", minArgs: 1, maxArgs: -1},
	FuncIf:          {name: "if", minArgs: 3, maxArgs: 3},
	FuncCoalesce:    {name: "coalesce", minArgs: 1, maxArgs: -1},
	FuncLower:       {name: "lower", minArgs: 1, maxArgs: 1},
	FuncUpper:       {name: "upper", minArgs: 1, maxArgs: 1},
	FuncStartsWith:  {name: "starts_with", minArgs: 2, maxArgs: 2},
	FuncEndsWith:    {name: "ends_with", minArgs: 2, maxArgs: 2},
	FuncContains:    {name: "contains", minArgs: 2, maxArgs: 2},
	FuncLike:        {name: "like", minArgs: 2, maxArgs: 3},
	FuncSubstring:   {name: "substring", minArgs: 2, maxArgs: 3},
	FuncReplace:     {name: "replace", minArgs: 3, maxArgs: 3},
	FuncReplaceAll:  {name: "replace_all", minArgs: 3, maxArgs: 3},
	FuncStrip:       {name: "strip", minArgs: 1, maxArgs: 2},
	FuncStrLenBytes: {name: "str_len_bytes", minArgs: 1, maxArgs: 1},
	FuncIsIn:        {name: "is_in", minArgs: 1, maxArgs: -1},
	FuncBetween:     {name: "between", minArgs: 3, maxArgs: 3},
	FuncSum:         {name: "sum", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncMean:        {name: "mean", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncMin:         {name: "min", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncMax:         {name: "max", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncCount:       {name: "count", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncLen:         {name: "len", minArgs: 0, maxArgs: 0, aggregate: true},
	FuncFirst:       {name: "first", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncLast:        {name: "last", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncNUnique:     {name: "n_unique", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncMedian:      {name: "median", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncQuantile:    {name: "quantile", minArgs: 2, maxArgs: 2, aggregate: true},
	FuncVar:         {name: "var", minArgs: 1, maxArgs: 2, aggregate: true},
	FuncStd:         {name: "std", minArgs: 1, maxArgs: 2, aggregate: true},
	FuncAny:         {name: "any", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncAll:         {name: "all", minArgs: 1, maxArgs: 1, aggregate: true},

	FuncYear:    {name: "year", minArgs: 1, maxArgs: 1},
	FuncMonth:   {name: "month", minArgs: 1, maxArgs: 1},
	FuncDay:     {name: "day", minArgs: 1, maxArgs: 1},
	FuncWeekday: {name: "weekday", minArgs: 1, maxArgs: 1},
	FuncHour:    {name: "hour", minArgs: 1, maxArgs: 1},
	FuncMinute:  {name: "minute", minArgs: 1, maxArgs: 1},
	FuncSecond:  {name: "second", minArgs: 1, maxArgs: 1},

	FuncListLen:      {name: "list.len", minArgs: 1, maxArgs: 1},
	FuncListGet:      {name: "list.get", minArgs: 2, maxArgs: 2},
	FuncListContains: {name: "list.contains", minArgs: 2, maxArgs: 2},
	FuncListSum:      {name: "list.sum", minArgs: 1, maxArgs: 1},
	FuncListMin:      {name: "list.min", minArgs: 1, maxArgs: 1},
	FuncListMax:      {name: "list.max", minArgs: 1, maxArgs: 1},
	FuncStructField:  {name: "struct.field", minArgs: 2, maxArgs: 2},
	FuncCumSum:       {name: "cum_sum", minArgs: 1, maxArgs: 1, window: true},
	FuncCumCount:     {name: "cum_count", minArgs: 1, maxArgs: 1, window: true},
	FuncCumMin:       {name: "cum_min", minArgs: 1, maxArgs: 1, window: true},
	FuncCumMax:       {name: "cum_max", minArgs: 1, maxArgs: 1, window: true},
	FuncRowNumber:    {name: "row_number", minArgs: 0, maxArgs: 0, window: true},
	FuncRank:         {name: "rank", minArgs: 2, maxArgs: 2, window: true},
	FuncShift:        {name: "shift", minArgs: 2, maxArgs: 3, window: true},

	FuncArgMin: {name: "arg_min", minArgs: 1, maxArgs: 1, aggregate: true},
	FuncArgMax: {name: "arg_max", minArgs: 1, maxArgs: 1, aggregate: true},

	FuncTruncate: {name: "truncate", minArgs: 2, maxArgs: 2},
	FuncOffsetBy: {name: "offset_by", minArgs: 2, maxArgs: 2},
}

// Infix precedences, loosest first.
const (
	precAlias = iota + 1
	precOr
	precAnd
	precCmp
	precAdd
	precMul
	precUnary
	precAtom
)

var funcByName = func() map[string]Func {
	m := make(map[string]Func, funcCount)
	for f := FuncAdd; f < funcCount; f++ {
		m[funcs[f].name] = f
	}
	return m
}()

// String returns the function's name as written in plan files ("is_null").
func (f Func) String() string {
	if f > FuncInvalid && f < funcCount {
		return funcs[f].name
	}
	return "invalid"
}

// ParseFunc maps a plan-file function name to its Func.
func ParseFunc(name string) (Func, bool) {
	f, ok := funcByName[name]
	return f, ok
}

// Funcs lists every built-in function, for generators and exhaustive tests.
func Funcs() []Func {
	out := make([]Func, 0, funcCount-1)
	for f := FuncAdd; f < funcCount; f++ {
		out = append(out, f)
	}
	return out
}

// IsAggregate reports whether f reduces a column to one value per group; such
// calls may appear only in an aggregate node or inside over().
func (f Func) IsAggregate() bool { return f > FuncInvalid && f < funcCount && funcs[f].aggregate }

// IsWindow reports whether f is a window function (cum_sum, cum_count,
// cum_min, cum_max, row_number, rank, shift): it computes one value per row
// of a partition in window order, so it is allowed only directly under
// over().
func (f Func) IsWindow() bool { return f > FuncInvalid && f < funcCount && funcs[f].window }

// IsComparison reports whether f is one of the six comparisons.
func (f Func) IsComparison() bool { return f >= FuncEq && f <= FuncGe }

// Mirrored returns the comparison that gives the same answer with its
// operands swapped (< and >, <= and >=; = and != are symmetric); any other
// function is returned unchanged. The kernel swaps a literal left operand
// with it, and the simplify rule rewrites `1 < a` as `a > 1`.
func (f Func) Mirrored() Func {
	switch f {
	case FuncLt:
		return FuncGt
	case FuncGt:
		return FuncLt
	case FuncLe:
		return FuncGe
	case FuncGe:
		return FuncLe
	}
	return f
}

// IsTemporalField reports whether f extracts a calendar or clock field
// (year, month, day, weekday, hour, minute, second).
func (f Func) IsTemporalField() bool { return f >= FuncYear && f <= FuncSecond }

// IsNestedFunc reports whether f is one of the list functions or
// struct.field.
func (f Func) IsNestedFunc() bool { return f >= FuncListLen && f <= FuncStructField }

// IsArithmetic reports whether f is add, sub, mul, div or mod.
func (f Func) IsArithmetic() bool { return f >= FuncAdd && f <= FuncMod }

// Arity returns the minimum and maximum argument counts; max is -1 for
// variadic functions.
func (f Func) Arity() (lo, hi int) {
	if f <= FuncInvalid || f >= funcCount {
		return 0, -1
	}
	return funcs[f].minArgs, funcs[f].maxArgs
}

// WhenExpr builds when(c1, v1, c2, v2, ..., otherwise), which has no Func
// of its own: it is the chain if(c1, v1, if(c2, v2, ..., otherwise)), so a
// condition or value is evaluated only on the rows no earlier condition
// took, as if() does (docs/semantics.md). args must number three or more,
// and be odd.
func WhenExpr(args []Expr) (Expr, error) {
	if len(args) < 3 || len(args)%2 == 0 {
		return nil, fmt.Errorf("when: expects condition, value pairs and an otherwise value (an odd count of 3 or more arguments), got %d", len(args))
	}
	e := args[len(args)-1]
	for i := len(args) - 3; i >= 0; i -= 2 {
		e = &Call{Fn: FuncIf, Args: []Expr{args[i], args[i+1], e}}
	}
	return e, nil
}
