package plan

import (
	"strings"
	"testing"
)

func TestNewTable(t *testing.T) {
	s := sch("a:int64", "s:string?", "f:float64")
	ok := [][]Value{
		{Int64Value(1), Int64Value(2)},
		{StringValue("x"), NullValue(String)},
		{Float64Value(negZero), Float64Value(nanPayload(9))},
	}
	tb, err := NewTable("t", s, ok)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Name() != "t" || tb.Rows() != 2 || !tb.Schema().Equal(s) {
		t.Errorf("table %s rows %d schema %v", tb.Name(), tb.Rows(), tb.Schema())
	}
	if n, known := tb.EstimatedRows(); !known || n != 2 {
		t.Error("EstimatedRows is wrong")
	}
	if !tb.SupportsProjection() || !SupportsProjection(tb) {
		t.Error("a table supports projection")
	}
	// The table copied its columns: the caller's slices may change.
	ok[0][0] = Int64Value(99)
	ok[1] = nil
	if tb.Column(0)[0].Int() != 1 || len(tb.Column(1)) != 2 {
		t.Error("NewTable kept the caller's slices")
	}
	if !tb.Column(2)[1].Identical(Float64Value(nanPayload(9))) || !tb.Column(2)[0].Identical(Float64Value(negZero)) {
		t.Error("the table changed float bits")
	}
	empty, err := NewTable("e", Schema{}, nil)
	if err != nil || empty.Rows() != 0 {
		t.Errorf("an empty table: %v", err)
	}
	for _, tc := range []struct {
		name string
		cols [][]Value
		msg  string
	}{
		{"too few columns", [][]Value{{Int64Value(1)}}, `table "t": 1 columns for a schema of 3 fields`},
		{"too many columns", [][]Value{{}, {}, {}, {}}, "4 columns for a schema of 3 fields"},
		{"ragged", [][]Value{{Int64Value(1)}, {StringValue("x"), StringValue("y")}, {Float64Value(1)}},
			`table "t": column "s" has 2 values but column "a" has 1 (ragged table)`},
		{"ragged last", [][]Value{{Int64Value(1)}, {StringValue("x")}, {}}, `column "f" has 0 values but column "a" has 1`},
		{"wrong type", [][]Value{{Int64Value(1)}, {Int64Value(2)}, {Float64Value(1)}}, `table "t": column "s" row 0: a int64 value in a string column`},
		{"int32 in int64", [][]Value{{Int32Value(1)}, {StringValue("x")}, {Float64Value(1)}}, `column "a" row 0: a int32 value in a int64 column`},
		{"wrongly typed null", [][]Value{{NullValue(Int32)}, {StringValue("x")}, {Float64Value(1)}}, `column "a" row 0: a int32 value`},
		{"untyped value", [][]Value{{Int64Value(1), {}}, {StringValue("x"), StringValue("y")}, {Float64Value(1), Float64Value(2)}}, `column "a" row 1: a invalid value`},
		{"null in non-nullable", [][]Value{{Int64Value(1), NullValue(Int64)}, {StringValue("x"), StringValue("y")}, {Float64Value(1), Float64Value(2)}},
			`table "t": column "a" row 1: null in a non-nullable column`},
	} {
		_, err := NewTable("t", s, tc.cols)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
	}
}

// classifier is a scriptable host source for ClassifyPredicates.
type classifier struct {
	name   string
	answer func(n int) []PredicateSupport
	seen   []Expr
}

func (c *classifier) Name() string   { return c.name }
func (c *classifier) Schema() Schema { return stdSchema() }
func (c *classifier) ClassifyPredicates(cs []Expr) []PredicateSupport {
	c.seen = cs
	cs[0] = nil // a misbehaving source scribbles on its argument
	return c.answer(len(cs))
}

// panickyNamed panics in ClassifyPredicates and in Name.
type panickyNamed struct{}

func (panickyNamed) Name() string                                 { panic("name") }
func (panickyNamed) Schema() Schema                               { return Schema{} }
func (panickyNamed) ClassifyPredicates([]Expr) []PredicateSupport { panic("classify") }

func TestClassifyPredicates(t *testing.T) {
	conj := []Expr{Col("a").Gt(Lit(1)).Expr(), Col("q").Expr(), Col("s").IsNull().Expr()}
	all := func(ps ...PredicateSupport) func(int) []PredicateSupport {
		return func(int) []PredicateSupport { return ps }
	}
	for _, tc := range []struct {
		name string
		src  Source
		want []PredicateSupport
		msg  string // "" means no error
	}{
		{"no capability", std(t), []PredicateSupport{0, 0, 0}, ""},
		{"honest", &classifier{name: "c", answer: all(Exact, Unsupported, Inexact)}, []PredicateSupport{Exact, Unsupported, Inexact}, ""},
		{"too few answers", &classifier{name: "c", answer: all(Exact, Exact)}, []PredicateSupport{0, 0, 0},
			"source c: ClassifyPredicates returned 2 answers for 3 conjuncts"},
		{"too many answers", &classifier{name: "c", answer: all(Exact, Exact, Exact, Exact)}, []PredicateSupport{0, 0, 0}, "returned 4 answers for 3"},
		{"nil answer", &classifier{name: "c", answer: all()}, []PredicateSupport{0, 0, 0}, "returned 0 answers"},
		{"out of range", &classifier{name: "my src", answer: all(Exact, PredicateSupport(3), Exact)}, []PredicateSupport{0, 0, 0},
			"source \"my src\": ClassifyPredicates answered 3, not a PredicateSupport, for conjunct 1 `q`"},
		{"out of range last", &classifier{name: "c", answer: all(Exact, Inexact, PredicateSupport(255))}, []PredicateSupport{0, 0, 0}, "answered 255"},
		{"panics", &classifier{name: "c", answer: func(int) []PredicateSupport { panic("boom") }}, []PredicateSupport{0, 0, 0},
			"source c: ClassifyPredicates panicked: boom"},
		{"panics, also in Name", panickyNamed{}, []PredicateSupport{0, 0, 0}, "source <source>: ClassifyPredicates panicked: classify"},
	} {
		got, err := ClassifyPredicates(tc.src, conj)
		if len(got) != len(conj) {
			t.Errorf("%s: %d answers", tc.name, len(got))
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: answers %v, want %v", tc.name, got, tc.want)
				break
			}
		}
		if tc.msg == "" && err != nil || tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
		if conj[0] == nil {
			t.Fatalf("%s: the source scribbled on the caller's conjuncts", tc.name)
		}
	}
	got, err := ClassifyPredicates(&classifier{name: "c", answer: all()}, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("no conjuncts: %v, %v", got, err)
	}
	if got, err := ClassifyPredicates(nil, conj); err != nil || len(got) != 3 {
		t.Errorf("nil source: %v, %v", got, err)
	}
}

// projector is a host source with a configurable projection capability.
type projector struct {
	answer bool
	panics bool
}

func (p *projector) Name() string   { return "p" }
func (p *projector) Schema() Schema { return Schema{} }
func (p *projector) SupportsProjection() bool {
	if p.panics {
		panic("projection")
	}
	return p.answer
}

// uncomparable is a Source of a non-comparable type.
type uncomparable struct{ f []int }

func (uncomparable) Name() string   { return "u" }
func (uncomparable) Schema() Schema { return Schema{} }

func TestSourceCapabilities(t *testing.T) {
	if !SupportsProjection(&projector{answer: true}) || SupportsProjection(&projector{}) || SupportsProjection(&projector{panics: true}) {
		t.Error("SupportsProjection is wrong")
	}
	if SupportsProjection(&classifier{}) || SupportsProjection(nil) {
		t.Error("a source without the capability supports projection")
	}
	tb := std(t)
	if !sameSource(tb, tb) || sameSource(tb, std(t)) || sameSource(nil, tb) || !sameSource(nil, nil) {
		t.Error("sameSource is not identity")
	}
	if sameSource(uncomparable{}, uncomparable{}) {
		t.Error("uncomparable sources compared equal")
	}
	// Plans over an uncomparable source never compare Equal, and do not panic.
	x := &ScanNode{Source: uncomparable{}}
	if Equal(x, &ScanNode{Source: uncomparable{}}) {
		t.Error("scans of uncomparable sources are Equal")
	}
}
