// Package nest gathers rows of list and struct arrays (docs/semantics.md,
// Lists and structs) for the kernel and the operators alike: the take
// behind filters, sorts, joins and if() branches, with -1 meaning a null
// row as in ops.Take.
package nest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IsNested reports whether a is a list or struct array.
func IsNested(a arrow.Array) bool {
	switch a.(type) {
	case *array.List, *array.Struct:
		return true
	}
	return false
}

// Take gathers rows of a list, struct or scalar array by index: out[j] =
// a[idx[j]], and idx[j] == -1 gives a null row. Any other index outside
// [0, a.Len()) is an error.
func Take(mem memory.Allocator, a arrow.Array, idx []int32) (arrow.Array, error) {
	n := a.Len()
	for j, i := range idx {
		if i < -1 || int(i) >= n {
			return nil, fmt.Errorf("take: index %d at position %d is out of range for %d rows", i, j, n)
		}
	}
	switch a := a.(type) {
	case *array.List:
		return takeList(mem, a, idx)
	case *array.Struct:
		return takeStruct(mem, a, idx)
	}
	return takeScalar(mem, a, idx)
}

// validity builds the validity bitmap of a gather (nil when every row is
// valid) and its null count.
func validity(mem memory.Allocator, a arrow.Array, idx []int32) (*memory.Buffer, int) {
	nulls := 0
	for _, i := range idx {
		if i < 0 || a.IsNull(int(i)) {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bm := buf.Bytes()
	for j := range bm {
		bm[j] = 0
	}
	for j, i := range idx {
		if i >= 0 && a.IsValid(int(i)) {
			bitutil.SetBit(bm, j)
		}
	}
	return buf, nulls
}

func takeList(mem memory.Allocator, a *array.List, idx []int32) (arrow.Array, error) {
	child := a.ListValues()
	obuf := memory.NewResizableBuffer(mem)
	defer obuf.Release()
	obuf.Resize(arrow.Int32Traits.BytesRequired(len(idx) + 1))
	out := arrow.Int32Traits.CastFromBytes(obuf.Bytes())
	var cidx []int32
	out[0] = 0
	for j, i := range idx {
		if i >= 0 && a.IsValid(int(i)) {
			lo, hi := a.ValueOffsets(int(i)) // absolute into the child
			for k := lo; k < hi; k++ {
				cidx = append(cidx, int32(k))
			}
		}
		out[j+1] = int32(len(cidx))
	}
	nc, err := takeScalar(mem, child, cidx)
	if err != nil {
		return nil, err
	}
	defer nc.Release()
	vbuf, nulls := validity(mem, a, idx)
	if vbuf != nil {
		defer vbuf.Release()
	}
	d := array.NewData(a.DataType(), len(idx), []*memory.Buffer{vbuf, obuf}, []arrow.ArrayData{nc.Data()}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

func takeStruct(mem memory.Allocator, a *array.Struct, idx []int32) (arrow.Array, error) {
	// A null row's fields are null too, so struct.field and a reader that
	// ignores the struct's own validity agree.
	fidx := make([]int32, len(idx))
	for j, i := range idx {
		fidx[j] = i
		if i >= 0 && a.IsNull(int(i)) {
			fidx[j] = -1
		}
	}
	kids := make([]arrow.ArrayData, a.NumField())
	for f := range kids {
		c, err := takeScalar(mem, a.Field(f), fidx)
		if err != nil {
			for _, k := range kids[:f] {
				k.Release()
			}
			return nil, err
		}
		kids[f] = c.Data()
		kids[f].Retain()
		c.Release()
	}
	vbuf, nulls := validity(mem, a, idx)
	if vbuf != nil {
		defer vbuf.Release()
	}
	d := array.NewData(a.DataType(), len(idx), []*memory.Buffer{vbuf}, kids, nulls, 0)
	for _, k := range kids {
		k.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// takeScalar gathers a scalar-typed array (the child of a list or a
// struct field) with -1 meaning null.
func takeScalar(mem memory.Allocator, a arrow.Array, idx []int32) (arrow.Array, error) {
	b := array.NewBuilder(mem, a.DataType())
	defer b.Release()
	b.Reserve(len(idx))
	for _, i := range idx {
		if i < 0 || a.IsNull(int(i)) {
			b.AppendNull()
			continue
		}
		if err := AppendFrom(b, a, int(i)); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// AppendFrom appends the valid row i of a scalar-typed array to a builder
// of the same type (floats keep their bits).
func AppendFrom(b array.Builder, a arrow.Array, i int) error {
	switch a := a.(type) {
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(a.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(a.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(a.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(a.Value(i))
	case *array.String:
		b.(*array.StringBuilder).Append(a.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(a.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(a.Value(i))
	case *array.Duration:
		b.(*array.DurationBuilder).Append(a.Value(i))
	case *array.Int8:
		b.(*array.Int8Builder).Append(a.Value(i))
	case *array.Int16:
		b.(*array.Int16Builder).Append(a.Value(i))
	case *array.Uint8:
		b.(*array.Uint8Builder).Append(a.Value(i))
	case *array.Uint16:
		b.(*array.Uint16Builder).Append(a.Value(i))
	case *array.Uint32:
		b.(*array.Uint32Builder).Append(a.Value(i))
	case *array.Uint64:
		b.(*array.Uint64Builder).Append(a.Value(i))
	case *array.Float32:
		b.(*array.Float32Builder).Append(a.Value(i))
	default:
		return fmt.Errorf("take: unsupported element array %s", a.DataType())
	}
	return nil
}
