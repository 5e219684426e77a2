package plan

import (
	"strings"
	"testing"
)

func builtinExt(t testing.TB, name string) *ExtensionDef {
	t.Helper()
	d, ok := BuiltinExtensions().Lookup(name)
	if !ok {
		t.Fatalf("no built-in extension %q", name)
	}
	return d
}

// TestBuiltinExtensions pins each built-in operator's declaration (the
// mutation campaign depends on each breaking exactly one property) and its
// output schema.
func TestBuiltinExtensions(t *testing.T) {
	in := table(t, "t", "a:int64", "b:string?")
	for _, tc := range []struct {
		name   string
		props  []ExtensionProperty
		schema string
		reads  string // "*" for every column
	}{
		{"identity", nil, "[a: int64, b: string?]", "*"},
		{"passthrough_tag", []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving, DeterministicOp}, "[a: int64, b: string?, tag: bool]", "a"},
		{"checked_tag", []ExtensionProperty{ColumnPassthrough, OrderPreserving, DeterministicOp}, "[a: int64, b: string?, tag: bool]", "a"},
		{"swap_pairs", []ExtensionProperty{RowPreserving, ColumnPassthrough, DeterministicOp}, "[a: int64, b: string?]", ""},
		{"nd_tag", []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving}, "[a: int64, b: string?, tag: int64]", ""},
		{"null_first", []ExtensionProperty{RowPreserving, OrderPreserving, DeterministicOp}, "[a: int64?, b: string?]", "*"},
		{"lag_first", nil, "[a: int64?, b: string?]", "*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := builtinExt(t, tc.name)
			for _, p := range ExtensionProperties() {
				want := false
				for _, q := range tc.props {
					want = want || p == q
				}
				if d.Has(p) != want {
					t.Errorf("Has(%s) = %v", p, !want)
				}
			}
			r := mustResolve(t, Scan(in).Extension(d).Node())
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
	if BuiltinExtensions() == BuiltinExtensions() {
		t.Error("BuiltinExtensions returns a shared registry")
	}
	a, _ := BuiltinExtensions().Lookup("passthrough_tag")
	b, _ := BuiltinExtensions().Lookup("passthrough_tag")
	if a != b {
		t.Error("the built-in declarations are not shared: plan.Equal compares them by pointer")
	}
	// A tag column already in the input is a clear resolve error.
	tagged := table(t, "u", "tag:bool")
	_, err := Resolve(Scan(tagged).Extension(builtinExt(t, "passthrough_tag")).Node())
	if err == nil || !strings.Contains(err.Error(), `already has a column named "tag"`) {
		t.Errorf("tag collision: %v", err)
	}
}

// TestExtensionDeclarationErrors: a declaration that bypasses the registry,
// or whose output contradicts column_passthrough, is a clear resolve error,
// never a plan the optimizer would trust.
func TestExtensionDeclarationErrors(t *testing.T) {
	in := Scan(table(t, "t", "a:int64", "b:string?"))
	for _, tc := range []struct {
		name string
		def  *ExtensionDef
		want string
	}{
		{"unknown property", &ExtensionDef{Name: "x", Inputs: 1, Properties: []ExtensionProperty{"commutes_with_filters"}},
			`unknown property "commutes_with_filters"`},
		{"passthrough drops a column", &ExtensionDef{Name: "drop", Inputs: 1, Properties: []ExtensionProperty{ColumnPassthrough},
			OutputSchema: func(in []Schema) (Schema, error) { return NewSchema(in[0].Field(0)) }},
			"declares column_passthrough, but its output has no column b"},
		{"passthrough changes a type", &ExtensionDef{Name: "retype", Inputs: 1, Properties: []ExtensionProperty{ColumnPassthrough},
			OutputSchema: func(in []Schema) (Schema, error) {
				fs := in[0].Fields()
				fs[0].Type = Float64
				return NewSchema(fs...)
			}},
			"changes column a (a: int64) to a: float64"},
		{"output schema panics", &ExtensionDef{Name: "boom", Inputs: 1,
			OutputSchema: func([]Schema) (Schema, error) { panic("boom") }},
			"OutputSchema panicked: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(in.Extension(tc.def).Node())
			pe, ok := AsError(err)
			if !ok || pe.Kind != InvalidPlan || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Resolve error %v, want an invalid_plan error containing %q", err, tc.want)
			}
		})
	}
}

// TestReadColumns: a Reads that panics or names an unknown column is not
// trusted (every column counts as read).
func TestReadColumns(t *testing.T) {
	s := sch("a:int64", "b:int64")
	for _, tc := range []struct {
		name  string
		reads func(Schema) []string
		want  string
		ok    bool
	}{
		{"undeclared", nil, "", false},
		{"declared", func(Schema) []string { return []string{"b"} }, "b", true},
		{"nothing", func(Schema) []string { return nil }, "", true},
		{"unknown column", func(Schema) []string { return []string{"b", "zz"} }, "", false},
		{"panics", func(Schema) []string { panic("no") }, "", false},
	} {
		d := &ExtensionDef{Name: "x", Inputs: 1, Reads: tc.reads}
		cols, ok := d.ReadColumns(s)
		if got := strings.Join(cols, ","); got != tc.want || ok != tc.ok {
			t.Errorf("%s: ReadColumns = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	var nilDef *ExtensionDef
	if _, ok := nilDef.ReadColumns(s); ok {
		t.Error("a nil declaration reads nothing")
	}
}

// TestDeterminismHalves: Determinism separates non-deterministic
// expressions from non-deterministic operators.
func TestDeterminismHalves(t *testing.T) {
	st := Scan(std(t))
	nd := CallUDF(builtinUDF(t, "nd_seq"), Col("b"))
	ndOp := builtinExt(t, "nd_tag")
	detOp := builtinExt(t, "passthrough_tag")
	for _, tc := range []struct {
		name       string
		plan       Frame
		exprs, ops bool
	}{
		{"scan", st, true, true},
		{"nd expression", st.Select(nd), false, true},
		{"nd operator", st.Extension(ndOp), true, false},
		{"deterministic operator", st.Extension(detOp), true, true},
		{"undeclared operator", st.Extension(IdentityExtension), true, false},
		{"both", st.Extension(ndOp).Select(nd), false, false},
	} {
		for _, resolved := range []bool{false, true} {
			n := tc.plan.Node()
			if resolved {
				n = mustResolve(t, n)
			}
			e, o := Determinism(n)
			if e != tc.exprs || o != tc.ops || IsDeterministicPlan(n) != (tc.exprs && tc.ops) {
				t.Errorf("%s (resolved %v): Determinism = %v, %v; want %v, %v", tc.name, resolved, e, o, tc.exprs, tc.ops)
			}
		}
	}
}
