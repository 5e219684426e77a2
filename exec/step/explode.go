package step

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/plan"
)

// explode turns each listed list column into rows (docs/semantics.md,
// explode). A first pass counts each input row's output rows (a null or
// empty list counting as one null element) and checks that the lists of a
// row agree, in input order; then, in parallel over chunks of input rows,
// a row map (output row -> input row) and, per exploded column, an element
// map (output row -> element, -1 for null) are filled. The other columns
// are gathered by the row map without copying values; each exploded
// column takes its list's elements by its element map.
func (e *Env) explode(n *plan.ExplodeNode, in *Frame) (*Frame, error) {
	flat, err := e.flat(in)
	if err != nil {
		return nil, err
	}
	defer flat.Release()
	rows := flat.rows
	lists := make([]*array.List, 0, len(n.Columns))
	var held []arrow.Array
	defer func() { releaseAll(held) }()
	for _, c := range n.Columns {
		fc, err := e.col(flat, c)
		if err != nil {
			return nil, err
		}
		a, err := e.value(fc)
		if err != nil {
			return nil, err
		}
		held = append(held, a)
		l, ok := a.(*array.List)
		if !ok {
			return nil, e.Internal("explode: column %q is a %T, not a list", c, a)
		}
		lists = append(lists, l)
	}
	// width is a row's count of output rows in list j: its length, or 1
	// for a null or empty list.
	width := func(j, i int) int64 {
		l := lists[j]
		if l.IsNull(i) {
			return 1
		}
		lo, hi := l.ValueOffsets(i)
		return max(hi-lo, 1)
	}
	start := make([]int64, rows+1)
	for i := 0; i < rows; i++ {
		w := width(0, i)
		for j := 1; j < len(lists); j++ {
			if wj := width(j, i); wj != w {
				return nil, &plan.Error{Kind: plan.InvalidInput, Row: int64(i),
					Msg: fmt.Sprintf("explode: row %d: %s has %d elements, %s has %d", i,
						plan.QuoteName(n.Columns[0]), w, plan.QuoteName(n.Columns[j]), wj)}
			}
		}
		start[i+1] = start[i] + w
	}
	total := start[rows]
	if total > int64(1<<31-1) {
		return nil, &plan.Error{Kind: plan.ResourceExhausted, Row: -1,
			Msg: fmt.Sprintf("explode: %d rows exceed the executor's %d rows per node", total, int64(1<<31-1))}
	}
	work := 4 * total * int64(len(lists))
	if err := e.reserve(work, "the explode's element maps"); err != nil {
		return nil, err
	}
	defer e.release(work)
	rowMap := make([]int32, total)
	elemMaps := make([][]int32, len(lists))
	for j := range elemMaps {
		elemMaps[j] = make([]int32, total)
	}
	// The closure cannot panic (indices within the maps: start is the
	// prefix sum of the widths).
	_ = e.par.For(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s, w := start[i], start[i+1]-start[i]
			for t := int64(0); t < w; t++ {
				rowMap[s+t] = int32(i)
			}
			for j, l := range lists {
				m := elemMaps[j]
				if l.IsNull(i) {
					m[s] = -1
					continue
				}
				first, end := l.ValueOffsets(i)
				if end == first {
					m[s] = -1
					continue
				}
				for t := int64(0); t < w; t++ {
					m[s+t] = int32(first + t)
				}
			}
		}
	})
	out := n.Schema()
	sub := &Frame{schema: flat.schema, rows: rows}
	for _, f := range flat.schema.Fields() {
		if n.Exploded(f.Name) {
			continue
		}
		fc, err := e.col(flat, f.Name)
		if err != nil {
			return nil, err
		}
		sub.cols = append(sub.cols, fc)
	}
	kept, err := e.gather(sub, out, rowMap)
	if err != nil {
		return nil, err
	}
	defer kept.Release()
	exploded := make(map[string]arrow.Array, len(lists))
	defer func() {
		for _, a := range exploded {
			a.Release()
		}
	}()
	for j, l := range lists {
		a, err := ops.TakeParallel(e.Mem, l.ListValues(), elemMaps[j], e.par)
		if err != nil {
			return nil, e.Internal("explode: %v", err)
		}
		exploded[n.Columns[j]] = a
		elemMaps[j] = nil
	}
	cols := make([]fcol, 0, out.Len())
	k := 0
	for _, f := range flat.schema.Fields() {
		if a, ok := exploded[f.Name]; ok {
			delete(exploded, f.Name)
			cols = append(cols, fcol{arr: a})
			continue
		}
		c := kept.cols[k]
		k++
		c.retain()
		cols = append(cols, c)
	}
	return &Frame{schema: out, rows: int(total), cols: cols}, nil
}
