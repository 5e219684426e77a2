// Package testops declares dfopt's built-in extension operators: identity
// and the test operators. Each exists to exercise one declaration, the way
// the built-in UDFs do: the oracle and the generators run them through both
// executors, and the mutation campaign needs, for every extension cell of
// the legality table, an operator that breaks exactly the property that
// cell checks. Package plan only defines what an extension declaration is;
// these are one set of declarations, as a host's own operators are another
// (registered alongside them). Plan files (plan/planjson) resolve extension
// names against Registry unless given another registry.
//
// The package holds declarations only. exec and eager implement the
// operators (package exec/ops) and the reference interpreter implements
// them from docs/semantics.md ("Built-in extension operators"). reference
// may import this package besides plan (layering_test.go): it runs its own
// implementation only for these declarations, which plan.Equal compares by
// pointer, so it must hold the pointers themselves.
//
// The operators:
//
//	operator         declares                                          what it does
//	identity         nothing                                           returns its input
//	passthrough_tag  row_preserving column_passthrough order_preserving appends tag: bool, is_null(first column)
//	                 deterministic
//	checked_tag      column_passthrough order_preserving deterministic as passthrough_tag, but fails (udf_error) on a
//	                                                                   row whose first column is null
//	swap_pairs       row_preserving column_passthrough deterministic   swaps rows 0 and 1, 2 and 3, ...
//	nd_tag           row_preserving column_passthrough order_preserving appends tag: int64, the call counter, one per row
//	null_first       row_preserving order_preserving deterministic     replaces the first column by nulls
//	lag_first        nothing                                           shifts the first column down one row (a window)
package testops

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// Identity is the built-in "identity" operator: it returns its input
// unchanged and declares nothing, so it is a barrier to every rule (the
// closed-world default made visible).
var Identity = &plan.ExtensionDef{Name: "identity", Inputs: 1}

// tagColumn is the name of the column passthrough_tag, checked_tag and nd_tag
// append.
const tagColumn = "tag"

var (
	passthroughTag = &plan.ExtensionDef{Name: "passthrough_tag", Inputs: 1,
		Properties:   []plan.ExtensionProperty{plan.RowPreserving, plan.ColumnPassthrough, plan.OrderPreserving, plan.DeterministicOp},
		OutputSchema: appendTag(plan.Bool), Reads: firstColumn}
	checkedTag = &plan.ExtensionDef{Name: "checked_tag", Inputs: 1,
		Properties:   []plan.ExtensionProperty{plan.ColumnPassthrough, plan.OrderPreserving, plan.DeterministicOp},
		OutputSchema: appendTag(plan.Bool), Reads: firstColumn}
	swapPairs = &plan.ExtensionDef{Name: "swap_pairs", Inputs: 1,
		Properties: []plan.ExtensionProperty{plan.RowPreserving, plan.ColumnPassthrough, plan.DeterministicOp},
		Reads:      readsNothing}
	ndTag = &plan.ExtensionDef{Name: "nd_tag", Inputs: 1,
		Properties:   []plan.ExtensionProperty{plan.RowPreserving, plan.ColumnPassthrough, plan.OrderPreserving},
		OutputSchema: appendTag(plan.Int64), Reads: readsNothing}
	nullFirst = &plan.ExtensionDef{Name: "null_first", Inputs: 1,
		Properties:   []plan.ExtensionProperty{plan.RowPreserving, plan.OrderPreserving, plan.DeterministicOp},
		OutputSchema: firstNullable}
	lagFirst = &plan.ExtensionDef{Name: "lag_first", Inputs: 1, OutputSchema: firstNullable}
)

// builtinExtensions lists the built-in operators in registry order.
var builtinExtensions = []*plan.ExtensionDef{Identity, passthroughTag, checkedTag, swapPairs, ndTag, nullFirst, lagFirst}

// Registry returns a registry with the built-in operators (see the package
// documentation); a fresh registry each call, holding the same
// declarations, so that a host can add its own operators to it.
func Registry() *plan.ExtensionRegistry {
	r, err := plan.NewExtensionRegistry(builtinExtensions...)
	if err != nil {
		panic(err) // the built-in set is fixed
	}
	return r
}

// appendTag is the output schema of an operator that appends tagColumn of
// type t (never null) to its input.
func appendTag(t plan.Type) func([]plan.Schema) (plan.Schema, error) {
	return func(in []plan.Schema) (plan.Schema, error) {
		if len(in) != 1 {
			return plan.Schema{}, fmt.Errorf("takes one input, got %d", len(in))
		}
		if in[0].Index(tagColumn) >= 0 {
			return plan.Schema{}, fmt.Errorf("the input already has a column named %q", tagColumn)
		}
		return plan.NewSchema(append(in[0].Fields(), plan.Field{Name: tagColumn, Type: t})...)
	}
}

// firstNullable is the output schema of an operator that rewrites the first
// column (possibly to null).
func firstNullable(in []plan.Schema) (plan.Schema, error) {
	if len(in) != 1 {
		return plan.Schema{}, fmt.Errorf("takes one input, got %d", len(in))
	}
	fs := in[0].Fields()
	if len(fs) > 0 {
		fs[0].Nullable = true
	}
	return plan.NewSchema(fs...)
}

// firstColumn reads the input's first column.
func firstColumn(in plan.Schema) []string {
	if in.Len() == 0 {
		return nil
	}
	return []string{in.Field(0).Name}
}

func readsNothing(plan.Schema) []string { return []string{} }
