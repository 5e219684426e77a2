package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// UDF declares a user-defined scalar function. The optimizer relies only on
// the declarations (Total, Deterministic); the evaluator calls Fn once per
// row, in row order, so that a host can write a UDF without Arrow.
type UDF struct {
	// Name is the function's name in plans and in canonical text; it must
	// not collide with a built-in function.
	Name string
	// Params are the argument types; a call's arguments must resolve to
	// exactly these (no implicit promotion).
	Params []Type
	// Result is the return type. Results are always nullable.
	Result Type
	// Total declares that Fn never returns an error. The bounded tier
	// trusts this declaration.
	Total bool
	// Deterministic declares that Fn returns the same value for the same
	// arguments within and across evaluations.
	Deterministic bool
	// Fn computes one row. A null argument is passed as a null Value; the
	// function decides what that means. ctx carries the per-collect state
	// (see CallCount).
	Fn func(ctx context.Context, args []Value) (Value, error)
}

// UDFRegistry maps names to UDFs. A plan file's {"udf": NAME} resolves through
// one; hosts build their own or add to a copy of BuiltinUDFs.
type UDFRegistry struct {
	mu   sync.RWMutex
	udfs map[string]*UDF
}

// NewUDFRegistry returns a registry holding the given UDFs.
func NewUDFRegistry(udfs ...*UDF) (*UDFRegistry, error) {
	r := &UDFRegistry{udfs: map[string]*UDF{}}
	for _, u := range udfs {
		if err := r.Register(u); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds u, rejecting unnamed, incomplete and duplicate UDFs, invalid
// parameter or result types, and names that shadow a built-in function or
// would make canonical text ambiguous (a UDF named int32 or cast would print
// like an int32 literal or a cast).
func (r *UDFRegistry) Register(u *UDF) error {
	switch {
	case u == nil || u.Name == "":
		return fmt.Errorf("register udf: missing name")
	case u.Fn == nil:
		return fmt.Errorf("register udf %q: missing Fn", u.Name)
	case u.Result == Invalid || int(u.Result) >= len(typeNames):
		return fmt.Errorf("register udf %q: missing result type", u.Name)
	}
	for i, t := range u.Params {
		if t == Invalid || int(t) >= len(typeNames) {
			return fmt.Errorf("register udf %q: parameter %d has an invalid type", u.Name, i+1)
		}
	}
	_, builtin := ParseFunc(u.Name)
	_, typeName := ParseType(u.Name)
	if builtin || typeName || u.Name == "cast" || !isIdent(u.Name) {
		return fmt.Errorf("register udf %q: the name is a built-in function, a type or cast, or not an identifier", u.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.udfs[u.Name]; dup {
		return fmt.Errorf("register udf %q: already registered", u.Name)
	}
	r.udfs[u.Name] = u
	return nil
}

// Lookup returns the named UDF.
func (r *UDFRegistry) Lookup(name string) (*UDF, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	u, ok := r.udfs[name]
	return u, ok
}

// Names returns the registered names, sorted.
func (r *UDFRegistry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.udfs))
}

type callCountsKey struct{}

// callCounts is the per-evaluation state of non-deterministic UDFs.
type callCounts struct{ n atomic.Int64 }

// WithCallCounter returns a context carrying a fresh per-evaluation call
// counter. The executor starts one per collect and the eager chain one per
// evaluation, so a non-deterministic UDF such as nd_seq behaves the same way
// in both as long as rows are evaluated in the same order.
func WithCallCounter(ctx context.Context) context.Context {
	return context.WithValue(ctx, callCountsKey{}, &callCounts{})
}

// CallCount returns the next value of the context's call counter (0, 1, 2,
// ...), or -1 when the context carries none.
func CallCount(ctx context.Context) int64 {
	c, ok := ctx.Value(callCountsKey{}).(*callCounts)
	if !ok {
		return -1
	}
	return c.n.Add(1) - 1
}

// BuiltinUDFs returns a registry with the UDFs the examples, tests and
// generators use; each exercises one declaration:
//   - inc_wrap(int64) int64: x+1 with wraparound; total and deterministic.
//   - checked_double(int64) int64: 2x, a udf_error on overflow; partial.
//   - nd_seq(int64) int64: x plus the per-evaluation call counter;
//     non-deterministic (and declared partial, so nothing moves past it).
//   - nd_tick(int64) int64: the same, but declared total (it cannot fail,
//     like a host's rand()): non-determinism alone must keep it in place,
//     since totality no longer does.
func BuiltinUDFs() *UDFRegistry {
	// x plus the call counter: nd_seq and nd_tick compute the same thing
	// and differ only in what they declare.
	plusCounter := func(ctx context.Context, args []Value) (Value, error) {
		n := CallCount(ctx)
		if args[0].IsNull() {
			return NullValue(Int64), nil
		}
		return Int64Value(args[0].Int() + n), nil
	}
	r, err := NewUDFRegistry(
		&UDF{Name: "inc_wrap", Params: []Type{Int64}, Result: Int64, Total: true, Deterministic: true,
			Fn: func(_ context.Context, args []Value) (Value, error) {
				if args[0].IsNull() {
					return NullValue(Int64), nil
				}
				return Int64Value(args[0].Int() + 1), nil
			}},
		&UDF{Name: "checked_double", Params: []Type{Int64}, Result: Int64, Deterministic: true,
			Fn: func(_ context.Context, args []Value) (Value, error) {
				if args[0].IsNull() {
					return NullValue(Int64), nil
				}
				x := args[0].Int()
				if x > 1<<62-1 || x < -(1<<62) {
					return Value{}, fmt.Errorf("checked_double: %d doubled overflows int64", x)
				}
				return Int64Value(2 * x), nil
			}},
		&UDF{Name: "nd_seq", Params: []Type{Int64}, Result: Int64, Fn: plusCounter},
		&UDF{Name: "nd_tick", Params: []Type{Int64}, Result: Int64, Total: true, Fn: plusCounter},
	)
	if err != nil {
		panic(err) // the built-in set is fixed; a failure here is a programming error
	}
	return r
}
