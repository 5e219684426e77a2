package plan

import (
	"strings"
	"testing"
)

// Declarations for package plan's own tests (the built-in operators are
// declared in package plan/testops, which imports plan): one that declares
// nothing, a deterministic row-preserving passthrough, and the same without
// determinism.
var (
	identityExt = &ExtensionDef{Name: "identity", Inputs: 1}
	detExt      = &ExtensionDef{Name: "det", Inputs: 1, Properties: []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving, DeterministicOp}}
	ndExt       = &ExtensionDef{Name: "nd", Inputs: 1, Properties: []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving}}
)

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
	ndOp, detOp := ndExt, detExt
	for _, tc := range []struct {
		name       string
		plan       Frame
		exprs, ops bool
	}{
		{"scan", st, true, true},
		{"nd expression", st.Select(nd), false, true},
		{"nd operator", st.Extension(ndOp), true, false},
		{"deterministic operator", st.Extension(detOp), true, true},
		{"undeclared operator", st.Extension(identityExt), true, false},
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
