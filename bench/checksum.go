package bench

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ColumnSum is the checksum of one numeric result column: the sum of its
// non-null values and its null count.
//
// Integer sums are exact (128-bit accumulation, printed as an integer).
// Float sums are correctly rounded (Shewchuk's exact partials, as Python's
// math.fsum), so they do not depend on the order of the rows: the same
// multiset of values always gives the same bits, whichever engine or plan
// produced it.
type ColumnSum struct {
	Name  string
	Float bool
	// Int is the exact sum of an integer column.
	Int *big.Int
	// Sum is the correctly rounded sum of a float column.
	Sum   float64
	Nulls int64
}

// String renders the sum as name=value: integers in decimal, floats in Go's
// shortest round-trip form (so equal strings mean equal bits).
func (c ColumnSum) String() string {
	v := ""
	if c.Float {
		v = strconv.FormatFloat(c.Sum, 'g', -1, 64)
	} else {
		v = c.Int.String()
	}
	if c.Nulls > 0 {
		return fmt.Sprintf("sum(%s)=%s nulls(%s)=%d", c.Name, v, c.Name, c.Nulls)
	}
	return fmt.Sprintf("sum(%s)=%s", c.Name, v)
}

// Checksum is the per-column sums of a result's numeric columns, in column
// order; string and bool columns are not summed.
type Checksum []ColumnSum

// String joins the column sums with spaces.
func (c Checksum) String() string {
	parts := make([]string, len(c))
	for i, s := range c {
		parts[i] = s.String()
	}
	return strings.Join(parts, " ")
}

// ChecksumRecord sums the numeric columns of rec, and its date columns
// as day numbers (days since 1970-01-01), as the TPC-H results hold dates.
func ChecksumRecord(rec arrow.RecordBatch) (Checksum, error) {
	var out Checksum
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		switch a := col.(type) {
		case *array.Int64:
			var acc int128
			for j := 0; j < a.Len(); j++ {
				if a.IsValid(j) {
					acc.add(a.Value(j))
				}
			}
			out = append(out, ColumnSum{Name: f.Name, Int: acc.big(), Nulls: int64(a.NullN())})
		case *array.Int32:
			var acc int128
			for j := 0; j < a.Len(); j++ {
				if a.IsValid(j) {
					acc.add(int64(a.Value(j)))
				}
			}
			out = append(out, ColumnSum{Name: f.Name, Int: acc.big(), Nulls: int64(a.NullN())})
		case *array.Date32:
			var acc int128
			for j := 0; j < a.Len(); j++ {
				if a.IsValid(j) {
					acc.add(int64(a.Value(j)))
				}
			}
			out = append(out, ColumnSum{Name: f.Name, Int: acc.big(), Nulls: int64(a.NullN())})
		case *array.Float64:
			var acc fsum
			for j := 0; j < a.Len(); j++ {
				if a.IsValid(j) {
					acc.add(a.Value(j))
				}
			}
			out = append(out, ColumnSum{Name: f.Name, Float: true, Sum: acc.result(), Nulls: int64(a.NullN())})
		case *array.String, *array.Boolean:
		default:
			return nil, fmt.Errorf("checksum: column %q has unsupported type %s", f.Name, col.DataType())
		}
	}
	return out, nil
}

// int128 is a two's-complement 128-bit accumulator: 2^64 int64 values
// cannot overflow it.
type int128 struct{ hi, lo uint64 }

func (a *int128) add(v int64) {
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, uint64(v), 0)
	ext := uint64(0)
	if v < 0 {
		ext = math.MaxUint64
	}
	a.hi, _ = bits.Add64(a.hi, ext, carry)
}

func (a int128) big() *big.Int {
	neg := int64(a.hi) < 0
	hi, lo := a.hi, a.lo
	if neg { // negate: two's complement
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	z := new(big.Int).SetUint64(hi)
	z.Lsh(z, 64)
	z.Or(z, new(big.Int).SetUint64(lo))
	if neg {
		z.Neg(z)
	}
	return z
}

// fsum is Shewchuk's exact summation with non-overlapping partials
// (the algorithm of Python's math.fsum): the result is the exact sum of the
// inputs rounded once, so it is independent of their order. Non-finite
// inputs are summed apart (any NaN, or +Inf with -Inf, gives NaN), and so is
// an intermediate overflow, which then yields the matching infinity.
type fsum struct {
	partials []float64
	special  float64 // sum of non-finite inputs
	overflow float64 // ±Inf once a finite partial sum overflowed
}

func (s *fsum) add(x float64) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		s.special += x
		return
	}
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		if math.IsInf(hi, 0) {
			s.overflow += hi
			return
		}
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	s.partials = append(s.partials[:i], x)
}

// result rounds the partials to the nearest float64 (ties to even), as
// math.fsum does.
func (s *fsum) result() float64 {
	if s.special != 0 || math.IsNaN(s.special) {
		return s.special + s.overflow
	}
	if s.overflow != 0 {
		return s.overflow
	}
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi := p[n]
	lo := 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		yr := hi - x
		lo = y - yr
		if lo != 0 {
			break
		}
	}
	// Round half to even: if the rest of the partials push lo the same way,
	// correct hi.
	if n > 0 && ((lo < 0 && p[n-1] < 0) || (lo > 0 && p[n-1] > 0)) {
		y := lo * 2
		x := hi + y
		yr := x - hi
		if y == yr {
			hi = x
		}
	}
	return hi
}
