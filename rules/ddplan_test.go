package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// The data files' UDFs and extension operators, made once: a plan compares
// them by pointer, and each call of plan.BuiltinUDFs makes new ones.
var (
	testUDFs       = plan.BuiltinUDFs()
	testExtensions = testops.Registry()
)

// parsePlan reads a plan written as plan.Explain prints it (see
// datadriven_test.go): one node label per line, each input indented two
// spaces deeper than its node. Scans read catalog's sources by name.
func parsePlan(lines []string, catalog map[string]plan.Source) (plan.Node, error) {
	p := &treeParser{lines: lines, catalog: catalog}
	if len(lines) == 0 {
		return nil, fmt.Errorf("no input plan")
	}
	n, err := p.node(0)
	if err != nil {
		return nil, err
	}
	if p.pos < len(lines) {
		return nil, fmt.Errorf("input line %d: %q is not an input of any node above it (indent two spaces per level)", p.pos+1, lines[p.pos])
	}
	return n, nil
}

type treeParser struct {
	lines   []string
	pos     int
	catalog map[string]plan.Source
}

// indent returns the indentation level of line i (-1 for a malformed one).
func (p *treeParser) indent(i int) int {
	l := p.lines[i]
	body := strings.TrimLeft(l, " ")
	spaces := len(l) - len(body)
	if spaces%2 != 0 {
		return -1
	}
	return spaces / 2
}

// node parses the node on the current line, at depth, with its inputs.
func (p *treeParser) node(depth int) (plan.Node, error) {
	if p.pos >= len(p.lines) {
		return nil, fmt.Errorf("input line %d: a node is missing an input", p.pos+1)
	}
	line := p.pos + 1
	if d := p.indent(p.pos); d != depth {
		return nil, fmt.Errorf("input line %d: %q is indented %d levels, want %d", line, p.lines[p.pos], d, depth)
	}
	label := strings.TrimSpace(p.lines[p.pos])
	p.pos++
	var children []plan.Node
	for p.pos < len(p.lines) && p.indent(p.pos) > depth {
		c, err := p.node(depth + 1)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}
	n, err := p.label(label, children)
	if err != nil {
		return nil, fmt.Errorf("input line %d: %s: %w", line, label, err)
	}
	return n, nil
}

// label builds the node a label describes over its inputs.
func (p *treeParser) label(label string, children []plan.Node) (plan.Node, error) {
	kind, rest, _ := strings.Cut(label, " ")
	want := func(n int) error {
		if len(children) != n {
			return fmt.Errorf("%s takes %d inputs, has %d", kind, n, len(children))
		}
		return nil
	}
	one := func() (plan.Node, error) {
		if err := want(1); err != nil {
			return nil, err
		}
		return children[0], nil
	}
	l := newLexer(rest)
	var n plan.Node
	switch kind {
	case "scan":
		if err := want(0); err != nil {
			return nil, err
		}
		name := l.name()
		src, ok := p.catalog[name]
		if !ok {
			return nil, fmt.Errorf("no table %q in the catalog", name)
		}
		n = plan.Scan(src).Node()
		if l.peek().text == "max_rows" {
			l.keyword("max_rows")
			l.expect("=")
			s := n.(*plan.ScanNode)
			s.HasMaxRows, s.MaxRows = true, l.int()
		}
	case "filter", "project", "with_columns", "guard":
		in, err := one()
		if err != nil {
			return nil, err
		}
		exprs := l.list()
		switch kind {
		case "filter":
			n = &plan.FilterNode{Input: in, Predicates: exprs}
		case "guard":
			n = &plan.GuardNode{Input: in, Exprs: exprs}
		case "project":
			n = &plan.ProjectNode{Input: in, Exprs: exprs}
		default:
			n = &plan.WithColumnsNode{Input: in, Exprs: exprs}
		}
	case "sort":
		in, err := one()
		if err != nil {
			return nil, err
		}
		sn := &plan.SortNode{Input: in, Keys: l.sortKeys()}
		if l.peek().text == "limit" {
			l.keyword("limit")
			l.expect("=")
			sn.HasLimit, sn.Limit = true, l.int()
		}
		n = sn
	case "limit":
		in, err := one()
		if err != nil {
			return nil, err
		}
		n = &plan.LimitNode{Input: in, N: l.int()}
	case "slice":
		in, err := one()
		if err != nil {
			return nil, err
		}
		l.keyword("offset")
		l.expect("=")
		off := l.int()
		l.keyword("len")
		l.expect("=")
		n = &plan.SliceNode{Input: in, Offset: off, Len: l.int()}
	case "tail":
		in, err := one()
		if err != nil {
			return nil, err
		}
		n = &plan.TailNode{Input: in, N: l.int()}
	case "reverse":
		in, err := one()
		if err != nil {
			return nil, err
		}
		n = &plan.ReverseNode{Input: in}
	case "row_index":
		in, err := one()
		if err != nil {
			return nil, err
		}
		name := l.name()
		l.keyword("offset")
		l.expect("=")
		n = &plan.RowIndexNode{Input: in, Name: name, Offset: l.int()}
	case "aggregate":
		in, err := one()
		if err != nil {
			return nil, err
		}
		l.keyword("keys")
		l.expect("=")
		keys := l.list()
		l.keyword("aggs")
		l.expect("=")
		n = &plan.AggregateNode{Input: in, Keys: keys, Aggs: l.list()}
	case "join":
		if err := want(2); err != nil {
			return nil, err
		}
		how, ok := plan.ParseJoinKind(l.name())
		if !ok {
			return nil, fmt.Errorf("unknown join kind")
		}
		j := &plan.JoinNode{Left: children[0], Right: children[1], How: how, Suffix: plan.DefaultJoinSuffix}
		if l.peek().text == "on" {
			l.keyword("on")
			l.expect("=")
			l.expect("[")
			for l.err == nil && l.peek().text != "]" {
				j.LeftOn = append(j.LeftOn, l.expr())
				l.expect("=")
				j.RightOn = append(j.RightOn, l.expr())
				if l.peek().text != "," {
					break
				}
				l.next()
			}
			l.expect("]")
		}
		if l.peek().text == "suffix" {
			l.keyword("suffix")
			l.expect("=")
			j.Suffix = l.str()
		}
		if l.peek().text == "build" {
			l.keyword("build")
			l.expect("=")
			l.keyword("left")
			j.BuildLeft = true
		}
		// Join options, in the order the label prints them:
		// coalesce=keep nulls_equal validate=1:m residual=[expr].
		if l.peek().text == "coalesce" {
			l.keyword("coalesce")
			l.expect("=")
			c, ok := plan.ParseJoinCoalesce(l.name())
			if !ok {
				return nil, fmt.Errorf("unknown coalesce")
			}
			j.Coalesce = c
		}
		if l.peek().text == "nulls_equal" {
			l.keyword("nulls_equal")
			j.NullsEqual = true
		}
		if l.peek().text == "validate" {
			l.keyword("validate")
			l.expect("=")
			a := l.next().text
			l.expect(":")
			v, ok := plan.ParseJoinValidate(a + ":" + l.next().text)
			if !ok {
				return nil, fmt.Errorf("unknown validate")
			}
			j.Validate = v
		}
		if l.peek().text == "residual" {
			l.keyword("residual")
			l.expect("=")
			l.expect("[")
			j.Residual = l.expr()
			l.expect("]")
		}
		n = j
	case "asof_join":
		if err := want(2); err != nil {
			return nil, err
		}
		st, ok := plan.ParseAsofStrategy(l.name())
		if !ok {
			return nil, fmt.Errorf("unknown asof strategy")
		}
		j := &plan.AsOfJoinNode{Left: children[0], Right: children[1], Strategy: st}
		l.keyword("on")
		l.expect("=")
		l.expect("[")
		j.LeftOn = l.name()
		l.expect("=")
		j.RightOn = l.name()
		l.expect("]")
		if l.peek().text == "by" {
			l.keyword("by")
			l.expect("=")
			l.expect("[")
			for l.err == nil && l.peek().text != "]" {
				j.LeftBy = append(j.LeftBy, l.name())
				l.expect("=")
				j.RightBy = append(j.RightBy, l.name())
				if l.peek().text != "," {
					break
				}
				l.next()
			}
			l.expect("]")
		}
		if l.peek().text == "tolerance" {
			l.keyword("tolerance")
			l.expect("=")
			j.Tolerance = l.expr()
		}
		if l.peek().text == "exact" {
			l.keyword("exact")
			l.expect("=")
			l.keyword("false")
			j.ExcludeExact = true
		}
		if l.peek().text == "suffix" {
			l.keyword("suffix")
			l.expect("=")
			j.Suffix = l.name()
		}
		n = j
	case "temporal_group":
		in, err := one()
		if err != nil {
			return nil, err
		}
		mode, ok := plan.ParseTemporalMode(l.name())
		if !ok {
			return nil, fmt.Errorf("unknown temporal_group mode")
		}
		tg := &plan.TemporalGroupNode{Input: in, Mode: mode}
		l.keyword("index")
		l.expect("=")
		tg.Index = l.name()
		for _, f := range []struct {
			name string
			dst  *plan.Expr
		}{{"every", &tg.Every}, {"period", &tg.Period}, {"offset", &tg.Offset}} {
			if l.peek().text == f.name {
				l.keyword(f.name)
				l.expect("=")
				*f.dst = l.expr()
			}
		}
		if l.peek().text == "closed" {
			l.keyword("closed")
			l.expect("=")
			tg.Closed, _ = plan.ParseWindowClosed(l.name())
		}
		if l.peek().text == "label" {
			l.keyword("label")
			l.expect("=")
			tg.LabelKind, _ = plan.ParseWindowLabel(l.name())
		}
		if l.peek().text == "by" {
			l.keyword("by")
			l.expect("=")
			l.expect("[")
			for l.err == nil && l.peek().text != "]" {
				tg.By = append(tg.By, l.name())
				if l.peek().text != "," {
					break
				}
				l.next()
			}
			l.expect("]")
		}
		l.keyword("aggs")
		l.expect("=")
		tg.Aggs = l.list()
		n = tg
	case "union":
		if len(children) < 2 {
			return nil, fmt.Errorf("union takes at least 2 inputs, has %d", len(children))
		}
		n = &plan.UnionNode{Inputs: children, Diagonal: l.peek().text == "diagonal"}
		if n.(*plan.UnionNode).Diagonal {
			l.keyword("diagonal")
		}
		n = &plan.UnionNode{Inputs: children}
	case "hstack":
		if len(children) < 2 {
			return nil, fmt.Errorf("hstack takes at least 2 inputs, has %d", len(children))
		}
		n = &plan.HStackNode{Inputs: children}
	case "merge_sorted":
		if err := want(2); err != nil {
			return nil, err
		}
		l.keyword("key")
		l.expect("=")
		n = &plan.MergeSortedNode{Left: children[0], Right: children[1], Key: l.name()}
	case "unnest":
		in, err := one()
		if err != nil {
			return nil, err
		}
		n = &plan.UnnestNode{Input: in, Columns: l.nameList()}
	case "explode":
		in, err := one()
		if err != nil {
			return nil, err
		}
		n = &plan.ExplodeNode{Input: in, Columns: l.nameList()}
	case "unpivot":
		in, err := one()
		if err != nil {
			return nil, err
		}
		u := &plan.UnpivotNode{Input: in}
		l.keyword("on")
		l.expect("=")
		u.On = l.nameList()
		l.keyword("index")
		l.expect("=")
		if l.peek().text == "*" {
			l.next()
		} else {
			u.Index = l.nameList()
		}
		l.keyword("variable")
		l.expect("=")
		u.VariableName = l.name()
		l.keyword("value")
		l.expect("=")
		u.ValueName = l.name()
		n = u
	case "distinct":
		in, err := one()
		if err != nil {
			return nil, err
		}
		d := &plan.DistinctNode{Input: in}
		if !l.done() {
			l.expect("[")
			for l.err == nil && l.peek().text != "]" {
				d.Subset = append(d.Subset, l.name())
				if l.peek().text != "," {
					break
				}
				l.next()
			}
			l.expect("]")
		}
		n = d
	case "extension":
		def, ok := testExtensions.Lookup(rest)
		if !ok {
			return nil, fmt.Errorf("no built-in extension %q", rest)
		}
		if len(children) != def.Inputs {
			return nil, fmt.Errorf("extension %s takes %d inputs, has %d", rest, def.Inputs, len(children))
		}
		return &plan.ExtensionNode{Def: def, Inputs: children}, nil
	default:
		return nil, fmt.Errorf("unknown node kind %q (scan, filter, project, with_columns, sort, limit, slice, tail, reverse, row_index, aggregate, join, asof_join, temporal_group, union, hstack, merge_sorted, unpivot, unnest, explode, distinct, extension)", kind)
	}
	if l.err == nil && !l.done() {
		l.fail("unexpected %q", l.peek().text)
	}
	if l.err != nil {
		return nil, l.err
	}
	return n, nil
}

// parseExpr reads one expression in its canonical text.
func parseExpr(s string) (plan.Expr, error) {
	l := newLexer(s)
	e := l.expr()
	if l.err == nil && !l.done() {
		l.fail("unexpected %q after the expression", l.peek().text)
	}
	return e, l.err
}

// token is one lexeme: an identifier or keyword, a number, a quoted
// string (kind 's', text unquoted), or punctuation.
type token struct {
	kind byte // 'i' identifier, 'n' number, 's' string, 'p' punctuation, 0 end
	text string
}

// lexer reads the canonical expression syntax (plan's render): it
// remembers its first error and returns zero values after it.
type lexer struct {
	src  string
	toks []token
	i    int
	err  error
}

func newLexer(s string) *lexer {
	l := &lexer{src: s}
	l.tokenize()
	return l
}

func (l *lexer) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf(format, args...)
	}
}

func (l *lexer) tokenize() {
	s := l.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				l.fail("unterminated string in %q", s)
				return
			}
			u, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				l.fail("string %s: %v", s[i:j+1], err)
				return
			}
			l.toks = append(l.toks, token{'s', u})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' ||
				(s[j] == '+' || s[j] == '-') && s[j-1] == 'e') {
				j++
			}
			l.toks = append(l.toks, token{'n', s[i:j]})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || unicode.IsLetter(rune(s[j])) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			l.toks = append(l.toks, token{'i', s[i:j]})
			i = j
		default:
			op := punctuation(s[i:])
			if op == "" {
				l.fail("unexpected character %q in %q", c, s)
				return
			}
			l.toks = append(l.toks, token{'p', op})
			i += len(op)
		}
	}
}

// punctuation returns the operator or bracket s starts with ("" for none),
// the longest first.
func punctuation(s string) string {
	for _, op := range []string{"==", "!=", "<=", ">=", "(", ")", "[", "]", ",", ".", "+", "-", "*", "/", "%", "<", ">", "=", ":"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

func (l *lexer) peek() token {
	if l.err != nil || l.i >= len(l.toks) {
		return token{}
	}
	return l.toks[l.i]
}

func (l *lexer) next() token {
	t := l.peek()
	if t.kind != 0 {
		l.i++
	}
	return t
}

func (l *lexer) done() bool { return l.peek().kind == 0 }

func (l *lexer) expect(p string) {
	if t := l.next(); t.text != p || t.kind != 'p' {
		l.fail("want %q, have %q", p, t.text)
	}
}

func (l *lexer) keyword(k string) {
	if t := l.next(); t.kind != 'i' || t.text != k {
		l.fail("want %q, have %q", k, t.text)
	}
}

// name reads an identifier or a quoted name.
func (l *lexer) name() string {
	t := l.next()
	if t.kind != 'i' && t.kind != 's' {
		l.fail("want a name, have %q", t.text)
	}
	return t.text
}

// nameList reads "[a, b]" (names, possibly none).
func (l *lexer) nameList() []string {
	out := []string{}
	l.expect("[")
	for l.err == nil && l.peek().text != "]" {
		out = append(out, l.name())
		if l.peek().text != "," {
			break
		}
		l.next()
	}
	l.expect("]")
	return out
}

func (l *lexer) str() string {
	t := l.next()
	if t.kind != 's' {
		l.fail("want a quoted string, have %q", t.text)
	}
	return t.text
}

func (l *lexer) int() int64 {
	neg := false
	if l.peek().text == "-" {
		l.next()
		neg = true
	}
	t := l.next()
	v, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil || t.kind != 'n' {
		l.fail("want an integer, have %q", t.text)
	}
	if neg {
		v = -v
	}
	return v
}

// list reads "[e, e, ...]".
func (l *lexer) list() []plan.Expr {
	l.expect("[")
	out := l.args("]")
	return out
}

// args reads expressions separated by commas up to close (consumed).
func (l *lexer) args(close string) []plan.Expr {
	var out []plan.Expr
	for l.err == nil && l.peek().text != close {
		out = append(out, l.expr())
		if l.peek().text != "," {
			break
		}
		l.next()
	}
	l.expect(close)
	return out
}

func (l *lexer) sortKeys() []plan.SortKey {
	l.expect("[")
	var keys []plan.SortKey
	for l.err == nil && l.peek().text != "]" {
		k := plan.SortKey{Expr: l.expr()}
		for {
			if t := l.peek(); t.kind == 'i' && t.text == "desc" {
				k.Desc = true
			} else if t.kind == 'i' && t.text == "nulls_last" {
				k.NullsLast = true
			} else {
				break
			}
			l.next()
		}
		keys = append(keys, k)
		if l.peek().text != "," {
			break
		}
		l.next()
	}
	l.expect("]")
	return keys
}

// expr reads an expression: precedence climbing over the canonical
// operators, loosest first (plan's render: alias, or, and, comparisons,
// + -, * / %, unary minus, atoms).
func (l *lexer) expr() plan.Expr {
	e := l.binary(0)
	if t := l.peek(); t.kind == 'i' && t.text == "as" {
		l.next()
		return &plan.Alias{Expr: e, Name: l.name()}
	}
	return e
}

var binaryLevels = [][]struct {
	text string
	fn   plan.Func
}{
	{{"or", plan.FuncOr}},
	{{"and", plan.FuncAnd}},
	{{"==", plan.FuncEq}, {"!=", plan.FuncNe}, {"<=", plan.FuncLe}, {">=", plan.FuncGe}, {"<", plan.FuncLt}, {">", plan.FuncGt}},
	{{"+", plan.FuncAdd}, {"-", plan.FuncSub}},
	{{"*", plan.FuncMul}, {"/", plan.FuncDiv}, {"%", plan.FuncMod}},
}

// binary reads a left-associative chain of the operators of level and
// above; comparisons do not chain.
func (l *lexer) binary(level int) plan.Expr {
	if level == len(binaryLevels) {
		return l.unary()
	}
	e := l.binary(level + 1)
	for l.err == nil {
		t := l.peek()
		var fn plan.Func
		for _, op := range binaryLevels[level] {
			if t.text == op.text && (t.kind == 'p' || t.kind == 'i') {
				fn = op.fn
			}
		}
		if fn == plan.FuncInvalid {
			return e
		}
		l.next()
		e = &plan.Call{Fn: fn, Args: []plan.Expr{e, l.binary(level + 1)}}
		if fn.IsComparison() {
			return e
		}
	}
	return e
}

// unary reads "-x": a negative literal when x is a number or Inf written
// right after the sign, else neg(x).
func (l *lexer) unary() plan.Expr {
	if l.peek().text != "-" || l.peek().kind != 'p' {
		return l.postfix()
	}
	l.next()
	switch t := l.peek(); {
	case t.kind == 'n':
		lit := l.number()
		v := lit.(*plan.Literal).Value
		if v.Type() == plan.Float64 {
			return &plan.Literal{Value: plan.Float64Value(-v.Float())}
		}
		if t.text == "9223372036854775808" {
			return &plan.Literal{Value: plan.Int64Value(math.MinInt64)}
		}
		return &plan.Literal{Value: plan.Int64Value(-v.Int())}
	case t.kind == 'i' && t.text == "Inf":
		l.next()
		return &plan.Literal{Value: plan.Float64Value(math.Inf(-1))}
	}
	return &plan.Call{Fn: plan.FuncNeg, Args: []plan.Expr{l.postfix()}}
}

func (l *lexer) postfix() plan.Expr {
	e := l.atom()
	for l.err == nil && l.peek().text == "." {
		l.next()
		l.keyword("over")
		l.expect("(")
		e = &plan.Over{Agg: e, PartitionBy: l.args(")")}
	}
	return e
}

func (l *lexer) number() plan.Expr {
	t := l.next()
	if strings.ContainsAny(t.text, ".e") {
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			l.fail("float %q: %v", t.text, err)
		}
		return &plan.Literal{Value: plan.Float64Value(f)}
	}
	if t.text == "9223372036854775808" && l.i >= 2 && l.toks[l.i-2].text == "-" {
		return &plan.Literal{Value: plan.Int64Value(math.MinInt64)}
	}
	v, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		l.fail("integer %q: %v", t.text, err)
	}
	return &plan.Literal{Value: plan.Int64Value(v)}
}

func (l *lexer) atom() plan.Expr {
	t := l.peek()
	switch t.kind {
	case 'n':
		return l.number()
	case 's':
		l.next()
		return &plan.Literal{Value: plan.StringValue(t.text)}
	case 'p':
		if t.text == "(" {
			l.next()
			e := l.expr()
			l.expect(")")
			return e
		}
		l.fail("unexpected %q", t.text)
		return nil
	case 0:
		l.fail("an expression is missing")
		return nil
	}
	l.next()
	switch t.text {
	case "true", "false":
		return &plan.Literal{Value: plan.BoolValue(t.text == "true")}
	case "NaN":
		return &plan.Literal{Value: plan.Float64Value(math.NaN())}
	case "Inf":
		return &plan.Literal{Value: plan.Float64Value(math.Inf(1))}
	}
	if l.peek().text != "(" {
		return &plan.Column{Name: t.text}
	}
	l.next()
	switch t.text {
	case "col":
		name := l.str()
		l.expect(")")
		return &plan.Column{Name: name}
	case "null":
		typ := l.typ()
		l.expect(")")
		return &plan.Literal{Value: plan.NullValue(typ)}
	case "int32":
		v := l.int()
		l.expect(")")
		if v < math.MinInt32 || v > math.MaxInt32 {
			l.fail("int32(%d) is out of range", v)
		}
		return &plan.Literal{Value: plan.Int32Value(int32(v))}
	case "cast":
		e := l.expr()
		l.expect(",")
		c := &plan.Cast{Expr: e, To: l.typ(), Strict: true}
		if l.peek().text == "," {
			l.next()
			l.keyword("strict")
			l.expect("=")
			l.keyword("false")
			c.Strict = false
		}
		l.expect(")")
		return c
	}
	args := l.args(")")
	if fn, ok := plan.ParseFunc(t.text); ok {
		return &plan.Call{Fn: fn, Args: args}
	}
	if u, ok := testUDFs.Lookup(t.text); ok {
		return &plan.UDFCall{UDF: u, Args: args}
	}
	l.fail("unknown function %q", t.text)
	return nil
}

func (l *lexer) typ() plan.Type {
	name := l.name()
	typ, ok := plan.ParseType(name)
	if !ok {
		l.fail("unknown type %q", name)
	}
	return typ
}
