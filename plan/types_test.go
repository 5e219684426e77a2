package plan

import (
	"math"
	"strings"
	"testing"
)

func TestPromoteAllPairs(t *testing.T) {
	// The full promotion table of docs/semantics.md: rows are the left
	// operand, columns the right, in the order of all (Invalid first).
	all := []Type{Invalid, Bool, Int32, Int64, Float64, String}
	const X = Type(255) // no common type
	want := [][]Type{
		/* invalid */ {X, X, X, X, X, X},
		/* bool    */ {X, X, X, X, X, X},
		/* int32   */ {X, X, Int32, Int64, Float64, X},
		/* int64   */ {X, X, Int64, Int64, Float64, X},
		/* float64 */ {X, X, Float64, Float64, Float64, X},
		/* string  */ {X, X, X, X, X, X},
	}
	for i, l := range all {
		for j, r := range all {
			got, ok := Promote(l, r)
			if w := want[i][j]; w == X {
				if ok || got != Invalid {
					t.Errorf("Promote(%s, %s) = %s, %v; want no common type", l, r, got, ok)
				}
			} else if !ok || got != w {
				t.Errorf("Promote(%s, %s) = %s, %v; want %s", l, r, got, ok, w)
			}
		}
	}
}

func TestCommonTypeAndJoinKeyType(t *testing.T) {
	// if/coalesce branches and join keys also unify equal non-numeric types.
	for _, tc := range []struct {
		a, b Type
		want Type
		ok   bool
	}{
		{Bool, Bool, Bool, true},
		{String, String, String, true},
		{Int32, Int64, Int64, true},
		{Int64, Float64, Float64, true},
		{Bool, Int64, Invalid, false},
		{String, Int32, Invalid, false},
		{Bool, String, Invalid, false},
	} {
		got, ok := JoinKeyType(tc.a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("JoinKeyType(%s, %s) = %s, %v; want %s, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTypeNamesRoundTrip(t *testing.T) {
	want := map[Type]string{Bool: "bool", Int32: "int32", Int64: "int64", Float64: "float64", String: "string",
		Date: "date", Datetime: "datetime", Duration: "duration",
		Int8: "int8", Int16: "int16", Uint8: "uint8", Uint16: "uint16", Uint32: "uint32", Uint64: "uint64", Float32: "float32"}
	if len(Types()) != len(want) {
		t.Fatalf("Types() = %v, want the 15 valid types", Types())
	}
	for _, ty := range Types() {
		if ty.String() != want[ty] {
			t.Errorf("%d.String() = %q, want %q", ty, ty.String(), want[ty])
		}
		back, ok := ParseType(ty.String())
		if !ok || back != ty {
			t.Errorf("ParseType(%q) = %v, %v; want %v", ty.String(), back, ok, ty)
		}
	}
	for _, bad := range []string{"invalid", "", "Int64", "int", "float", "type(9)", " int64"} {
		if ty, ok := ParseType(bad); ok {
			t.Errorf("ParseType(%q) = %v, true; want false", bad, ty)
		}
	}
	if got := Invalid.String(); got != "invalid" {
		t.Errorf("Invalid.String() = %q", got)
	}
	if got := Type(99).String(); got != "type(99)" {
		t.Errorf("Type(99).String() = %q", got)
	}
}

func TestTypePredicates(t *testing.T) {
	for _, tc := range []struct {
		t                Type
		integer, numeric bool
	}{
		{Invalid, false, false}, {Bool, false, false}, {Int32, true, true},
		{Int64, true, true}, {Float64, false, true}, {String, false, false},
	} {
		if tc.t.IsInteger() != tc.integer || tc.t.IsNumeric() != tc.numeric {
			t.Errorf("%s: IsInteger=%v IsNumeric=%v, want %v %v", tc.t, tc.t.IsInteger(), tc.t.IsNumeric(), tc.integer, tc.numeric)
		}
	}
}

func TestNewSchemaRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fields []Field
		msg    string
	}{
		{"empty name", []Field{{Name: "a", Type: Int64}, {Name: "", Type: Int64}}, "field 1 has an empty name"},
		{"duplicate", []Field{{Name: "a", Type: Int64}, {Name: "b", Type: Bool}, {Name: "a", Type: String}}, `duplicate column name "a" (fields 0 and 2)`},
		{"invalid type", []Field{{Name: "a", Type: Invalid}}, `field "a" has an invalid type`},
		{"out of range type", []Field{{Name: "a", Type: Type(42)}}, `field "a" has an invalid type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSchema(tc.fields...)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("NewSchema error = %v, want one containing %q", err, tc.msg)
			}
			defer func() {
				if recover() == nil {
					t.Error("MustSchema did not panic")
				}
			}()
			MustSchema(tc.fields...)
		})
	}
}

func TestSchemaAccessors(t *testing.T) {
	in := []Field{{Name: "a", Type: Int64, Nullable: true}, {Name: "b", Type: String}, {Name: "a b", Type: Bool}}
	s, err := NewSchema(in...)
	if err != nil {
		t.Fatal(err)
	}
	in[0].Name = "mutated" // NewSchema must have copied its input
	if s.Len() != 3 || s.Field(0).Name != "a" {
		t.Fatalf("schema shares the caller's slice: %v", s)
	}
	if got := s.String(); got != "[a: int64?, b: string, a b: bool]" {
		t.Errorf("String() = %q", got)
	}
	if got := strings.Join(s.Names(), ","); got != "a,b,a b" {
		t.Errorf("Names() = %q", got)
	}
	for i, n := range []string{"a", "b", "a b"} {
		if s.Index(n) != i {
			t.Errorf("Index(%q) = %d, want %d", n, s.Index(n), i)
		}
		f, ok := s.Lookup(n)
		if !ok || f != s.Field(i) {
			t.Errorf("Lookup(%q) = %v, %v", n, f, ok)
		}
	}
	if s.Index("z") != -1 {
		t.Errorf("Index(z) = %d, want -1", s.Index("z"))
	}
	if f, ok := s.Lookup("z"); ok || f != (Field{}) {
		t.Errorf("Lookup(z) = %v, %v", f, ok)
	}
	fs := s.Fields()
	fs[0].Name = "changed"
	if s.Field(0).Name != "a" {
		t.Error("Fields() returned the schema's own slice")
	}
	var zero Schema
	if zero.Len() != 0 || zero.Index("a") != -1 || zero.String() != "[]" {
		t.Errorf("zero schema: len %d index %d string %q", zero.Len(), zero.Index("a"), zero.String())
	}
	if _, ok := zero.Lookup("a"); ok {
		t.Error("zero schema Lookup found a")
	}
}

func TestSchemaEqual(t *testing.T) {
	base := sch("a:int64?", "b:string")
	for _, tc := range []struct {
		name string
		o    Schema
		want bool
	}{
		{"same", sch("a:int64?", "b:string"), true},
		{"name", sch("x:int64?", "b:string"), false},
		{"type", sch("a:int32?", "b:string"), false},
		{"nullability", sch("a:int64", "b:string"), false},
		{"order", sch("b:string", "a:int64?"), false},
		{"shorter", sch("a:int64?"), false},
		{"longer", sch("a:int64?", "b:string", "c:bool"), false},
		{"empty", Schema{}, false},
	} {
		if got := base.Equal(tc.o); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.o.Equal(base); got != tc.want {
			t.Errorf("%s: Equal is not symmetric", tc.name)
		}
	}
	if !(Schema{}).Equal(MustSchema()) {
		t.Error("the zero schema and an empty schema differ")
	}
}

func TestFieldString(t *testing.T) {
	if got := (Field{Name: "a", Type: Int32, Nullable: true}).String(); got != "a: int32?" {
		t.Errorf("got %q", got)
	}
	if got := (Field{Name: "a", Type: Float64}).String(); got != "a: float64" {
		t.Errorf("got %q", got)
	}
}

func TestValueAccessorsAndIdentical(t *testing.T) {
	vals := []Value{
		Int64Value(1), Int64Value(-1), Int64Value(math.MinInt64), Int32Value(1), Int32Value(math.MinInt32),
		Float64Value(1), Float64Value(0), Float64Value(negZero), Float64Value(math.NaN()),
		Float64Value(nanPayload(3)), Float64Value(nanPayload(2)), Float64Value(math.Float64frombits(0xfff8000000000000)),
		Float64Value(math.Inf(1)), Float64Value(math.Inf(-1)),
		StringValue(""), StringValue("x"), BoolValue(true), BoolValue(false),
		NullValue(Int64), NullValue(Int32), NullValue(Float64), NullValue(String), NullValue(Bool), {},
	}
	for i, v := range vals {
		for j, w := range vals {
			if got := v.Identical(w); got != (i == j) {
				t.Errorf("%v (#%d) Identical %v (#%d) = %v", v, i, w, j, got)
			}
		}
	}
	// NaN is identical to itself by bits, although NaN != NaN.
	n := Float64Value(math.NaN())
	if !n.Identical(Float64Value(math.NaN())) {
		t.Error("the same NaN bits are not Identical")
	}
	if Int64Value(7).Int() != 7 || Int32Value(-3).Int() != -3 || Float64Value(2.5).Float() != 2.5 ||
		StringValue("z").Str() != "z" || !BoolValue(true).Bool() || BoolValue(false).Bool() {
		t.Error("accessor payloads are wrong")
	}
	if NullValue(Int64).Int() != 0 || !NullValue(Int64).IsNull() || Int64Value(0).IsNull() {
		t.Error("null accessors are wrong")
	}
	if NullValue(String).Type() != String || Int32Value(1).Type() != Int32 {
		t.Error("Type() is wrong")
	}
	if bits := math.Float64bits(Float64Value(nanPayload(5)).Float()); bits != 0x7ff8000000000005 {
		t.Errorf("Float64Value changed the NaN payload: %#x", bits)
	}
}

func TestFormatFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {negZero, "-0.0"}, {1, "1.0"}, {-1, "-1.0"}, {2.5, "2.5"}, {-2.5, "-2.5"},
		{100000, "100000.0"}, {1e6, "1e+06"}, {2.5e30, "2.5e+30"}, {1e-7, "1e-07"}, {0.1, "0.1"},
		{123456789, "1.23456789e+08"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{math.SmallestNonzeroFloat64, "5e-324"}, {1 << 53, "9.007199254740992e+15"},
		{math.NaN(), "NaN"}, {nanPayload(77), "NaN"}, {math.Float64frombits(0xfff8000000000001), "NaN"},
		{math.Inf(1), "Inf"}, {math.Inf(-1), "-Inf"},
	} {
		if got := FormatFloat(tc.f); got != tc.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestValueString(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Int64Value(5), "5"}, {Int64Value(-5), "-5"}, {Int64Value(math.MinInt64), "-9223372036854775808"},
		{Int32Value(5), "int32(5)"}, {Int32Value(-5), "int32(-5)"},
		{Float64Value(5), "5.0"}, {Float64Value(negZero), "-0.0"}, {Float64Value(math.NaN()), "NaN"},
		{StringValue("a\"b\n"), `"a\"b\n"`}, {StringValue(""), `""`},
		{BoolValue(true), "true"}, {BoolValue(false), "false"},
		{NullValue(Int64), "null(int64)"}, {NullValue(Int32), "null(int32)"}, {NullValue(Float64), "null(float64)"},
		{NullValue(String), "null(string)"}, {NullValue(Bool), "null(bool)"}, {Value{}, "null(invalid)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestErrorRendering(t *testing.T) {
	e := &Error{Kind: DivideByZero, Expr: "a / b", Row: 3, Node: "project [a / b]", Path: "plan.exprs[0]", Msg: "division by zero"}
	if got, want := e.Error(), "plan.exprs[0]: project [a / b]: divide_by_zero: division by zero in `a / b` (first failing row 3)"; got != want {
		t.Errorf("Error() = %q\nwant     %q", got, want)
	}
	// The expression is not repeated when the message already quotes it.
	e2 := &Error{Kind: TypeError, Expr: "s + a", Row: -1, Msg: "in `s + a`: bad"}
	if got := e2.Error(); got != "type_error: in `s + a`: bad" {
		t.Errorf("Error() = %q", got)
	}
	cause := &Error{Kind: SourceError, Row: -1}
	wrapped := &Error{Kind: UDFError, Expr: "f(a)", Row: -1, Err: cause}
	if got := wrapped.Error(); got != "udf_error in `f(a)`: source_error" {
		t.Errorf("Error() = %q", got)
	}
	if wrapped.Unwrap() != cause {
		t.Error("Unwrap lost the cause")
	}
	if pe, ok := AsError(wrapped); !ok || pe != wrapped {
		t.Error("AsError failed on a *Error")
	}
	if _, ok := AsError(nil); ok {
		t.Error("AsError(nil) succeeded")
	}
	// Same: kind and expression only.
	a := &Error{Kind: Overflow, Expr: "a + 1", Row: 1, Node: "x"}
	b := &Error{Kind: Overflow, Expr: "a + 1", Row: 9, Node: "y", Path: "p"}
	if !a.Same(b) || a.Same(&Error{Kind: Overflow, Expr: "a + 2"}) || a.Same(&Error{Kind: DivideByZero, Expr: "a + 1"}) {
		t.Error("Same compares the wrong fields")
	}
	var nilErr *Error
	if a.Same(nil) || !nilErr.Same(nil) || nilErr.Same(a) {
		t.Error("Same with nil is wrong")
	}
	if len(ErrorKinds()) != 14 {
		t.Errorf("ErrorKinds() has %d kinds", len(ErrorKinds()))
	}
}

// TestPromotionTable is docs/semantics.md's promotion table (Numeric
// types) written out pair by pair: row and column in NumericTypes order,
// "-" where the pair has no common type.
func TestPromotionTable(t *testing.T) {
	rows := map[Type]string{
		Int8:    "int8 int16 int32 int64 int16 int32 int64 - float32 float64",
		Int16:   "int16 int16 int32 int64 int16 int32 int64 - float32 float64",
		Int32:   "int32 int32 int32 int64 int32 int32 int64 - float64 float64",
		Int64:   "int64 int64 int64 int64 int64 int64 int64 - float64 float64",
		Uint8:   "int16 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
		Uint16:  "int32 int32 int32 int64 uint16 uint16 uint32 uint64 float32 float64",
		Uint32:  "int64 int64 int64 int64 uint32 uint32 uint32 uint64 float64 float64",
		Uint64:  "- - - - uint64 uint64 uint64 uint64 float64 float64",
		Float32: "float32 float32 float64 float64 float32 float32 float64 float64 float32 float64",
		Float64: "float64 float64 float64 float64 float64 float64 float64 float64 float64 float64",
	}
	for a, row := range rows {
		for j, want := range strings.Fields(row) {
			b := NumericTypes()[j]
			got, ok := Promote(a, b)
			text := "-"
			if ok {
				text = got.String()
			}
			if text != want {
				t.Errorf("Promote(%s, %s) = %s, want %s", a, b, text, want)
			}
		}
	}
	for _, a := range Types() {
		if _, ok := Promote(a, String); ok {
			t.Errorf("Promote(%s, string) has a common type", a)
		}
	}
}

// TestFloat32Bits pins the NaN rules of widening and narrowing.
func TestFloat32Bits(t *testing.T) {
	for _, tc := range []struct {
		f32 uint32
		f64 uint64
	}{
		{0x7fc00000, 0x7ff8000000000000},
		{0x7f800001, 0x7ff0000020000000}, // signalling stays signalling
		{0xffc00001, 0xfff8000020000000},
		{0x80000000, 0x8000000000000000},
		{0x7f800000, 0x7ff0000000000000},
	} {
		if got := math.Float64bits(Float32To64(math.Float32frombits(tc.f32))); got != tc.f64 {
			t.Errorf("Float32To64(%#x) = %#x, want %#x", tc.f32, got, tc.f64)
		}
	}
	for _, tc := range []struct {
		f64 uint64
		f32 uint32
	}{
		{0x7ff8000000000000, 0x7fc00000},
		{0x7ff0000000000001, 0x7fc00000}, // low payload bits drop, quiet bit set
		{0xfff0000020000000, 0xffc00001},
		{math.Float64bits(1e39), 0x7f800000},
		{math.Float64bits(0.1), math.Float32bits(0.1)},
	} {
		if got := math.Float32bits(Float64To32(math.Float64frombits(tc.f64))); got != tc.f32 {
			t.Errorf("Float64To32(%#x) = %#x, want %#x", tc.f64, got, tc.f32)
		}
	}
	if got := Float32Value(0.1).String(); got != "float32(0.1)" {
		t.Errorf("float32 text %s", got)
	}
	if got := Uint64Value(math.MaxUint64).String(); got != "uint64(18446744073709551615)" {
		t.Errorf("uint64 text %s", got)
	}
}
