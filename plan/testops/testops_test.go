package testops

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// table returns an empty in-memory table with the given fields.
func table(t testing.TB, name string, fields ...plan.Field) *plan.Table {
	t.Helper()
	tb, err := plan.NewTable(name, plan.MustSchema(fields...), make([][]plan.Value, len(fields)))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func builtinExt(t testing.TB, name string) *plan.ExtensionDef {
	t.Helper()
	d, ok := Registry().Lookup(name)
	if !ok {
		t.Fatalf("no built-in extension %q", name)
	}
	return d
}

// TestOperators pins each built-in operator's declaration (the
// mutation campaign depends on each breaking exactly one property) and its
// output schema.
func TestOperators(t *testing.T) {
	in := table(t, "t", plan.Field{Name: "a", Type: plan.Int64}, plan.Field{Name: "b", Type: plan.String, Nullable: true})
	for _, tc := range []struct {
		name   string
		props  []plan.ExtensionProperty
		schema string
		reads  string // "*" for every column
	}{
		{"identity", nil, "[a: int64, b: string?]", "*"},
		{"passthrough_tag", []plan.ExtensionProperty{plan.RowPreserving, plan.ColumnPassthrough, plan.OrderPreserving, plan.DeterministicOp}, "[a: int64, b: string?, tag: bool]", "a"},
		{"checked_tag", []plan.ExtensionProperty{plan.ColumnPassthrough, plan.OrderPreserving, plan.DeterministicOp}, "[a: int64, b: string?, tag: bool]", "a"},
		{"swap_pairs", []plan.ExtensionProperty{plan.RowPreserving, plan.ColumnPassthrough, plan.DeterministicOp}, "[a: int64, b: string?]", ""},
		{"nd_tag", []plan.ExtensionProperty{plan.RowPreserving, plan.ColumnPassthrough, plan.OrderPreserving}, "[a: int64, b: string?, tag: int64]", ""},
		{"null_first", []plan.ExtensionProperty{plan.RowPreserving, plan.OrderPreserving, plan.DeterministicOp}, "[a: int64?, b: string?]", "*"},
		{"lag_first", nil, "[a: int64?, b: string?]", "*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := builtinExt(t, tc.name)
			for _, p := range plan.ExtensionProperties() {
				want := false
				for _, q := range tc.props {
					want = want || p == q
				}
				if d.Has(p) != want {
					t.Errorf("Has(%s) = %v", p, !want)
				}
			}
			r, err := plan.Resolve(plan.Scan(in).Extension(d).Node())
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Schema().String(); got != tc.schema {
				t.Errorf("schema %s, want %s", got, tc.schema)
			}
			cols, ok := d.ReadColumns(in.Schema())
			got := strings.Join(cols, ",")
			if !ok {
				got = "*"
			}
			if got != tc.reads {
				t.Errorf("ReadColumns = %q, want %q", got, tc.reads)
			}
		})
	}
	if Registry() == Registry() {
		t.Error("Registry returns a shared registry")
	}
	a, _ := Registry().Lookup("passthrough_tag")
	b, _ := Registry().Lookup("passthrough_tag")
	if a != b {
		t.Error("the built-in declarations are not shared: plan.Equal compares them by pointer")
	}
	// A tag column already in the input is a clear resolve error.
	tagged := table(t, "u", plan.Field{Name: "tag", Type: plan.Bool})
	_, err := plan.Resolve(plan.Scan(tagged).Extension(builtinExt(t, "passthrough_tag")).Node())
	if err == nil || !strings.Contains(err.Error(), `already has a column named "tag"`) {
		t.Errorf("tag collision: %v", err)
	}
}

// TestRegistry: the registry lists the operators by name, holds Identity
// itself, refuses a second operator of a built-in name, and is fresh on
// every call (a host's registration does not leak into the next one).
func TestRegistry(t *testing.T) {
	r := Registry()
	const builtins = "checked_tag,identity,lag_first,nd_tag,null_first,passthrough_tag,swap_pairs"
	if got := strings.Join(r.Names(), ","); got != builtins {
		t.Fatalf("Names() = %s", got)
	}
	if d, ok := r.Lookup("identity"); !ok || d != Identity || len(d.Properties) != 0 || d.Inputs != 1 {
		t.Error("the identity extension is wrong")
	}
	if err := r.Register(&plan.ExtensionDef{Name: "identity", Inputs: 1}); err == nil || !strings.Contains(err.Error(), `register extension "identity": already registered`) {
		t.Errorf("registering a second identity: %v", err)
	}
	if err := r.Register(&plan.ExtensionDef{Name: "all", Inputs: 2, Properties: plan.ExtensionProperties()}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Registry().Lookup("all"); ok {
		t.Error("Registry shares state between calls")
	}
}
