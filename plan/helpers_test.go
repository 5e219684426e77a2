package plan

import (
	"math"
	"strings"
	"testing"
)

// Shared fixtures for the plan tests. Everything here is built from the
// package's public constructors, so the fixtures exercise the same paths as
// callers do.

// negZero is -0.0; the Go constant -0.0 is +0.
var negZero = math.Copysign(0, -1)

// nanPayload returns a quiet NaN with the given low payload bits.
func nanPayload(p uint64) float64 { return math.Float64frombits(0x7ff8000000000000 | p) }

// fld parses "name:type" with a trailing "?" for a nullable field.
func fld(spec string) Field {
	name, typ, ok := strings.Cut(spec, ":")
	if !ok {
		panic("bad field spec " + spec)
	}
	nullable := strings.HasSuffix(typ, "?")
	t, ok := ParseType(strings.TrimSuffix(typ, "?"))
	if !ok {
		panic("bad type in " + spec)
	}
	return Field{Name: name, Type: t, Nullable: nullable}
}

// sch builds a schema from field specs.
func sch(specs ...string) Schema {
	fs := make([]Field, len(specs))
	for i, s := range specs {
		fs[i] = fld(s)
	}
	return MustSchema(fs...)
}

// table returns an empty in-memory table, which is all a plan needs.
func table(t testing.TB, name string, specs ...string) *Table {
	t.Helper()
	s := sch(specs...)
	tb, err := NewTable(name, s, make([][]Value, s.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// stdSpecs is the schema of the standard test table t.
var stdSpecs = []string{"a:int64?", "b:int64", "i:int32?", "f:float64?", "s:string?", "p:bool?", "k:int64", "q:bool"}

// std is the standard test table t (a and i nullable ints, b and k
// non-nullable int64, f float64, s string, p nullable bool, q non-null bool).
func std(t testing.TB) *Table { return table(t, "t", stdSpecs...) }

// stdSchema is the schema of std.
func stdSchema() Schema { return sch(stdSpecs...) }

// mustResolve resolves n or fails the test.
func mustResolve(t testing.TB, n Node) Node {
	t.Helper()
	r, err := Resolve(n)
	if err != nil {
		t.Fatalf("Resolve(\n%s): %v", Explain(n), err)
	}
	return r
}

// asPlanError asserts that err is a *Error.
func asPlanError(t testing.TB, err error) *Error {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got nil")
	}
	pe, ok := AsError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *plan.Error", err, err)
	}
	return pe
}

// testUDFs is one registry shared by all tests, so that UDF declarations
// (compared by identity) are the same across fixtures.
var testUDFs = BuiltinUDFs()

// builtinUDF returns one of the built-in UDFs.
func builtinUDF(t testing.TB, name string) *UDF {
	t.Helper()
	u, ok := testUDFs.Lookup(name)
	if !ok {
		t.Fatalf("no built-in udf %q", name)
	}
	return u
}

// callE builds a call of any function, including wrong arities.
func callE(fn Func, args ...E) E { return call(fn, args...) }
