package ops

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// render prints a record as "name=v,v,...; name=..." with nulls as "_".
func renderRecord(rec arrow.RecordBatch) string {
	var parts []string
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		vals := make([]string, col.Len())
		for j := range vals {
			if col.IsNull(j) {
				vals[j] = "_"
				continue
			}
			vals[j] = col.ValueStr(j)
		}
		parts = append(parts, f.Name+"="+strings.Join(vals, ","))
	}
	return strings.Join(parts, "; ")
}

// TestBuiltinExtensionImpls pins what each built-in operator does, on a
// checked allocator (no leaks, also on the failing path).
func TestBuiltinExtensionImpls(t *testing.T) {
	impls := BuiltinExtensionImpls()
	for _, name := range testops.Registry().Names() {
		if impls[name] == nil {
			t.Errorf("no implementation of the built-in extension %q", name)
		}
	}
	if len(impls) != len(testops.Registry().Names()) {
		t.Errorf("%d implementations for %d declarations", len(impls), len(testops.Registry().Names()))
	}
	for _, tc := range []struct {
		name string
		a    []any // the first column
		want string
		err  string
	}{
		{"identity", []any{1, nil, 3}, "a=1,_,3; b=x,y,z", ""},
		{"passthrough_tag", []any{1, nil, 3}, "a=1,_,3; b=x,y,z; tag=false,true,false", ""},
		{"checked_tag", []any{1, 2, 3}, "a=1,2,3; b=x,y,z; tag=false,false,false", ""},
		{"checked_tag", []any{1, nil, nil}, "", "udf_error at row 1"},
		{"swap_pairs", []any{1, nil, 3}, "a=_,1,3; b=y,x,z", ""},
		{"swap_pairs", []any{1, nil}, "a=_,1; b=y,x", ""},
		{"swap_pairs", []any{}, "a=; b=", ""},
		{"nd_tag", []any{1, nil, 3}, "a=1,_,3; b=x,y,z; tag=0,1,2", ""},
		{"null_first", []any{1, nil, 3}, "a=_,_,_; b=x,y,z", ""},
		{"lag_first", []any{1, nil, 3}, "a=_,1,_; b=x,y,z", ""},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.name, len(tc.a)), func(t *testing.T) {
			mem := newMem(t)
			a := build(t, mem, arrow.PrimitiveTypes.Int64, tc.a...)
			defer a.Release()
			bv := []any{"x", "y", "z"}[:len(tc.a)]
			b := build(t, mem, arrow.BinaryTypes.String, bv...)
			defer b.Release()
			schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: a.DataType(), Nullable: true}, {Name: "b", Type: b.DataType()}}, nil)
			in := array.NewRecordBatch(schema, []arrow.Array{a, b}, int64(len(tc.a)))
			defer in.Release()
			before := renderRecord(in)
			ctx := plan.WithCallCounter(context.Background())
			out, err := impls[tc.name](ctx, &plan.ExtensionNode{}, []arrow.RecordBatch{in}, mem)
			if tc.err != "" {
				pe, ok := plan.AsError(err)
				if !ok || pe.Kind != plan.UDFError || fmt.Sprintf("%s at row %d", pe.Kind, pe.Row) != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if got := renderRecord(out); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			// The input is untouched.
			if got := renderRecord(in); got != before {
				t.Errorf("input changed: %s, was %s", got, before)
			}
		})
	}
	// Arity errors, not panics.
	for name, fn := range impls {
		if _, err := fn(context.Background(), &plan.ExtensionNode{}, nil, newMem(t)); err == nil {
			t.Errorf("%s accepted no input", name)
		}
	}
}
