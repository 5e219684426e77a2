package plan

import "fmt"

// The built-in extension operators. Each exists to exercise one declaration,
// the way the built-in UDFs do: the oracle and the generators run them
// through both executors, and the mutation campaign needs, for every
// extension cell of the legality table, an operator that breaks exactly the
// property that cell checks. exec and eager implement them (package
// exec/ops); a host's own operators are registered alongside.
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

// IdentityExtension is the built-in "identity" operator: it returns its
// input unchanged and declares nothing, so it is a barrier to every rule (the
// closed-world default made visible).
var IdentityExtension = &ExtensionDef{Name: "identity", Inputs: 1}

// tagColumn is the name of the column passthrough_tag, checked_tag and nd_tag
// append.
const tagColumn = "tag"

var (
	passthroughTag = &ExtensionDef{Name: "passthrough_tag", Inputs: 1,
		Properties:   []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving, DeterministicOp},
		OutputSchema: appendTag(Bool), Reads: firstColumn}
	checkedTag = &ExtensionDef{Name: "checked_tag", Inputs: 1,
		Properties:   []ExtensionProperty{ColumnPassthrough, OrderPreserving, DeterministicOp},
		OutputSchema: appendTag(Bool), Reads: firstColumn}
	swapPairs = &ExtensionDef{Name: "swap_pairs", Inputs: 1,
		Properties: []ExtensionProperty{RowPreserving, ColumnPassthrough, DeterministicOp},
		Reads:      readsNothing}
	ndTag = &ExtensionDef{Name: "nd_tag", Inputs: 1,
		Properties:   []ExtensionProperty{RowPreserving, ColumnPassthrough, OrderPreserving},
		OutputSchema: appendTag(Int64), Reads: readsNothing}
	nullFirst = &ExtensionDef{Name: "null_first", Inputs: 1,
		Properties:   []ExtensionProperty{RowPreserving, OrderPreserving, DeterministicOp},
		OutputSchema: firstNullable}
	lagFirst = &ExtensionDef{Name: "lag_first", Inputs: 1, OutputSchema: firstNullable}
)

// builtinExtensions lists the built-in operators in registry order.
var builtinExtensions = []*ExtensionDef{IdentityExtension, passthroughTag, checkedTag, swapPairs, ndTag, nullFirst, lagFirst}

// BuiltinExtensions returns a registry with the built-in operators (see the
// table above); a fresh registry each call, holding the same declarations,
// so that a host can add its own operators to it.
func BuiltinExtensions() *ExtensionRegistry {
	r, err := NewExtensionRegistry(builtinExtensions...)
	if err != nil {
		panic(err) // the built-in set is fixed
	}
	return r
}

// appendTag is the output schema of an operator that appends tagColumn of
// type t (never null) to its input.
func appendTag(t Type) func([]Schema) (Schema, error) {
	return func(in []Schema) (Schema, error) {
		if len(in) != 1 {
			return Schema{}, fmt.Errorf("takes one input, got %d", len(in))
		}
		if in[0].Index(tagColumn) >= 0 {
			return Schema{}, fmt.Errorf("the input already has a column named %q", tagColumn)
		}
		return NewSchema(append(in[0].Fields(), Field{Name: tagColumn, Type: t})...)
	}
}

// firstNullable is the output schema of an operator that rewrites the first
// column (possibly to null).
func firstNullable(in []Schema) (Schema, error) {
	if len(in) != 1 {
		return Schema{}, fmt.Errorf("takes one input, got %d", len(in))
	}
	fs := in[0].Fields()
	if len(fs) > 0 {
		fs[0].Nullable = true
	}
	return NewSchema(fs...)
}

// firstColumn reads the input's first column.
func firstColumn(in Schema) []string {
	if in.Len() == 0 {
		return nil
	}
	return []string{in.Field(0).Name}
}

func readsNothing(Schema) []string { return []string{} }
