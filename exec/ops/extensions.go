package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/plan"
)

// The built-in extension operators of testops.Registry live here so
// that the executor and the eager chain run one implementation: the oracle
// compares the two, and the mutation campaign needs each operator to behave
// identically in both (see package plan/testops for what each one
// declares and why it exists).

// ExtensionImpl is the shape of exec.ExtensionFunc and eager.ExtensionFunc
// (an alias, so a value is assignable to both): it receives the evaluated
// inputs (borrowed) and returns a new batch the caller owns.
type ExtensionImpl = func(ctx context.Context, node *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error)

// BuiltinExtensionImpls returns the implementations of the built-in
// operators, by name ("identity" included).
func BuiltinExtensionImpls() map[string]ExtensionImpl {
	return map[string]ExtensionImpl{
		"identity":        identity,
		"passthrough_tag": passthroughTag,
		"checked_tag":     checkedTag,
		"swap_pairs":      swapPairs,
		"nd_tag":          ndTag,
		"null_first":      nullFirst,
		"lag_first":       lagFirst,
	}
}

// tagName is the column passthrough_tag, checked_tag and nd_tag append.
const tagName = "tag"

func oneInput(name string, inputs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(inputs) != 1 || inputs[0] == nil {
		return nil, fmt.Errorf("%s takes one input, got %d", name, len(inputs))
	}
	return inputs[0], nil
}

func identity(_ context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, _ memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("identity", inputs)
	if err != nil {
		return nil, err
	}
	in.Retain()
	return in, nil
}

// withColumn returns in's columns plus col (which it takes over) under name.
func withColumn(in arrow.RecordBatch, name string, col arrow.Array) arrow.RecordBatch {
	defer col.Release()
	fields := append(append([]arrow.Field(nil), in.Schema().Fields()...), arrow.Field{Name: name, Type: col.DataType(), Nullable: col.NullN() > 0})
	cols := append(append([]arrow.Array(nil), in.Columns()...), col)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, in.NumRows())
}

// nullTags is is_null(first column) per row (all false without columns).
func nullTags(mem memory.Allocator, in arrow.RecordBatch) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	n := int(in.NumRows())
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(in.NumCols() > 0 && in.Column(0).IsNull(i))
	}
	return b.NewArray()
}

// passthroughTag appends tag = is_null(first column): a row-wise map that
// cannot fail.
func passthroughTag(_ context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("passthrough_tag", inputs)
	if err != nil {
		return nil, err
	}
	return withColumn(in, tagName, nullTags(mem, in)), nil
}

// checkedTag is passthroughTag that fails on the first row whose first
// column is null: row-wise, but not total.
func checkedTag(_ context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("checked_tag", inputs)
	if err != nil {
		return nil, err
	}
	if in.NumCols() > 0 {
		c := in.Column(0)
		for i := 0; i < c.Len(); i++ {
			if c.IsNull(i) {
				return nil, &plan.Error{Kind: plan.UDFError, Expr: "checked_tag", Row: int64(i),
					Msg: fmt.Sprintf("checked_tag: column %s is null", in.Schema().Field(0).Name)}
			}
		}
	}
	return withColumn(in, tagName, nullTags(mem, in)), nil
}

// swapPairs swaps rows 0 and 1, 2 and 3, and so on (a last odd row stays):
// row-wise, but not order-preserving, and unlike a reversal it does not
// commute with a filter that removes any row but the last.
func swapPairs(_ context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("swap_pairs", inputs)
	if err != nil {
		return nil, err
	}
	n := int(in.NumRows())
	if err := checkRows(n); err != nil {
		return nil, fmt.Errorf("swap_pairs: %w", err)
	}
	idx := make([]int32, n)
	for i := range idx {
		j := i ^ 1
		if j >= n {
			j = i
		}
		idx[i] = int32(j)
	}
	return TakeRecord(mem, in, idx)
}

// ndTag appends tag = the per-evaluation call counter, advanced once per row
// in row order: row-wise and order-preserving, but non-deterministic.
func ndTag(ctx context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("nd_tag", inputs)
	if err != nil {
		return nil, err
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	n := int(in.NumRows())
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(plan.CallCount(ctx))
	}
	return withColumn(in, tagName, b.NewArray()), nil
}

// replaceFirst returns in with its first column replaced by col (taken
// over), marked nullable.
func replaceFirst(in arrow.RecordBatch, col arrow.Array) arrow.RecordBatch {
	defer col.Release()
	fields := append([]arrow.Field(nil), in.Schema().Fields()...)
	fields[0].Nullable = true
	cols := append([]arrow.Array(nil), in.Columns()...)
	cols[0] = col
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, in.NumRows())
}

// nullFirst replaces the first column by nulls: row-wise and
// order-preserving, but not column-passthrough.
func nullFirst(_ context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("null_first", inputs)
	if err != nil {
		return nil, err
	}
	if in.NumCols() == 0 {
		in.Retain()
		return in, nil
	}
	return replaceFirst(in, array.MakeArrayOfNull(mem, in.Column(0).DataType(), int(in.NumRows()))), nil
}

// lagFirst shifts the first column down one row (the first row gets null):
// each output row depends on the row before it, like a window.
func lagFirst(_ context.Context, _ *plan.ExtensionNode, inputs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	in, err := oneInput("lag_first", inputs)
	if err != nil {
		return nil, err
	}
	if in.NumCols() == 0 {
		in.Retain()
		return in, nil
	}
	n := int(in.NumRows())
	if err := checkRows(n); err != nil {
		return nil, fmt.Errorf("lag_first: %w", err)
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i - 1)
	}
	col, err := Take(mem, in.Column(0), idx)
	if err != nil {
		return nil, fmt.Errorf("lag_first: %w", err)
	}
	return replaceFirst(in, col), nil
}
