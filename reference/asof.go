package reference

import (
	"fmt"

	"github.com/dfopt/dfopt/plan"
)

// asofJoin follows docs/semantics.md (asof_join) literally: it checks the
// left input's order, then the right's, then, for every left row, scans
// every right row for candidates and keeps the one the strategy names
// (O(left × right), which is fine for an oracle).
func asofJoin(n *plan.AsOfJoinNode, left, right *Result) (*Result, error) {
	lk := left.Columns[left.Schema.Index(n.LeftOn)]
	rk := right.Columns[right.Schema.Index(n.RightOn)]
	lby := make([][]plan.Value, len(n.LeftBy))
	rby := make([][]plan.Value, len(n.RightBy))
	byTypes := make([]plan.Type, len(n.LeftBy))
	for i := range n.LeftBy {
		lby[i] = left.Columns[left.Schema.Index(n.LeftBy[i])]
		rby[i] = right.Columns[right.Schema.Index(n.RightBy[i])]
		lf, _ := left.Schema.Lookup(n.LeftBy[i])
		rf, _ := right.Schema.Lookup(n.RightBy[i])
		byTypes[i] = promoteType(lf.Type, rf.Type)
	}
	if err := checkSorted("left", n.LeftOn, lk, lby, left.Rows); err != nil {
		return nil, err
	}
	if err := checkSorted("right", n.RightOn, rk, rby, right.Rows); err != nil {
		return nil, err
	}
	tol, hasTol := asofToleranceOf(n, left.Schema)
	// byKey encodes one row's by-keys in the compared types; ok=false when
	// one is null (the row matches nothing).
	byKey := func(cols [][]plan.Value, r int) (string, bool) {
		var buf []byte
		for i, c := range cols {
			if c[r].IsNull() {
				return "", false
			}
			buf = appendKey(buf, promote(c[r], byTypes[i]))
		}
		return string(buf), true
	}
	match := make([]int, left.Rows)
	for l := 0; l < left.Rows; l++ {
		match[l] = -1
		lkey, ok := byKey(lby, l)
		if !ok || lk[l].IsNull() {
			continue
		}
		lv := lk[l].Int()
		best := -1
		var bestDist uint64
		for r := 0; r < right.Rows; r++ {
			if rk[r].IsNull() {
				continue
			}
			if rkey, ok := byKey(rby, r); !ok || rkey != lkey {
				continue
			}
			rv := rk[r].Int()
			if n.ExcludeExact && rv == lv {
				continue
			}
			d := distance(lv, rv)
			switch n.Strategy {
			case plan.AsofBackward:
				if rv <= lv {
					best, bestDist = r, d // the last one
				}
			case plan.AsofForward:
				if rv >= lv && best < 0 {
					best, bestDist = r, d // the first one
				}
			case plan.AsofNearest:
				if best < 0 || d <= bestDist {
					best, bestDist = r, d // the last at the smallest distance
				}
			}
		}
		if best >= 0 && hasTol && bestDist > tol {
			best = -1
		}
		match[l] = best
	}
	out := &Result{Schema: n.Schema(), Rows: left.Rows}
	out.Columns = append(out.Columns, left.Columns...)
	dropped := map[string]bool{}
	if n.LeftOn == n.RightOn {
		dropped[n.RightOn] = true
	}
	for i := range n.LeftBy {
		if n.LeftBy[i] == n.RightBy[i] {
			dropped[n.RightBy[i]] = true
		}
	}
	for c, f := range right.Schema.Fields() {
		if dropped[f.Name] {
			continue
		}
		col := make([]plan.Value, left.Rows)
		for l, r := range match {
			if r < 0 {
				col[l] = plan.NullValue(f.Type)
			} else {
				col[l] = right.Columns[c][r]
			}
		}
		out.Columns = append(out.Columns, col)
	}
	if len(out.Columns) != n.Schema().Len() {
		return nil, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: fmt.Sprintf("reference: asof_join built %d columns, its schema has %d", len(out.Columns), n.Schema().Len())}
	}
	return out, nil
}

// distance is |a - b| computed exactly, as an unsigned count.
func distance(a, b int64) uint64 {
	if a >= b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// asofToleranceOf reads the tolerance literal in the key's unit: an
// integer, days for date keys (the literal is a duration in µs), µs for
// datetime keys.
func asofToleranceOf(n *plan.AsOfJoinNode, left plan.Schema) (uint64, bool) {
	if n.Tolerance == nil {
		return 0, false
	}
	lit, ok := plan.Unalias(n.Tolerance).(*plan.Literal)
	if !ok || lit.Value.IsNull() {
		return 0, false
	}
	v := lit.Value.Int()
	if f, _ := left.Lookup(n.LeftOn); f.Type == plan.Date {
		v /= plan.MicrosPerDay
	}
	return uint64(v), true
}

// checkSorted raises invalid_input at the first row, in row order, whose
// key is smaller than the previous checked key of its by-group; rows with
// a null key or by-key are not checked.
func checkSorted(side, name string, key []plan.Value, by [][]plan.Value, rows int) error {
	last := map[string]int{} // by-group -> its previous checked row
	for r := 0; r < rows; r++ {
		if key[r].IsNull() {
			continue
		}
		var buf []byte
		null := false
		for _, c := range by {
			if c[r].IsNull() {
				null = true
				break
			}
			buf = appendKey(buf, c[r])
		}
		if null {
			continue
		}
		g := string(buf)
		if p, ok := last[g]; ok && key[r].Int() < key[p].Int() {
			return &plan.Error{Kind: plan.InvalidInput, Expr: (&plan.Column{Name: name}).String(), Row: int64(r),
				Msg: fmt.Sprintf("asof_join: the %s input is not sorted on %s: row %d (%s) follows row %d (%s)",
					side, (&plan.Column{Name: name}).String(), r, key[r], p, key[p])}
		}
		last[g] = r
	}
	return nil
}
