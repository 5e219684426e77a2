// Package phys reads the temporal Arrow arrays dfopt uses (date32,
// timestamp[us], duration[us]) as the integers underneath them, so every
// kernel that compares, hashes, sorts or moves int32 and int64 values
// serves dates, datetimes and durations unchanged (docs/semantics.md,
// Temporal types: they compare as their integers).
package phys

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Int32 returns the values of an int32 or date32 array as []int32 (the
// same memory, no copy), and false for any other array.
func Int32(a arrow.Array) ([]int32, bool) {
	switch a := a.(type) {
	case *array.Int32:
		return a.Int32Values(), true
	case *array.Date32:
		v := a.Date32Values()
		return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
	}
	return nil, false
}

// Int64 returns the values of an int64, timestamp or duration array as
// []int64 (the same memory, no copy), and false for any other array.
func Int64(a arrow.Array) ([]int64, bool) {
	switch a := a.(type) {
	case *array.Int64:
		return a.Int64Values(), true
	case *array.Timestamp:
		v := a.TimestampValues()
		return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
	case *array.Duration:
		v := a.DurationValues()
		return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
	}
	return nil, false
}

// IsTemporal reports whether a is a date32, timestamp or duration array.
func IsTemporal(a arrow.Array) bool {
	switch a.DataType().ID() {
	case arrow.DATE32, arrow.TIMESTAMP, arrow.DURATION:
		return true
	}
	return false
}

// View returns a temporal array as the int32 (date32) or int64 array
// sharing its buffers, and any other array as it is; either way the
// caller releases the result. Read-only kernels (keys, sort words,
// facts) switch over the view's type.
func View(a arrow.Array) arrow.Array {
	var dt arrow.DataType
	switch a.DataType().ID() {
	case arrow.DATE32:
		dt = arrow.PrimitiveTypes.Int32
	case arrow.TIMESTAMP, arrow.DURATION:
		dt = arrow.PrimitiveTypes.Int64
	default:
		a.Retain()
		return a
	}
	d := a.Data()
	data := array.NewData(dt, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer data.Release()
	return array.MakeFromData(data)
}

// Retype returns a new array of type dt over a's buffers (a fixed-width
// array of the same width, such as an int64 array read back as a
// duration[us] one); the caller releases both.
func Retype(a arrow.Array, dt arrow.DataType) arrow.Array {
	d := a.Data()
	data := array.NewData(dt, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer data.Release()
	return array.MakeFromData(data)
}
