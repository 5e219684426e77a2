package legality

import (
	"strings"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

func builtinExt(t *testing.T, name string) *plan.ExtensionDef {
	t.Helper()
	d, ok := testops.Registry().Lookup(name)
	if !ok {
		t.Fatalf("no built-in extension %s", name)
	}
	return d
}

func extOver(t *testing.T, def *plan.ExtensionDef) plan.Node {
	t.Helper()
	tb, err := plan.NewTable("t", schema("a", "b"), [][]plan.Value{nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	n, err := plan.Resolve(plan.Scan(tb).Extension(def).Node())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPushdownExtension: each built-in operator is stopped by exactly the
// cell of the property it lacks, and passthrough_tag lets a conjunct over
// its input columns cross but not one over the column it adds.
func TestPushdownExtension(t *testing.T) {
	pair := &plan.ExtensionDef{Name: "pair", Inputs: 2, Properties: plan.ExtensionProperties()}
	for _, tc := range []struct {
		ext     string
		def     *plan.ExtensionDef
		conj    plan.E
		allowed bool
		cell    CellID // the last cell consulted
		detail  string
	}{
		{ext: "identity", conj: col("a").Gt(plan.Lit(1)), cell: PPExtension},
		{ext: "lag_first", conj: col("a").Gt(plan.Lit(1)), cell: PPExtension},
		{ext: "checked_tag", conj: col("a").Gt(plan.Lit(1)), cell: PPExtensionRowPreserving, detail: "checked_tag does not declare row_preserving"},
		{ext: "swap_pairs", conj: col("a").Gt(plan.Lit(1)), cell: PPExtensionOrderPreserving, detail: "does not declare order_preserving"},
		{ext: "nd_tag", conj: col("a").Gt(plan.Lit(1)), cell: PPExtensionDeterministic, detail: "does not declare deterministic"},
		{ext: "null_first", conj: col("a").IsNull(), cell: PPExtensionPassthrough, detail: "does not declare column_passthrough"},
		{ext: "passthrough_tag", conj: col("a").Gt(plan.Lit(1)), allowed: true, cell: PPExtensionPassthrough},
		{ext: "passthrough_tag", conj: col("tag"), cell: PPExtensionPassthrough, detail: "reads tag, added by passthrough_tag"},
		{ext: "passthrough_tag", conj: col("a").Div(col("b")).Gt(plan.Lit(1)), allowed: true, cell: PPExtensionPassthrough},
	} {
		t.Run(tc.ext+"/"+tc.conj.String(), func(t *testing.T) {
			n := extOver(t, builtinExt(t, tc.ext))
			r := Default().Pushdown(tc.conj.Expr(), n)
			last := r.Decisions[len(r.Decisions)-1]
			if r.Allowed != tc.allowed || last.Cell != tc.cell || !strings.Contains(last.Detail, tc.detail) {
				t.Errorf("Pushdown = %v %v, want allowed=%v by %s (%q)", r.Allowed, r.Decisions, tc.allowed, tc.cell, tc.detail)
			}
		})
	}
	// A two-input extension is closed-world whatever it declares.
	tb, _ := plan.NewTable("t", schema("a"), [][]plan.Value{nil})
	n, err := plan.Resolve(plan.Scan(tb).Extension(pair, plan.Scan(tb)).Node())
	if err != nil {
		t.Fatal(err)
	}
	if d := Default().PushdownNode(n).Decision(); d.Allowed || d.Cell != PPExtension {
		t.Errorf("two-input extension: %v", d)
	}
	// The batched view the rule uses: passthrough_tag watches only tag, and
	// every property cell is listed.
	chk := Default().PushdownNode(extOver(t, builtinExt(t, "passthrough_tag")))
	if got := strings.Join(chk.Watch(), ","); got != "tag" {
		t.Errorf("Watch() = %s, want tag", got)
	}
	var cells []string
	for _, d := range chk.Decisions() {
		cells = append(cells, string(d.Cell))
	}
	if got := strings.Join(cells, ","); got != "pp.extension.row_preserving,pp.extension.order_preserving,pp.extension.deterministic" {
		t.Errorf("Decisions() = %s", got)
	}
	if chk.ShadowCell() != PPExtensionPassthrough {
		t.Errorf("ShadowCell() = %s", chk.ShadowCell())
	}
	// Without column_passthrough every output column is watched.
	chk = Default().PushdownNode(extOver(t, builtinExt(t, "null_first")))
	if got := strings.Join(chk.Watch(), ","); got != "a,b" {
		t.Errorf("null_first Watch() = %s, want a,b", got)
	}
	// Flipped, each property cell stops checking.
	for _, id := range []CellID{PPExtensionRowPreserving, PPExtensionOrderPreserving, PPExtensionDeterministic} {
		mut, _ := Default().Flipped(id)
		for _, ext := range []string{"checked_tag", "swap_pairs", "nd_tag"} {
			for _, d := range mut.PushdownNode(extOver(t, builtinExt(t, ext))).Decisions() {
				if d.Cell == id && !d.Allowed {
					t.Errorf("%s flipped still refuses %s", id, ext)
				}
			}
		}
	}
}

// TestPruneExtension: only a passthrough operator narrows, keeping what it
// reads.
func TestPruneExtension(t *testing.T) {
	undeclared := &plan.ExtensionDef{Name: "pt_noreads", Inputs: 1, Properties: []plan.ExtensionProperty{plan.ColumnPassthrough}}
	panics := &plan.ExtensionDef{Name: "pt_panics", Inputs: 1, Properties: []plan.ExtensionProperty{plan.ColumnPassthrough},
		Reads: func(plan.Schema) []string { panic("host bug") }}
	for _, tc := range []struct {
		ext     string
		def     *plan.ExtensionDef
		allowed bool
		cell    CellID
		extra   string
	}{
		{ext: "identity", cell: PRExtension},
		{ext: "lag_first", cell: PRExtension},
		{ext: "null_first", cell: PRExtensionPassthrough},
		{ext: "passthrough_tag", allowed: true, cell: PRExtensionPassthrough, extra: "a"},
		{ext: "checked_tag", allowed: true, cell: PRExtensionPassthrough, extra: "a"},
		{ext: "swap_pairs", allowed: true, cell: PRExtensionPassthrough, extra: ""},
		{ext: "nd_tag", allowed: true, cell: PRExtensionPassthrough, extra: ""},
		{ext: "pt_noreads", def: undeclared, allowed: true, cell: PRExtensionPassthrough, extra: "a,b"},
		{ext: "pt_panics", def: panics, allowed: true, cell: PRExtensionPassthrough, extra: "a,b"},
	} {
		t.Run(tc.ext, func(t *testing.T) {
			def := tc.def
			if def == nil {
				def = builtinExt(t, tc.ext)
			}
			d, extra := Default().PruneThrough(extOver(t, def))
			if d.Allowed != tc.allowed || d.Cell != tc.cell || strings.Join(extra, ",") != tc.extra {
				t.Errorf("PruneThrough = %v, extra %v; want allowed=%v by %s, extra %q", d, extra, tc.allowed, tc.cell, tc.extra)
			}
		})
	}
	// The mutant narrows without the operator's reads.
	mut, _ := Default().Flipped(PRExtensionPassthrough)
	if d, extra := mut.PruneThrough(extOver(t, builtinExt(t, "passthrough_tag"))); !d.Allowed || extra != nil {
		t.Errorf("flipped: %v %v", d, extra)
	}
}

// TestShareExtension: a subtree with a non-deterministic operator is
// refused by ss.extension.deterministic, one with a non-deterministic
// expression by ss.deterministic.
func TestShareExtension(t *testing.T) {
	for _, tc := range []struct {
		ext     string
		allowed bool
		cell    CellID
	}{
		{"passthrough_tag", true, SSExtensionDeterministic},
		{"nd_tag", false, SSExtensionDeterministic},
		{"identity", false, SSExtensionDeterministic},
	} {
		d := Default().ShareDeterministic(extOver(t, builtinExt(t, tc.ext)))
		if d.Allowed != tc.allowed || d.Cell != tc.cell {
			t.Errorf("%s: ShareDeterministic = %v", tc.ext, d)
		}
	}
	nd, _ := plan.BuiltinUDFs().Lookup("nd_seq")
	tb, _ := plan.NewTable("t", schema("a"), [][]plan.Value{nil})
	n, err := plan.Resolve(plan.Scan(tb).Select(plan.CallUDF(nd, col("a"))).Extension(builtinExt(t, "nd_tag")).Node())
	if err != nil {
		t.Fatal(err)
	}
	r := Default().ShareRuling(n)
	if r.Allowed || len(r.Decisions) != 1 || r.Decisions[0].Cell != SSDeterministic {
		t.Errorf("nd expression: %v", r)
	}
	mut, _ := Default().Flipped(SSExtensionDeterministic)
	if d := mut.ShareDeterministic(extOver(t, builtinExt(t, "nd_tag"))); !d.Allowed {
		t.Errorf("flipped ss.extension.deterministic still refuses: %v", d)
	}
}
