package oracle

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
)

// Way names one of the four evaluations the oracle compares.
type Way int

// The four ways.
const (
	// Optimized: rules.Optimize, then the executor collects the result.
	Optimized Way = iota
	// Unoptimized: the executor collects the plan as written.
	Unoptimized
	// Eager: eager.FromPlan evaluates the plan step by step.
	Eager
	// Reference: package reference, a row-at-a-time interpreter of
	// docs/semantics.md sharing no code with exec and eager, evaluates the
	// plan as written.
	Reference
)

// Ways lists the four ways in report order.
func Ways() []Way { return []Way{Optimized, Unoptimized, Eager, Reference} }

// String returns "optimized", "unoptimized", "eager" or "reference".
func (w Way) String() string {
	switch w {
	case Optimized:
		return "optimized"
	case Unoptimized:
		return "unoptimized"
	case Eager:
		return "eager"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("way(%d)", int(w))
}

// Outcome is what one way produced when it succeeded: the schema and the
// cells, column by column, as plan values (floats keep their bits). It holds
// no Arrow memory, so a host executor need not be Arrow-based.
type Outcome struct {
	// Schema is the result's schema: names, types and nullability.
	Schema plan.Schema
	// Rows is the number of rows.
	Rows int
	// Columns holds one slice of Rows values per schema field, in order.
	Columns [][]plan.Value
	// MemoHits is the number of subtree results the executor's memo served,
	// or -1 when the executor does not report it (the eager chain has no
	// memo).
	MemoHits int
}

// Executor evaluates a plan for the optimized and unoptimized ways. A host
// plugs its own executor in through Case.Executor or Campaign.Executor;
// the default is exec.Collect (ExecExecutor). Collect must return a
// *plan.Error on failure (anything else is reported as a divergence of kind
// internal), must be safe for concurrent use when a campaign runs several
// workers, and should honour ctx.
type Executor interface {
	// Name identifies the executor in reports.
	Name() string
	// Collect evaluates root, which may be unresolved.
	Collect(ctx context.Context, root plan.Node) (Outcome, error)
}

// ExecExecutor is the default Executor: exec.Collect with the given options.
type ExecExecutor struct {
	Options exec.Options
}

// Name returns "exec".
func (ExecExecutor) Name() string { return "exec" }

// Collect runs exec.Collect and converts its record into an Outcome,
// releasing the Arrow memory before returning.
func (x ExecExecutor) Collect(ctx context.Context, root plan.Node) (Outcome, error) {
	res, err := exec.Collect(ctx, root, x.Options)
	if err != nil {
		return Outcome{}, err
	}
	defer res.Release()
	return OutcomeFromRecord(res.Schema, res.Record, res.MemoHits)
}

// collectEager evaluates root with the eager chain and the extension
// implementations exts (nil: the built-ins).
func collectEager(ctx context.Context, root plan.Node, exts *eager.Extensions) (Outcome, error) {
	df, err := eager.FromPlan(ctx, root, eager.Options{Extensions: exts})
	if err != nil {
		return Outcome{}, err
	}
	defer df.Release()
	return OutcomeFromRecord(df.Schema(), df.Record(), -1)
}

// OutcomeFromRecord converts an Arrow record with the given plan schema into
// an Outcome (for hosts whose executor produces Arrow). The record's columns
// must have the dfopt Arrow types of the schema's fields.
func OutcomeFromRecord(schema plan.Schema, rec arrow.RecordBatch, memoHits int) (Outcome, error) {
	if rec == nil {
		return Outcome{}, fmt.Errorf("outcome: no record")
	}
	if int(rec.NumCols()) != schema.Len() {
		return Outcome{}, fmt.Errorf("outcome: record has %d columns, schema %s has %d", rec.NumCols(), schema, schema.Len())
	}
	n := int(rec.NumRows())
	out := Outcome{Schema: schema, Rows: n, Columns: make([][]plan.Value, schema.Len()), MemoHits: memoHits}
	for i := range out.Columns {
		col, err := arrayValues(rec.Column(i), schema.Field(i).Type, n)
		if err != nil {
			return Outcome{}, fmt.Errorf("outcome: column %d (%s): %w", i, schema.Field(i).Name, err)
		}
		out.Columns[i] = col
	}
	return out, nil
}

// arrayValues converts one array into plan values with typed loops (the
// generic kernel.ValueAt costs a type resolution per cell).
func arrayValues(a arrow.Array, t plan.Type, n int) ([]plan.Value, error) {
	if a.Len() != n {
		return nil, fmt.Errorf("%d values, the record has %d rows", a.Len(), n)
	}
	out := make([]plan.Value, n)
	nulls := a.NullN() > 0
	switch a := a.(type) {
	case *array.Boolean:
		if t != plan.Bool {
			break
		}
		for i := range out {
			if nulls && a.IsNull(i) {
				out[i] = plan.NullValue(t)
			} else {
				out[i] = plan.BoolValue(a.Value(i))
			}
		}
		return out, nil
	case *array.Int32:
		if t != plan.Int32 {
			break
		}
		for i, v := range a.Int32Values() {
			if nulls && a.IsNull(i) {
				out[i] = plan.NullValue(t)
			} else {
				out[i] = plan.Int32Value(v)
			}
		}
		return out, nil
	case *array.Int64:
		if t != plan.Int64 {
			break
		}
		for i, v := range a.Int64Values() {
			if nulls && a.IsNull(i) {
				out[i] = plan.NullValue(t)
			} else {
				out[i] = plan.Int64Value(v)
			}
		}
		return out, nil
	case *array.Float64:
		if t != plan.Float64 {
			break
		}
		for i, v := range a.Float64Values() {
			if nulls && a.IsNull(i) {
				out[i] = plan.NullValue(t)
			} else {
				out[i] = plan.Float64Value(v)
			}
		}
		return out, nil
	case *array.String:
		if t != plan.String {
			break
		}
		for i := range out {
			if nulls && a.IsNull(i) {
				out[i] = plan.NullValue(t)
			} else {
				// Clone: the string may alias an Arrow buffer that is
				// released (and, with a C allocator, freed) after this.
				out[i] = plan.StringValue(strings.Clone(a.Value(i)))
			}
		}
		return out, nil
	}
	switch a := a.(type) {
	case *array.List:
		if !t.IsList() {
			break
		}
		child := a.ListValues()
		elems, err := arrayValues(child, t.Elem(), child.Len())
		if err != nil {
			return nil, fmt.Errorf("list elements: %w", err)
		}
		for i := range out {
			out[i] = plan.NullValue(t)
			if !a.IsNull(i) {
				lo, hi := a.ValueOffsets(i)
				out[i] = plan.ListValue(t, append([]plan.Value(nil), elems[lo:hi]...))
			}
		}
		return out, nil
	case *array.Struct:
		fs := t.StructFields()
		if !t.IsStruct() || a.NumField() != len(fs) {
			break
		}
		st := a.DataType().(*arrow.StructType)
		cols := make([][]plan.Value, len(fs))
		for f := range fs {
			if st.Field(f).Name != fs[f].Name {
				return nil, fmt.Errorf("struct field %d is named %q where the schema says %q", f, st.Field(f).Name, fs[f].Name)
			}
			c, err := arrayValues(a.Field(f), fs[f].Type, n)
			if err != nil {
				return nil, fmt.Errorf("struct field %q: %w", fs[f].Name, err)
			}
			cols[f] = c
		}
		for i := range out {
			out[i] = plan.NullValue(t)
			if !a.IsNull(i) {
				row := make([]plan.Value, len(fs))
				for f := range fs {
					row[f] = cols[f][i]
				}
				out[i] = plan.StructValue(t, row)
			}
		}
		return out, nil
	case *array.Date32:
		if t == plan.Date {
			for i := range out {
				out[i] = plan.NullValue(t)
				if !a.IsNull(i) {
					out[i] = plan.DateValue(int32(a.Value(i)))
				}
			}
			return out, nil
		}
	case *array.Timestamp:
		if ts := a.DataType().(*arrow.TimestampType); t == plan.Datetime && ts.Unit == arrow.Microsecond && ts.TimeZone == "" {
			for i := range out {
				out[i] = plan.NullValue(t)
				if !a.IsNull(i) {
					out[i] = plan.DatetimeValue(int64(a.Value(i)))
				}
			}
			return out, nil
		}
	case *array.Duration:
		if t == plan.Duration && a.DataType().(*arrow.DurationType).Unit == arrow.Microsecond {
			for i := range out {
				out[i] = plan.NullValue(t)
				if !a.IsNull(i) {
					out[i] = plan.DurationValue(int64(a.Value(i)))
				}
			}
			return out, nil
		}
	}
	switch a := a.(type) {
	case *array.Int8:
		return fixedValues(out, a, t, plan.Int8, a.Int8Values(), plan.Int8Value)
	case *array.Int16:
		return fixedValues(out, a, t, plan.Int16, a.Int16Values(), plan.Int16Value)
	case *array.Uint8:
		return fixedValues(out, a, t, plan.Uint8, a.Uint8Values(), plan.Uint8Value)
	case *array.Uint16:
		return fixedValues(out, a, t, plan.Uint16, a.Uint16Values(), plan.Uint16Value)
	case *array.Uint32:
		return fixedValues(out, a, t, plan.Uint32, a.Uint32Values(), plan.Uint32Value)
	case *array.Uint64:
		return fixedValues(out, a, t, plan.Uint64, a.Uint64Values(), plan.Uint64Value)
	case *array.Float32:
		return fixedValues(out, a, t, plan.Float32, a.Float32Values(), plan.Float32Value)
	}
	return nil, fmt.Errorf("an Arrow %s array where the schema says %s", a.DataType(), t)
}

// fixedValues converts the values of a fixed-width array of the narrower
// numeric types (want is the plan type the array holds; t the schema's).
func fixedValues[T any](out []plan.Value, a arrow.Array, t, want plan.Type, vals []T, mk func(T) plan.Value) ([]plan.Value, error) {
	if t != want {
		return nil, fmt.Errorf("an Arrow %s array where the schema says %s", a.DataType(), t)
	}
	for i, v := range vals {
		if a.IsNull(i) {
			out[i] = plan.NullValue(t)
		} else {
			out[i] = mk(v)
		}
	}
	return out, nil
}
