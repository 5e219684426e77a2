package kernel

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/exec/internal/phys"
	"github.com/dfopt/dfopt/plan"
)

// ArrowType maps a plan type to the Arrow type that represents it.
func ArrowType(t plan.Type) (arrow.DataType, error) {
	switch t {
	case plan.Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case plan.Int32:
		return arrow.PrimitiveTypes.Int32, nil
	case plan.Int64:
		return arrow.PrimitiveTypes.Int64, nil
	case plan.Float64:
		return arrow.PrimitiveTypes.Float64, nil
	case plan.String:
		return arrow.BinaryTypes.String, nil
	case plan.Date:
		return arrow.FixedWidthTypes.Date32, nil
	case plan.Datetime:
		return datetimeType, nil
	case plan.Duration:
		return arrow.FixedWidthTypes.Duration_us, nil
	case plan.Int8:
		return arrow.PrimitiveTypes.Int8, nil
	case plan.Int16:
		return arrow.PrimitiveTypes.Int16, nil
	case plan.Uint8:
		return arrow.PrimitiveTypes.Uint8, nil
	case plan.Uint16:
		return arrow.PrimitiveTypes.Uint16, nil
	case plan.Uint32:
		return arrow.PrimitiveTypes.Uint32, nil
	case plan.Uint64:
		return arrow.PrimitiveTypes.Uint64, nil
	case plan.Float32:
		return arrow.PrimitiveTypes.Float32, nil
	}
	if t.IsList() {
		el, err := ArrowType(t.Elem())
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(el), nil
	}
	if t.IsStruct() {
		fs := t.StructFields()
		out := make([]arrow.Field, len(fs))
		for i, f := range fs {
			dt, err := ArrowType(f.Type)
			if err != nil {
				return nil, err
			}
			out[i] = arrow.Field{Name: f.Name, Type: dt, Nullable: true}
		}
		return arrow.StructOf(out...), nil
	}
	return nil, fmt.Errorf("no Arrow type for %s", t)
}

// datetimeType is the Arrow type of a datetime: timestamp[us], no zone.
var datetimeType = &arrow.TimestampType{Unit: arrow.Microsecond}

// PlanType maps an Arrow type back to a plan type. A timestamp must count
// µs and carry no time zone, a duration must count µs (docs/semantics.md,
// Temporal types): dfopt converts no unit and applies no zone.
func PlanType(dt arrow.DataType) (plan.Type, error) {
	switch dt.ID() {
	case arrow.DATE32:
		return plan.Date, nil
	case arrow.TIMESTAMP:
		ts := dt.(*arrow.TimestampType)
		if ts.TimeZone != "" {
			return plan.Invalid, fmt.Errorf("unsupported Arrow type %s: a datetime carries no time zone (this one is in %q)", dt, ts.TimeZone)
		}
		if ts.Unit != arrow.Microsecond {
			return plan.Invalid, fmt.Errorf("unsupported Arrow type %s: a datetime counts microseconds", dt)
		}
		return plan.Datetime, nil
	case arrow.DURATION:
		if dt.(*arrow.DurationType).Unit != arrow.Microsecond {
			return plan.Invalid, fmt.Errorf("unsupported Arrow type %s: a duration counts microseconds", dt)
		}
		return plan.Duration, nil
	case arrow.BOOL:
		return plan.Bool, nil
	case arrow.INT32:
		return plan.Int32, nil
	case arrow.INT64:
		return plan.Int64, nil
	case arrow.FLOAT64:
		return plan.Float64, nil
	case arrow.STRING:
		return plan.String, nil
	case arrow.INT8:
		return plan.Int8, nil
	case arrow.INT16:
		return plan.Int16, nil
	case arrow.UINT8:
		return plan.Uint8, nil
	case arrow.UINT16:
		return plan.Uint16, nil
	case arrow.UINT32:
		return plan.Uint32, nil
	case arrow.UINT64:
		return plan.Uint64, nil
	case arrow.FLOAT32:
		return plan.Float32, nil
	case arrow.LIST:
		el, err := PlanType(dt.(*arrow.ListType).Elem())
		if err != nil {
			return plan.Invalid, fmt.Errorf("list element: %w", err)
		}
		t, err := plan.ListOf(el)
		if err != nil {
			return plan.Invalid, fmt.Errorf("unsupported Arrow type %s: %w", dt, err)
		}
		return t, nil
	case arrow.STRUCT:
		st := dt.(*arrow.StructType)
		fs := make([]plan.StructField, st.NumFields())
		for i, f := range st.Fields() {
			ft, err := PlanType(f.Type)
			if err != nil {
				return plan.Invalid, fmt.Errorf("struct field %q: %w", f.Name, err)
			}
			fs[i] = plan.StructField{Name: f.Name, Type: ft}
		}
		t, err := plan.StructOf(fs...)
		if err != nil {
			return plan.Invalid, fmt.Errorf("unsupported Arrow type %s: %w", dt, err)
		}
		return t, nil
	}
	return plan.Invalid, fmt.Errorf("unsupported Arrow type %s (dfopt has bool, int8..int64, uint8..uint64, float32, float64, string, date32, timestamp[us], duration[us], and lists and structs of them)", dt)
}

// ArrowSchema maps a plan schema to an Arrow schema with the same names,
// types and nullability.
func ArrowSchema(s plan.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, s.Len())
	for i := 0; i < s.Len(); i++ {
		f := s.Field(i)
		dt, err := ArrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		fields[i] = arrow.Field{Name: f.Name, Type: dt, Nullable: f.Nullable}
	}
	return arrow.NewSchema(fields, nil), nil
}

// PlanSchema maps an Arrow schema to a plan schema (metadata is ignored).
func PlanSchema(s *arrow.Schema) (plan.Schema, error) {
	fields := make([]plan.Field, s.NumFields())
	for i, f := range s.Fields() {
		t, err := PlanType(f.Type)
		if err != nil {
			return plan.Schema{}, fmt.Errorf("column %q: %w", f.Name, err)
		}
		fields[i] = plan.Field{Name: f.Name, Type: t, Nullable: f.Nullable}
	}
	return plan.NewSchema(fields...)
}

// ValueAt reads row i of an array as a plan value (floats keep their bits).
func ValueAt(a arrow.Array, i int) (plan.Value, error) {
	t, err := PlanType(a.DataType())
	if err != nil {
		return plan.Value{}, err
	}
	if a.IsNull(i) {
		return plan.NullValue(t), nil
	}
	switch a := a.(type) {
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		child := a.ListValues()
		out := make([]plan.Value, 0, hi-lo)
		for k := lo; k < hi; k++ {
			v, err := ValueAt(child, int(k))
			if err != nil {
				return plan.Value{}, err
			}
			out = append(out, v)
		}
		return plan.ListValue(t, out), nil
	case *array.Struct:
		out := make([]plan.Value, a.NumField())
		for f := range out {
			v, err := ValueAt(a.Field(f), i)
			if err != nil {
				return plan.Value{}, err
			}
			out[f] = v
		}
		return plan.StructValue(t, out), nil
	case *array.Boolean:
		return plan.BoolValue(a.Value(i)), nil
	case *array.Int32:
		return plan.Int32Value(a.Value(i)), nil
	case *array.Int64:
		return plan.Int64Value(a.Value(i)), nil
	case *array.Float64:
		return plan.Float64Value(a.Value(i)), nil
	case *array.String:
		return plan.StringValue(a.Value(i)), nil
	case *array.Date32:
		return plan.DateValue(int32(a.Value(i))), nil
	case *array.Timestamp:
		return plan.DatetimeValue(int64(a.Value(i))), nil
	case *array.Duration:
		return plan.DurationValue(int64(a.Value(i))), nil
	case *array.Int8:
		return plan.Int8Value(a.Value(i)), nil
	case *array.Int16:
		return plan.Int16Value(a.Value(i)), nil
	case *array.Uint8:
		return plan.Uint8Value(a.Value(i)), nil
	case *array.Uint16:
		return plan.Uint16Value(a.Value(i)), nil
	case *array.Uint32:
		return plan.Uint32Value(a.Value(i)), nil
	case *array.Uint64:
		return plan.Uint64Value(a.Value(i)), nil
	case *array.Float32:
		return plan.Float32Value(a.Value(i)), nil
	}
	return plan.Value{}, fmt.Errorf("unsupported array %T", a)
}

// ArrayFromValues builds an array of type t from plan values (which must all
// have type t).
func ArrayFromValues(mem memory.Allocator, t plan.Type, vals []plan.Value) (arrow.Array, error) {
	dt, err := ArrowType(t)
	if err != nil {
		return nil, err
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(len(vals))
	for i, v := range vals {
		if v.Type() != t {
			return nil, fmt.Errorf("row %d: a %s value in a %s column", i, v.Type(), t)
		}
		appendValue(b, v)
	}
	return b.NewArray(), nil
}

// appendValue appends a value of the builder's type, or a null.
func appendValue(b array.Builder, v plan.Value) {
	if v.IsNull() {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.ListBuilder:
		b.Append(true)
		for _, e := range v.Elems() {
			appendValue(b.ValueBuilder(), e)
		}
	case *array.StructBuilder:
		b.Append(true)
		for f, e := range v.Elems() {
			appendValue(b.FieldBuilder(f), e)
		}
	case *array.BooleanBuilder:
		b.Append(v.Bool())
	case *array.Int32Builder:
		b.Append(int32(v.Int()))
	case *array.Int64Builder:
		b.Append(v.Int())
	case *array.Float64Builder:
		b.Append(v.Float())
	case *array.StringBuilder:
		b.Append(v.Str())
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.Int()))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.Int()))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(v.Int()))
	case *array.Int8Builder:
		b.Append(int8(v.Int()))
	case *array.Int16Builder:
		b.Append(int16(v.Int()))
	case *array.Uint8Builder:
		b.Append(uint8(v.Uint()))
	case *array.Uint16Builder:
		b.Append(uint16(v.Uint()))
	case *array.Uint32Builder:
		b.Append(uint32(v.Uint()))
	case *array.Uint64Builder:
		b.Append(v.Uint())
	case *array.Float32Builder:
		b.Append(v.Float32())
	}
}

// Int32Values returns the values of an int32 or date32 array as []int32
// (the same memory, no copy), and false for any other array: a date is
// its int32 for every kernel that compares, hashes or moves values.
func Int32Values(a arrow.Array) ([]int32, bool) { return phys.Int32(a) }

// Int64Values returns the values of an int64, timestamp or duration array
// as []int64 (the same memory, no copy), and false for any other array.
func Int64Values(a arrow.Array) ([]int64, bool) { return phys.Int64(a) }

// TableRecord converts an in-memory plan table into an Arrow record batch.
func TableRecord(mem memory.Allocator, t *plan.Table) (arrow.RecordBatch, error) {
	schema, err := ArrowSchema(t.Schema())
	if err != nil {
		return nil, fmt.Errorf("table %q: %w", t.Name(), err)
	}
	cols := make([]arrow.Array, t.Schema().Len())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		if cols[i], err = ArrayFromValues(mem, t.Schema().Field(i).Type, t.Column(i)); err != nil {
			return nil, fmt.Errorf("table %q column %q: %w", t.Name(), t.Schema().Field(i).Name, err)
		}
	}
	return array.NewRecordBatch(schema, cols, int64(t.Rows())), nil
}
