package ops

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// keyCase is one table of key columns with sort flags and a k for TopK.
type keyCase struct {
	keys      []tcol
	desc      []bool
	nullsLast []bool
	k         int
}

// rows is the case's row count.
func (c keyCase) rows() int {
	if len(c.keys) == 0 {
		return 0
	}
	return len(c.keys[0].vals)
}

// String renders the case for a failure report.
func (c keyCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rows=%d desc=%v nullsLast=%v k=%d", c.rows(), c.desc, c.nullsLast, c.k)
	for _, k := range c.keys {
		if c.rows() <= 64 {
			b.WriteString("\n  " + k.String())
		} else {
			b.WriteString("\n  " + k.dt.String() + "[...]")
		}
	}
	return b.String()
}

// pick keeps the listed rows.
func (c keyCase) pick(rows []int) keyCase {
	out := c
	out.keys = make([]tcol, len(c.keys))
	for i, k := range c.keys {
		out.keys[i] = k.pick(rows)
	}
	out.k = min(c.k, len(rows))
	return out
}

// arrays builds the key columns.
func (c keyCase) arrays(t testing.TB, mem memory.Allocator) []arrow.Array {
	out := make([]arrow.Array, len(c.keys))
	for i, k := range c.keys {
		out[i] = k.array(t, mem)
	}
	return out
}

// shrinkRows proposes smaller row sets: each half, then (for small inputs)
// every single row removed.
func shrinkRows(n int, rebuild func(rows []int) any) gopter.Shrink {
	var cands [][]int
	span := func(lo, hi int) []int {
		r := make([]int, 0, hi-lo)
		for i := lo; i < hi; i++ {
			r = append(r, i)
		}
		return r
	}
	if n > 1 {
		cands = append(cands, span(0, n/2), span(n/2, n))
	}
	if n <= 40 {
		for drop := 0; drop < n; drop++ {
			cands = append(cands, append(span(0, drop), span(drop+1, n)...))
		}
	}
	i := 0
	return func() (any, bool) {
		if i >= len(cands) {
			return nil, false
		}
		i++
		return rebuild(cands[i-1]), true
	}
}

// genKeyCase draws 1–3 key columns of random types.
func genKeyCase(maxKeys int) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		n := genRows(p)
		nk := 1 + rng.Intn(maxKeys)
		c := keyCase{desc: make([]bool, nk), nullsLast: make([]bool, nk)}
		for i := 0; i < nk; i++ {
			dt := keyTypes[rng.Intn(len(keyTypes))]
			nullP := []float64{0, 0, 0.15, 0.5, 1}[rng.Intn(5)]
			c.keys = append(c.keys, genCol(rng, dt, n, nullP, 1+rng.Intn(len(poolOf(dt)))))
			c.desc[i] = rng.Intn(2) == 0
			c.nullsLast[i] = rng.Intn(2) == 0
		}
		switch rng.Intn(3) {
		case 0:
			c.k = rng.Intn(n + 3)
		default:
			c.k = rng.Intn(n/10 + 2)
		}
		var shrink gopter.Shrinker = func(v any) gopter.Shrink {
			kc := v.(keyCase)
			return shrinkRows(kc.rows(), func(rows []int) any { return kc.pick(rows) })
		}
		return gopter.NewGenResult(c, shrink)
	}
}

// refSortIndices is the reference stable sort.
func refSortIndices(c keyCase) []int32 {
	idx := make([]int32, c.rows())
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(x, y int) bool {
		a, b := idx[x], idx[y]
		for k, col := range c.keys {
			va, vb := col.vals[a], col.vals[b]
			if va == nil || vb == nil {
				if va == nil && vb == nil {
					continue
				}
				// A null sorts first unless nulls_last, whatever desc says.
				return (va == nil) != c.nullsLast[k]
			}
			r := refCmp(va, vb)
			if c.desc[k] {
				r = -r
			}
			if r != 0 {
				return r < 0
			}
		}
		return false
	})
	return idx
}

func TestPropSort(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 400))
	props.Property("SortIndices and SortIndicesLazy are the reference stable sort; TopK is its prefix", prop.ForAll(
		func(c keyCase) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			keys := c.arrays(t, mem)
			defer releaseAll(keys)
			got, err := SortIndices(keys, c.desc, c.nullsLast)
			if err != nil {
				return err.Error()
			}
			want := refSortIndices(c)
			if !slices.Equal(got, want) {
				return fmt.Sprintf("sort: got %v\nwant %v", head(got), head(want))
			}
			lazy, loaded, err := sortLazily(keys, c.desc, c.nullsLast)
			if err != nil {
				return err.Error()
			}
			if !slices.Equal(lazy, want) || loaded != neededKeys(c) {
				return fmt.Sprintf("lazy keys: got %v (%d keys loaded, %d needed)\nwant %v", head(lazy), loaded, neededKeys(c), head(want))
			}
			top, err := TopK(keys, c.desc, c.nullsLast, c.k)
			if err != nil {
				return err.Error()
			}
			if w := want[:min(c.k, len(want))]; !slices.Equal(top, w) {
				return fmt.Sprintf("top-%d: got %v\nwant %v", c.k, head(top), head(w))
			}
			return ""
		}, genKeyCase(3)))
	props.TestingRun(t)
}

// head shortens long index lists in messages.
func head(x []int32) []int32 {
	if len(x) > 40 {
		return x[:40]
	}
	return x
}

// refGroupIDs is the reference grouping: a map from the key string.
func refGroupIDs(cols []tcol, n int) (ids, first []int32) {
	seen := map[string]int32{}
	ids = make([]int32, n)
	for i := 0; i < n; i++ {
		k := refKey(cols, i)
		g, ok := seen[k]
		if !ok {
			g = int32(len(seen))
			seen[k] = g
			first = append(first, int32(i))
		}
		ids[i] = g
	}
	return ids, first
}

func TestPropGroupIDs(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 400))
	props.Property("GroupIDs partitions rows by key equality in first-appearance order", prop.ForAll(
		func(c keyCase) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			keys := c.arrays(t, mem)
			defer releaseAll(keys)
			ids, first, err := GroupIDs(keys)
			if err != nil {
				return err.Error()
			}
			wantIDs, wantFirst := refGroupIDs(c.keys, c.rows())
			if !slices.Equal(ids, wantIDs) || !slices.Equal(first, wantFirst) {
				return fmt.Sprintf("got ids %v first %v\nwant %v %v", head(ids), head(first), head(wantIDs), head(wantFirst))
			}
			return ""
		}, genKeyCase(3)))
	props.TestingRun(t)
}

// aggCase is a grouping key and an aggregate argument.
type aggCase struct {
	key tcol
	arg tcol
}

// String renders the case.
func (c aggCase) String() string { return "key " + c.key.String() + "\narg " + c.arg.String() }

func genAggCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		n := genRows(p)
		kt := keyTypes[rng.Intn(len(keyTypes))]
		at := keyTypes[rng.Intn(len(keyTypes))]
		c := aggCase{
			key: genCol(rng, kt, n, 0.1, 1+rng.Intn(4)),
			arg: genCol(rng, at, n, []float64{0, 0.2, 1}[rng.Intn(3)], 1+rng.Intn(len(poolOf(at)))),
		}
		var shrink gopter.Shrinker = func(v any) gopter.Shrink {
			ac := v.(aggCase)
			return shrinkRows(len(ac.key.vals), func(rows []int) any {
				return aggCase{key: ac.key.pick(rows), arg: ac.arg.pick(rows)}
			})
		}
		return gopter.NewGenResult(c, shrink)
	}
}

// refAggregate computes an aggregate per group over Go values; it returns
// the expected cells (in cellsOf form) or the overflow row.
func refAggregate(fn plan.Func, arg tcol, ids []int32, groups int) (cells []any, overflowRow int) {
	cells = make([]any, groups)
	// Integer sums are exact (big.Int): the first group, in group order,
	// whose total leaves int64 fails, at its first row, whatever the order
	// of its rows.
	intSums := make([]int64, groups)
	if fn == plan.FuncSum && arg.dt.ID() != arrow.FLOAT64 {
		exact := make([]big.Int, groups)
		for i, g := range ids {
			if arg.vals[i] != nil {
				exact[g].Add(&exact[g], big.NewInt(toInt64(arg.vals[i])))
			}
		}
		for g := range exact {
			if !exact[g].IsInt64() {
				return nil, slices.Index(ids, int32(g))
			}
			intSums[g] = exact[g].Int64()
		}
	}
	for g := 0; g < groups; g++ {
		var vals []any
		var rows []int
		for i, id := range ids {
			if int(id) == g {
				rows = append(rows, i)
				if arg.vals[i] != nil {
					vals = append(vals, arg.vals[i])
				}
			}
		}
		switch fn {
		case plan.FuncLen:
			cells[g] = int64(len(rows))
		case plan.FuncCount:
			cells[g] = int64(len(vals))
		case plan.FuncAny, plan.FuncAll:
			res := fn == plan.FuncAll
			for _, v := range vals {
				if v.(bool) != res {
					res = !res
					break
				}
			}
			cells[g] = res
		case plan.FuncMedian, plan.FuncQuantile:
			if len(vals) > 0 {
				cells[g] = fb(refMedian(vals))
			}
		case plan.FuncVar, plan.FuncStd:
			if len(vals) > 1 {
				cells[g] = fb(refVar(vals, fn == plan.FuncStd))
			}
		case plan.FuncNUnique:
			distinct := map[any]bool{}
			for _, r := range rows {
				distinct[keyOf(arg.vals[r])] = true
			}
			cells[g] = int64(len(distinct))
		case plan.FuncFirst, plan.FuncLast:
			if len(rows) > 0 {
				r := rows[0]
				if fn == plan.FuncLast {
					r = rows[len(rows)-1]
				}
				cells[g] = expectCells(arg.dt, arg.vals[r])[0]
			}
		case plan.FuncMin, plan.FuncMax:
			var best any
			for _, v := range vals {
				if best == nil {
					best = v
					continue
				}
				r := refCmp(v, best)
				if (fn == plan.FuncMin && r < 0) || (fn == plan.FuncMax && r > 0) {
					best = v
				}
			}
			cells[g] = expectCells(arg.dt, best)[0]
		case plan.FuncSum:
			if len(vals) == 0 {
				continue
			}
			if arg.dt.ID() == arrow.FLOAT64 {
				s := vals[0].(float64)
				for _, v := range vals[1:] {
					s = refAdd(s, v.(float64))
				}
				cells[g] = fb(s)
				continue
			}
			cells[g] = intSums[g]
		case plan.FuncMean:
			if len(vals) == 0 {
				continue
			}
			s := toFloat(vals[0])
			for _, v := range vals[1:] {
				s = refAdd(s, toFloat(v))
			}
			cells[g] = fb(s / float64(len(vals)))
		}
	}
	return cells, -1
}

// keyOf maps a value to one comparable key per value that group keys
// call equal: every NaN one key, -0.0 and +0.0 one key, nil one key.
func keyOf(v any) any {
	if f, ok := v.(float64); ok {
		switch {
		case f != f:
			return "NaN"
		case f == 0:
			return 0.0
		}
	}
	return v
}

func toInt64(v any) int64 {
	if x, ok := v.(int32); ok {
		return int64(x)
	}
	return v.(int64)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v.(float64)
}

func TestPropAggregate(t *testing.T) {
	fns := allAggs
	props := gopter.NewProperties(propParams(t, 300))
	props.Property("Aggregate equals the per-group reference, bitwise", prop.ForAll(
		func(c aggCase) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			if msg := checkAggCase(t, mem, c, fns); msg != "" {
				return msg
			}
			if mem.CurrentAlloc() != 0 {
				return fmt.Sprintf("leaked %d bytes", mem.CurrentAlloc())
			}
			return ""
		}, genAggCase()))
	props.TestingRun(t)
}

// checkAggCase runs every aggregate over one case against the reference.
func checkAggCase(t *testing.T, mem memory.Allocator, c aggCase, fns []plan.Func) string {
	key := c.key.array(t, mem)
	defer key.Release()
	arg := c.arg.array(t, mem)
	defer arg.Release()
	ids, first, err := GroupIDs([]arrow.Array{key})
	if err != nil {
		return err.Error()
	}
	for _, fn := range fns {
		if !takes(fn, c.arg.dt) {
			continue
		}
		want, ovf := refAggregate(fn, c.arg, ids, len(first))
		out, err := Aggregate(mem, Plain(fn), "agg", arg, ids, len(first))
		if ovf >= 0 {
			pe, ok := plan.AsError(err)
			if !ok || pe.Kind != plan.Overflow || pe.Row != int64(ovf) {
				if out != nil {
					out.Release()
				}
				return fmt.Sprintf("%s: err %v, want overflow at row %d", fn, err, ovf)
			}
			continue
		}
		if err != nil {
			return fmt.Sprintf("%s: %v", fn, err)
		}
		got := cellsOf(out)
		out.Release()
		if !slices.Equal(got, want) {
			return fmt.Sprintf("%s: got %v\nwant %v", fn, got, want)
		}
	}
	return ""
}

// joinCase is a pair of key tables.
type joinCase struct {
	left, right []tcol
}

// String renders the case.
func (c joinCase) String() string {
	var b strings.Builder
	for _, k := range c.left {
		b.WriteString("\n  left  " + k.String())
	}
	for _, k := range c.right {
		b.WriteString("\n  right " + k.String())
	}
	return b.String()
}

// joinTypePairs are the key type pairs that compare.
var joinTypePairs = [][2]arrow.DataType{
	{tI64, tI64}, {tI32, tI64}, {tI64, tI32}, {tI32, tI32}, {tF64, tF64},
	{tI64, tF64}, {tF64, tI32}, {tStr, tStr}, {tBool, tBool},
}

func genJoinCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		nl, nr := rng.Intn(p.MaxSize/2+1), rng.Intn(p.MaxSize/2+1)
		if rng.Intn(10) == 0 {
			nl = 300 + rng.Intn(300)
		}
		nk := 1 + rng.Intn(3)
		var c joinCase
		for k := 0; k < nk; k++ {
			tp := joinTypePairs[rng.Intn(len(joinTypePairs))]
			nullP := []float64{0, 0.1, 0.4}[rng.Intn(3)]
			dom := 2 + rng.Intn(6)
			c.left = append(c.left, genCol(rng, tp[0], nl, nullP, dom))
			c.right = append(c.right, genCol(rng, tp[1], nr, nullP, dom))
		}
		var shrink gopter.Shrinker = func(v any) gopter.Shrink {
			jc := v.(joinCase)
			pickAll := func(cols []tcol, rows []int) []tcol {
				out := make([]tcol, len(cols))
				for i, col := range cols {
					out[i] = col.pick(rows)
				}
				return out
			}
			return shrinkRows(len(jc.left[0].vals), func(rows []int) any {
				return joinCase{left: pickAll(jc.left, rows), right: jc.right}
			}).Interleave(shrinkRows(len(jc.right[0].vals), func(rows []int) any {
				return joinCase{left: jc.left, right: pickAll(jc.right, rows)}
			}))
		}
		return gopter.NewGenResult(c, shrink)
	}
}

// refJoin is the nested-loop reference of every join kind's output order.
func refJoin(kind plan.JoinKind, c joinCase) (li, ri []int32) {
	nl, nr := len(c.left[0].vals), len(c.right[0].vals)
	match := func(l, r int) bool {
		for k := range c.left {
			if !refJoinMatch(c.left[k].vals[l], c.right[k].vals[r]) {
				return false
			}
		}
		return true
	}
	li, ri = []int32{}, []int32{}
	switch kind {
	case plan.InnerJoin, plan.LeftJoin, plan.FullJoin:
		rightHit := make([]bool, nr)
		for l := 0; l < nl; l++ {
			hit := false
			for r := 0; r < nr; r++ {
				if match(l, r) {
					li, ri = append(li, int32(l)), append(ri, int32(r))
					hit, rightHit[r] = true, true
				}
			}
			if !hit && kind != plan.InnerJoin {
				li, ri = append(li, int32(l)), append(ri, -1)
			}
		}
		if kind == plan.FullJoin {
			for r := 0; r < nr; r++ {
				if !rightHit[r] {
					li, ri = append(li, -1), append(ri, int32(r))
				}
			}
		}
	case plan.RightJoin:
		for r := 0; r < nr; r++ {
			hit := false
			for l := 0; l < nl; l++ {
				if match(l, r) {
					li, ri = append(li, int32(l)), append(ri, int32(r))
					hit = true
				}
			}
			if !hit {
				li, ri = append(li, -1), append(ri, int32(r))
			}
		}
	case plan.SemiJoin, plan.AntiJoin:
		ri = nil
		for l := 0; l < nl; l++ {
			hit := false
			for r := 0; r < nr && !hit; r++ {
				hit = match(l, r)
			}
			if hit == (kind == plan.SemiJoin) {
				li = append(li, int32(l))
			}
		}
	}
	return li, ri
}

func TestPropJoin(t *testing.T) {
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	props := gopter.NewProperties(propParams(t, 400))
	props.Property("JoinIndices equals the nested-loop reference for every kind", prop.ForAll(
		func(c joinCase) string {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var left, right []arrow.Array
			for k := range c.left {
				left = append(left, c.left[k].array(t, mem))
				right = append(right, c.right[k].array(t, mem))
			}
			defer releaseAll(left)
			defer releaseAll(right)
			for _, kind := range kinds {
				li, ri, err := JoinIndices(kind, left, right)
				if err != nil {
					return fmt.Sprintf("%s: %v", joinName(kind), err)
				}
				wl, wr := refJoin(kind, c)
				if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
					return fmt.Sprintf("%s: got %v %v\nwant %v %v", joinName(kind), head(li), head(ri), head(wl), head(wr))
				}
			}
			return ""
		}, genJoinCase()))
	props.TestingRun(t)
}

// refAdd is the reference float addition of docs/semantics.md, written
// apart from the implementation: a NaN operand makes the sum that NaN,
// the left one first, with its quiet bit set.
func refAdd(a, b float64) float64 {
	for _, x := range []float64{a, b} {
		if math.IsNaN(x) {
			return math.Float64frombits(math.Float64bits(x) | 1<<51)
		}
	}
	return a + b
}

// refOp is a float operation with the NaN rule: the left NaN operand
// quieted, else the right one, else the machine's answer.
func refOp(a, b float64, op func(a, b float64) float64) float64 {
	for _, x := range []float64{a, b} {
		if math.IsNaN(x) {
			return math.Float64frombits(math.Float64bits(x) | 1<<51)
		}
	}
	return op(a, b)
}

// refMedian is the median of non-null values (docs/semantics.md): sorted
// stably by the total order, NaNs last in row order; the middle value, or
// a + 0.5*(b - a) of the middle two.
func refMedian(vals []any) float64 {
	fs := make([]float64, len(vals))
	for i, v := range vals {
		fs[i] = toFloat(v)
	}
	slices.SortStableFunc(fs, refFloatCmp)
	n := len(fs)
	if n%2 == 1 {
		return fs[n/2]
	}
	a, b := fs[n/2-1], fs[n/2]
	d := refOp(b, a, func(x, y float64) float64 { return x - y })
	m := refOp(0.5, d, func(x, y float64) float64 { return x * y })
	return refOp(a, m, func(x, y float64) float64 { return x + y })
}

// refVar is the ddof-1 variance (or standard deviation) of at least two
// non-null values: the mean, then the row-order sum of squared deviations.
func refVar(vals []any, std bool) float64 {
	sub := func(x, y float64) float64 { return x - y }
	mul := func(x, y float64) float64 { return x * y }
	div := func(x, y float64) float64 { return x / y }
	m := toFloat(vals[0])
	for _, v := range vals[1:] {
		m = refAdd(m, toFloat(v))
	}
	m = refOp(m, float64(len(vals)), div)
	var ss float64
	for i, v := range vals {
		d := refOp(toFloat(v), m, sub)
		sq := refOp(d, d, mul)
		if i == 0 {
			ss = sq
		} else {
			ss = refAdd(ss, sq)
		}
	}
	r := refOp(ss, float64(len(vals)-1), div)
	if std && !math.IsNaN(r) {
		r = math.Sqrt(r)
	}
	return r
}
