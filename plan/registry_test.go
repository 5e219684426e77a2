package plan

import (
	"context"
	"strings"
	"sync"
	"testing"
)

func okFn(context.Context, []Value) (Value, error) { return NullValue(Int64), nil }

func TestUDFRegistry(t *testing.T) {
	good := &UDF{Name: "my_fn", Params: []Type{Int64, String}, Result: Bool, Fn: okFn}
	r, err := NewUDFRegistry(good)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := r.Lookup("my_fn"); !ok || u != good {
		t.Error("Lookup lost the UDF")
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup found an unregistered name")
	}
	for _, tc := range []struct {
		name string
		u    *UDF
		msg  string
	}{
		{"nil", nil, "register udf: missing name"},
		{"unnamed", &UDF{Result: Int64, Fn: okFn}, "register udf: missing name"},
		{"no fn", &UDF{Name: "f", Result: Int64}, `register udf "f": missing Fn`},
		{"no result", &UDF{Name: "f", Fn: okFn}, `register udf "f": missing result type`},
		{"bad result", &UDF{Name: "f", Result: Type(99), Fn: okFn}, `register udf "f": missing result type`},
		{"bad param", &UDF{Name: "f", Params: []Type{Int64, Invalid}, Result: Int64, Fn: okFn}, `register udf "f": parameter 2 has an invalid type`},
		{"duplicate", &UDF{Name: "my_fn", Result: Int64, Fn: okFn}, `register udf "my_fn": already registered`},
		{"builtin function", &UDF{Name: "sum", Result: Int64, Fn: okFn}, `register udf "sum": the name is a built-in function`},
		{"builtin operator name", &UDF{Name: "add", Result: Int64, Fn: okFn}, "built-in function"},
		{"keyword", &UDF{Name: "and", Result: Int64, Fn: okFn}, "not an identifier"},
		{"not an identifier", &UDF{Name: "my fn", Result: Int64, Fn: okFn}, "not an identifier"},
		{"type name", &UDF{Name: "int32", Result: Int64, Fn: okFn}, "a type or cast"},
		{"cast", &UDF{Name: "cast", Result: Int64, Fn: okFn}, "a type or cast"},
	} {
		err := r.Register(tc.u)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: Register error %v, want %q", tc.name, err, tc.msg)
		}
	}
	if got := strings.Join(r.Names(), ","); got != "my_fn" {
		t.Errorf("failed registrations changed the registry: %s", got)
	}
	if _, err := NewUDFRegistry(good, &UDF{Name: "my_fn", Result: Int64, Fn: okFn}); err == nil {
		t.Error("NewUDFRegistry accepted a duplicate")
	}
	var nilReg *UDFRegistry
	if _, ok := nilReg.Lookup("x"); ok || nilReg.Names() != nil {
		t.Error("a nil registry is not empty")
	}
}

func TestBuiltinUDFs(t *testing.T) {
	r := BuiltinUDFs()
	if got := strings.Join(r.Names(), ","); got != "checked_double,inc_wrap,nd_seq,nd_tick" {
		t.Fatalf("Names() = %s", got)
	}
	// Each built-in exercises one declaration.
	for _, tc := range []struct {
		name         string
		total, det   bool
		params       []Type
		result       Type
		in, want     Value
		wantErr      bool
		withCounter  bool
		secondResult Value
	}{
		{name: "inc_wrap", total: true, det: true, in: Int64Value(1<<63 - 1), want: Int64Value(-1 << 63)},
		{name: "inc_wrap", total: true, det: true, in: NullValue(Int64), want: NullValue(Int64)},
		{name: "checked_double", det: true, in: Int64Value(21), want: Int64Value(42)},
		{name: "checked_double", det: true, in: Int64Value(1 << 62), wantErr: true},
		{name: "checked_double", det: true, in: Int64Value(-(1 << 62)), want: Int64Value(-1 << 63)},
		{name: "checked_double", det: true, in: Int64Value(-(1 << 62) - 1), wantErr: true},
		{name: "checked_double", det: true, in: NullValue(Int64), want: NullValue(Int64)},
		{name: "nd_seq", in: Int64Value(10), want: Int64Value(10), withCounter: true, secondResult: Int64Value(11)},
		{name: "nd_seq", in: NullValue(Int64), want: NullValue(Int64), withCounter: true, secondResult: NullValue(Int64)},
		{name: "nd_seq", in: Int64Value(10), want: Int64Value(9)}, // no counter: -1
		{name: "nd_tick", total: true, in: Int64Value(10), want: Int64Value(10), withCounter: true, secondResult: Int64Value(11)},
		{name: "nd_tick", total: true, in: NullValue(Int64), want: NullValue(Int64), withCounter: true, secondResult: NullValue(Int64)},
	} {
		u, ok := r.Lookup(tc.name)
		if !ok {
			t.Fatalf("no %s", tc.name)
		}
		if u.Total != tc.total || u.Deterministic != tc.det || len(u.Params) != 1 || u.Params[0] != Int64 || u.Result != Int64 {
			t.Errorf("%s: declaration %+v", tc.name, u)
		}
		ctx := context.Background()
		if tc.withCounter {
			ctx = WithCallCounter(ctx)
		}
		got, err := u.Fn(ctx, []Value{tc.in})
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s(%v): no error", tc.name, tc.in)
			}
			continue
		}
		if err != nil || !got.Identical(tc.want) {
			t.Errorf("%s(%v) = %v, %v; want %v", tc.name, tc.in, got, err, tc.want)
		}
		if tc.withCounter {
			got2, _ := u.Fn(ctx, []Value{tc.in})
			if !got2.Identical(tc.secondResult) {
				t.Errorf("%s second call = %v, want %v", tc.name, got2, tc.secondResult)
			}
		}
	}
	// Each registry is fresh: registering into one does not leak.
	if err := r.Register(&UDF{Name: "extra", Result: Int64, Fn: okFn}); err != nil {
		t.Fatal(err)
	}
	if _, ok := BuiltinUDFs().Lookup("extra"); ok {
		t.Error("BuiltinUDFs shares state between calls")
	}
}

func TestCallCounter(t *testing.T) {
	if CallCount(context.Background()) != -1 {
		t.Error("a context without a counter counts")
	}
	ctx := WithCallCounter(context.Background())
	other := WithCallCounter(context.Background())
	for i := int64(0); i < 3; i++ {
		if got := CallCount(ctx); got != i {
			t.Errorf("call %d = %d", i, got)
		}
	}
	if CallCount(other) != 0 {
		t.Error("counters are shared between evaluations")
	}
	// Concurrent calls hand out each number once.
	c := WithCallCounter(context.Background())
	var wg sync.WaitGroup
	seen := make([]int64, 100)
	for i := range seen {
		wg.Add(1)
		go func(i int) { defer wg.Done(); seen[i] = CallCount(c) }(i)
	}
	wg.Wait()
	got := map[int64]bool{}
	for _, v := range seen {
		got[v] = true
	}
	if len(got) != 100 {
		t.Errorf("concurrent counts repeat: %d distinct", len(got))
	}
}

func TestExtensionRegistry(t *testing.T) {
	r, err := NewExtensionRegistry(identityExt, ndExt, detExt)
	if err != nil {
		t.Fatal(err)
	}
	const builtins = "det,identity,nd"
	if got := strings.Join(r.Names(), ","); got != builtins {
		t.Fatalf("Names() = %s", got)
	}
	if d, ok := r.Lookup("identity"); !ok || d != identityExt {
		t.Error("Lookup(identity) is not the registered declaration")
	}
	for _, tc := range []struct {
		name string
		d    *ExtensionDef
		msg  string
	}{
		{"nil", nil, "register extension: missing name"},
		{"unnamed", &ExtensionDef{Inputs: 1}, "register extension: missing name"},
		{"no inputs", &ExtensionDef{Name: "x"}, `register extension "x": needs at least one input, got 0`},
		{"negative inputs", &ExtensionDef{Name: "x", Inputs: -1}, "needs at least one input, got -1"},
		{"unknown property", &ExtensionDef{Name: "x", Inputs: 1, Properties: []ExtensionProperty{RowPreserving, "commutative"}},
			`register extension "x": unknown property "commutative" (declarable: [row_preserving column_passthrough order_preserving deterministic])`},
		{"builtin name", &ExtensionDef{Name: "identity", Inputs: 1}, `register extension "identity": already registered`},
	} {
		err := r.Register(tc.d)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: Register error %v, want %q", tc.name, err, tc.msg)
		}
	}
	all := &ExtensionDef{Name: "all", Inputs: 2, Properties: ExtensionProperties()}
	if err := r.Register(all); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "all,"+builtins {
		t.Errorf("Names() = %s", got)
	}
	if other, _ := NewExtensionRegistry(identityExt, ndExt, detExt); strings.Join(other.Names(), ",") != builtins {
		t.Error("registries made from the same declarations share state")
	}
	if _, err := NewExtensionRegistry(all, all); err == nil {
		t.Error("NewExtensionRegistry accepted a duplicate")
	}
	var nilReg *ExtensionRegistry
	if _, ok := nilReg.Lookup("identity"); ok || nilReg.Names() != nil {
		t.Error("a nil registry is not empty")
	}
}
