package plan

import (
	"strings"
	"testing"
)

func TestNestedTypeText(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "list<int64>", want: "list<int64>"},
		{in: "list < float64 >", want: "list<float64>"},
		{in: "struct{a: int64, b: string}", want: "struct{a: int64, b: string}"},
		{in: "struct{ a :int64 ,b:date}", want: "struct{a: int64, b: date}"},
		{in: `struct{"my field": bool, and: int32}`, want: `struct{"my field": bool, "and": int32}`},
		{in: "list<list<int64>>", err: "scalar type"},
		{in: "struct{a: list<int64>}", err: "scalar type"},
		{in: "struct{}", err: "at least one field"},
		{in: "struct{a: int64, a: string}", err: "named twice"},
		{in: "list<int64", err: `expected ">"`},
		{in: "list<int65>", err: `unknown type "int65"`},
		{in: "list<int64>x", err: "unexpected"},
		{in: "struct{a int64}", err: `expected ":"`},
		{in: "int64", err: "not a list or struct"},
	} {
		got, err := ParseNestedType(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseNestedType(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseNestedType(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
			continue
		}
		back, ok := ParseType(got.String())
		if !ok || back != got {
			t.Errorf("ParseType(%q) = %v, %v; want the same type back", got.String(), back, ok)
		}
	}
}

func TestNestedTypeFacts(t *testing.T) {
	l := MustListOf(Int64)
	s := MustStructOf(StructField{"a", Int64}, StructField{"b", String})
	if !l.IsList() || l.IsStruct() || !l.IsNested() || l.Elem() != Int64 || l.FieldIndex("a") != -1 {
		t.Errorf("list facts wrong for %s", l)
	}
	if s.IsList() || !s.IsStruct() || s.Elem() != Invalid || s.FieldIndex("b") != 1 || s.FieldIndex("c") != -1 {
		t.Errorf("struct facts wrong for %s", s)
	}
	if MustListOf(Int64) != l || MustListOf(Int32) == l {
		t.Errorf("list interning: equal types must be ==, different ones not")
	}
	for _, bad := range []Type{Int64, String, Date} {
		if bad.IsNested() || bad.IsList() || bad.IsStruct() {
			t.Errorf("%s is not nested", bad)
		}
	}
	for _, c := range [][2]Type{{l, String}, {String, l}, {s, s}, {l, l}} {
		if CanCast(c[0], c[1]) {
			t.Errorf("CanCast(%s, %s) = true; no cast touches a list or struct", c[0], c[1])
		}
	}
}

func TestNestedValues(t *testing.T) {
	l := MustListOf(Int64)
	s := MustStructOf(StructField{"a", Int64}, StructField{"my b", String})
	a := ListValue(l, []Value{Int64Value(1), NullValue(Int64)})
	if got := a.String(); got != "[1, null(int64)]" {
		t.Errorf("list text %q", got)
	}
	if got := ListValue(l, nil).String(); got != "[]" {
		t.Errorf("empty list text %q", got)
	}
	if ListValue(l, nil).Identical(NullValue(l)) || !ListValue(l, nil).Identical(ListValue(l, []Value{})) {
		t.Errorf("an empty list is not a null list")
	}
	if a.Identical(ListValue(l, []Value{Int64Value(1)})) || !a.Identical(ListValue(l, []Value{Int64Value(1), NullValue(Int64)})) {
		t.Errorf("list identity by elements")
	}
	sv := StructValue(s, []Value{NullValue(Int64), NullValue(String)})
	if got := sv.String(); got != `{a: null(int64), "my b": null(string)}` {
		t.Errorf("struct text %q", got)
	}
	if sv.Identical(NullValue(s)) || sv.IsNull() {
		t.Errorf("a struct of nulls is not a null struct")
	}
	var h hasher
	if h.value(a) == h.value(ListValue(l, []Value{Int64Value(1)})) || h.value(sv) == h.value(NullValue(s)) {
		t.Errorf("fingerprints must tell these values apart")
	}
}

func TestNestedTypecheck(t *testing.T) {
	l := MustListOf(Int64)
	lf := MustListOf(Float64)
	st := MustStructOf(StructField{"a", Int64}, StructField{"b", String})
	in := MustSchema(Field{"l", l, true}, Field{"f", lf, true}, Field{"s", st, true}, Field{"i", Int64, true}, Field{"t", String, true})
	for _, tc := range []struct {
		e     E
		want  Type
		total bool
		err   string
	}{
		{e: Col("l").ListLen(), want: Int64, total: true},
		{e: Col("l").ListGet(Col("i")), want: Int64, total: true},
		{e: Col("l").ListGet(Lit("x")), err: "index must be an integer"},
		{e: Col("l").ListContains(Lit(1.5)), want: Bool, total: true},
		{e: Col("l").ListContains(Lit("x")), err: "cannot look for"},
		{e: Col("l").ListSum(), want: Int64, total: false},
		{e: Col("f").ListSum(), want: Float64, total: true},
		{e: Col("l").ListMax(), want: Int64, total: true},
		{e: Col("i").ListLen(), err: "expects a list"},
		{e: Col("s").StructField("b"), want: String, total: true},
		{e: Col("s").StructField("c"), err: `no field "c"`},
		{e: call(FuncStructField, Col("s"), Col("t")), err: "string literal"},
		{e: Col("l").IsNull(), want: Bool, total: true},
		{e: Col("l").Eq(Col("l")), err: "carried, not compared"},
		{e: If(Lit(true), Col("s"), Col("s")), err: "carried, not compared"},
		{e: Col("l").Cast(String), err: "no cast"},
	} {
		f, err := TypeOf(tc.e.Expr(), in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("TypeOf(%s) = %v, %v; want an error containing %q", tc.e, f, err, tc.err)
			}
			continue
		}
		if err != nil || f.Type != tc.want {
			t.Errorf("TypeOf(%s) = %v, %v; want %s", tc.e, f, err, tc.want)
			continue
		}
		if got := Total(tc.e.Expr(), in, TrustLanguage); got != tc.total {
			t.Errorf("Total(%s) = %v, want %v", tc.e, got, tc.total)
		}
		if tt, _ := TypeAndTotality(tc.e.Expr(), in, TrustLanguage); tt != tc.want {
			t.Errorf("TypeAndTotality(%s) type %s, want %s", tc.e, tt, tc.want)
		}
	}
	if _, err := AggTypeOf(Col("l").Count().Expr(), in); err == nil || !strings.Contains(err.Error(), "cannot be aggregated") {
		t.Errorf("count(l): %v", err)
	}
}

// TestResolveNestedKeys: a list or struct is never a key (docs/semantics.md,
// Lists and structs); each key position is a type_error naming the key and
// its path, and lists and structs still pass through every row-moving node.
func TestResolveNestedKeys(t *testing.T) {
	lt := MustListOf(Int64)
	stt := MustStructOf(StructField{Name: "a", Type: Int64})
	tab, err := NewTable("n", MustSchema(Field{"k", Int64, true}, Field{"l", lt, true}, Field{"s", stt, true}),
		[][]Value{{Int64Value(1)}, {ListValue(lt, nil)}, {NullValue(stt)}})
	if err != nil {
		t.Fatal(err)
	}
	n := Scan(tab)
	l, k := Col("l"), Col("k")
	const schema = "[k: int64?, l: list<int64>?, s: struct{a: int64}?]"
	runResolveCases(t, []resolveCase{
		{name: "carried through sort, filter, join, union, limit", plan: n.Filter(l.ListLen().Gt(Lit(int64(0)))).SortBy("k").
			Union(n).Head(2).Join(n.Select(k.Alias("r")), LeftJoin, []E{k}, []E{Col("r")}).Node(),
			schema: "[k: int64?, l: list<int64>?, s: struct{a: int64}?, r: int64?]"},
		{name: "distinct on scalars", plan: n.Distinct("k").Node(), schema: schema},
		{name: "sort key", plan: n.Sort(SortKey{Expr: l.Expr()}).Node(),
			err: &wantErr{kind: TypeError, path: "plan.keys[0].expr", expr: "l", msg: "sort key `l` is a list (list<int64>)"}},
		{name: "group key", plan: n.GroupBy(Col("s")).Agg(Len()).Node(),
			err: &wantErr{kind: TypeError, path: "plan.keys[0]", expr: "s", msg: "group key `s` is a struct"}},
		{name: "join key", plan: n.Join(n, InnerJoin, []E{l}, []E{l}).Node(),
			err: &wantErr{kind: TypeError, path: "plan.left_on[0]", expr: "l", msg: "join key `l` is a list"}},
		{name: "distinct subset", plan: n.Distinct("k", "l").Node(),
			err: &wantErr{kind: TypeError, path: "plan.subset[1]", expr: "l", msg: "distinct key `l` is a list"}},
		{name: "distinct of every column", plan: n.Distinct().Node(),
			err: &wantErr{kind: TypeError, path: "plan.subset", expr: "l", msg: "a distinct without a subset keys on every column"}},
		{name: "window partition", plan: n.Select(k.Sum().Over(Col("s"))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.exprs[0]", expr: "s", msg: "partition key `s` is a struct"}},
		{name: "aggregate", plan: n.Agg(l.Count()).Node(),
			err: &wantErr{kind: TypeError, path: "plan.aggs[0]", expr: "count(l)", msg: "cannot be aggregated"}},
		{name: "comparison", plan: n.Filter(Col("s").Eq(Col("s"))).Node(),
			err: &wantErr{kind: TypeError, path: "plan.predicates[0]", expr: "s == s", msg: "carried, not compared"}},
	})
}

// TestNestedElementTypes: the element and field types are the scalar
// types of docs/semantics.md (the narrow and unsigned integers and float32
// included); a list or struct is not one.
func TestNestedElementTypes(t *testing.T) {
	for _, e := range Types() {
		want := nestable(e)
		if _, err := ListOf(e); (err == nil) != want {
			t.Errorf("ListOf(%s): %v, want ok=%v", e, err, want)
		}
		if _, err := StructOf(StructField{Name: "a", Type: e}); (err == nil) != want {
			t.Errorf("StructOf(a: %s): %v, want ok=%v", e, err, want)
		}
	}
	for _, ok := range []string{"list<int8>", "list<uint64>", "list<float32>", "struct{a: float32, b: uint16}"} {
		if _, err := ParseNestedType(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"list<list<int64>>", "list<struct{a: int8}>", "struct{a: list<int16>}", "struct{a: struct{b: int64}}"} {
		if _, err := ParseNestedType(bad); err == nil || !strings.Contains(err.Error(), "scalar type") {
			t.Errorf("%s: %v, want a scalar-type error", bad, err)
		}
	}
}
