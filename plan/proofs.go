package plan

import (
	"math"
	"math/big"
	"strings"
)

// Range proofs: interval arithmetic over expressions, from the facts the
// sources state (FactsReporter), to prove a partial expression total on
// THIS input. docs/semantics.md decides each function's failures; a proof
// shows that none can happen given the bounds of its operands:
//
//   - integer add, sub, mul, neg and abs cannot overflow when the exact
//     (unbounded) result interval fits the result type;
//   - integer div and mod cannot fail when the divisor's interval excludes
//     0, and excludes -1 or the dividend's excludes the result type's
//     minimum;
//   - a strict cast int64 -> int32 cannot fail when the interval fits
//     int32, and float64 -> int32/int64 when the operand is proven free of
//     NaN and its truncated bounds fit the target.
//
// A checked operation is never performed on a row where an operand is null,
// so bounds on the non-null values are all a proof needs, and an operand
// with no non-null value (a null literal) cannot make it fail.

// proof is a range proof's mark on a call or strict cast (WithProof).
type proof struct {
	by []Assumption
}

// WithProof returns a copy of the call or cast e marked as proven unable
// to fail on the plan's input by the facts by (a range_proofs result):
// plan.Total under TrustDeclared then counts it total. Any other
// expression is returned as it is. The mark changes no value and no text:
// the executors evaluate and check the expression as before, and check the
// facts at the scans that state them (ScanNode.Assumes).
func WithProof(e Expr, by []Assumption) Expr {
	p := &proof{by: append([]Assumption(nil), by...)}
	switch e := e.(type) {
	case *Call:
		c := *e
		c.proof = p
		return &c
	case *Cast:
		c := *e
		c.proof = p
		return &c
	}
	return e
}

// ProofOf returns the facts the range proof of e relied on, and whether e
// (a call or cast) carries one.
func ProofOf(e Expr) ([]Assumption, bool) {
	switch e := e.(type) {
	case *Call:
		if e.proof != nil {
			return e.proof.by, true
		}
	case *Cast:
		if e.proof != nil {
			return e.proof.by, true
		}
	}
	return nil, false
}

// FactUse is a fact a proof relied on, with the scan whose source stated it.
type FactUse struct {
	Scan *ScanNode
	Fact Assumption
}

// ivKind says what an interval knows.
type ivKind uint8

const (
	ivUnknown ivKind = iota // nothing
	ivEmpty                 // no non-null value at all
	ivInt                   // every non-null value lies in [lo, hi]
	ivFloat                 // every non-null non-NaN value lies in [flo, fhi]
)

// Interval is what is known of an expression's non-null values on a plan's
// input: nothing, that there is no non-null value, or bounds (for floats
// also whether NaN is excluded), with the facts they derive from. The zero
// value knows nothing.
type Interval struct {
	kind     ivKind
	lo, hi   *big.Int
	flo, fhi float64
	nanFree  bool
	uses     []FactUse
}

// Known reports whether the interval bounds the values (or knows there is
// none).
func (iv Interval) Known() bool { return iv.kind != ivUnknown }

// String renders "[-5, 7]", "[0.5, 2.0] no NaN", "no value" or "unknown".
func (iv Interval) String() string {
	switch iv.kind {
	case ivEmpty:
		return "no value"
	case ivInt:
		return "[" + iv.lo.String() + ", " + iv.hi.String() + "]"
	case ivFloat:
		s := "[" + FormatFloat(iv.flo) + ", " + FormatFloat(iv.fhi) + "]"
		if iv.nanFree {
			s += " no NaN"
		}
		return s
	}
	return "unknown"
}

// factInterval is the interval of a column whose source states f, used
// through scan (nil in tests).
func factInterval(f ColumnFacts, t Type, column string, scan *ScanNode) Interval {
	if !f.HasRange {
		return Interval{}
	}
	use := []FactUse{{Scan: scan, Fact: Assumption{Column: column, Min: f.Min, Max: f.Max, NaNFree: f.NaNFree && t == Float64}}}
	if t == Float64 {
		return Interval{kind: ivFloat, flo: f.Min.Float(), fhi: f.Max.Float(), nanFree: f.NaNFree, uses: use}
	}
	return Interval{kind: ivInt, lo: big.NewInt(f.Min.Int()), hi: big.NewInt(f.Max.Int()), uses: use}
}

// FactInterval is the interval of a column of type t whose values f
// states, for Prove (nothing known when f has no range). It records no
// use: a caller proving over facts it read itself (a Parquet row group's
// statistics) checks nothing later.
func FactInterval(f ColumnFacts, t Type) Interval {
	iv := factInterval(f, t, "", nil)
	iv.uses = nil
	return iv
}

// isProofInt reports whether range proofs reason about t's integers:
// int32 and int64 only. The narrower and unsigned integers are never
// proven (an operation on them stays partial), which is sound, if weak.
func isProofInt(t Type) bool { return t == Int32 || t == Int64 }

// typeBounds returns the range of an integer type (int32 or int64).
func typeBounds(t Type) (lo, hi *big.Int) {
	if t == Int32 {
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	}
	return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
}

// fits reports whether an int interval lies within t's range.
func (iv Interval) fits(t Type) bool {
	lo, hi := typeBounds(t)
	return iv.kind == ivInt && iv.lo.Cmp(lo) >= 0 && iv.hi.Cmp(hi) <= 0
}

// contains reports whether the int interval holds x.
func (iv Interval) contains(x int64) bool {
	b := big.NewInt(x)
	return iv.lo.Cmp(b) <= 0 && iv.hi.Cmp(b) >= 0
}

// mergeUses returns the uses of a and b, deduplicated by scan and column.
func mergeUses(lists ...[]FactUse) []FactUse {
	var out []FactUse
	for _, l := range lists {
		for _, u := range l {
			dup := false
			for _, o := range out {
				if o.Scan == u.Scan && o.Fact.Column == u.Fact.Column {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, u)
			}
		}
	}
	return out
}

// intIv builds an int interval from candidate bounds (their min and max).
func intIv(uses []FactUse, cands ...*big.Int) Interval {
	lo, hi := cands[0], cands[0]
	for _, c := range cands[1:] {
		if c.Cmp(lo) < 0 {
			lo = c
		}
		if c.Cmp(hi) > 0 {
			hi = c
		}
	}
	return Interval{kind: ivInt, lo: lo, hi: hi, uses: uses}
}

// hull is the interval holding both a's and b's values.
func hull(a, b Interval) Interval {
	switch {
	case a.kind == ivEmpty:
		return b
	case b.kind == ivEmpty:
		return a
	case a.kind == ivInt && b.kind == ivInt:
		return intIv(mergeUses(a.uses, b.uses), a.lo, a.hi, b.lo, b.hi)
	case a.kind == ivFloat && b.kind == ivFloat:
		return Interval{kind: ivFloat, flo: math.Min(a.flo, b.flo), fhi: math.Max(a.fhi, b.fhi),
			nanFree: a.nanFree && b.nanFree, uses: mergeUses(a.uses, b.uses)}
	}
	return Interval{}
}

// Hull returns the interval holding the values of both a and b (a union's
// column): unknown when either is.
func Hull(a, b Interval) Interval { return hull(a, b) }

// arith returns the interval of integer function f with result type t over
// operands of intervals ivs, and whether f provably cannot fail there.
func arith(f Func, t Type, ivs []Interval) (Interval, bool) {
	for _, iv := range ivs {
		if iv.kind == ivEmpty {
			return Interval{kind: ivEmpty}, true // never performed
		}
		if iv.kind != ivInt {
			return Interval{}, false
		}
	}
	var all [][]FactUse
	for _, iv := range ivs {
		all = append(all, iv.uses)
	}
	uses := mergeUses(all...)
	var out Interval
	switch f {
	case FuncAdd:
		a, b := ivs[0], ivs[1]
		out = intIv(uses, new(big.Int).Add(a.lo, b.lo), new(big.Int).Add(a.hi, b.hi))
	case FuncSub:
		a, b := ivs[0], ivs[1]
		out = intIv(uses, new(big.Int).Sub(a.lo, b.hi), new(big.Int).Sub(a.hi, b.lo))
	case FuncMul:
		a, b := ivs[0], ivs[1]
		out = intIv(uses, new(big.Int).Mul(a.lo, b.lo), new(big.Int).Mul(a.lo, b.hi),
			new(big.Int).Mul(a.hi, b.lo), new(big.Int).Mul(a.hi, b.hi))
	case FuncNeg:
		a := ivs[0]
		out = intIv(uses, new(big.Int).Neg(a.lo), new(big.Int).Neg(a.hi))
	case FuncAbs:
		a := ivs[0]
		switch {
		case a.lo.Sign() >= 0:
			out = intIv(uses, a.lo, a.hi)
		case a.hi.Sign() <= 0:
			out = intIv(uses, new(big.Int).Neg(a.lo), new(big.Int).Neg(a.hi))
		default:
			out = intIv(uses, big.NewInt(0), new(big.Int).Neg(a.lo), a.hi)
		}
	case FuncDiv, FuncMod:
		a, b := ivs[0], ivs[1]
		if b.contains(0) {
			return Interval{}, false // divide_by_zero
		}
		minT, _ := typeBounds(t)
		if b.contains(-1) && a.lo.Cmp(minT) <= 0 {
			return Interval{}, false // MinInt / -1 overflows
		}
		if f == FuncDiv {
			// Truncating division is monotone in each operand over a
			// divisor interval of one sign: the extremes are at the corners.
			out = intIv(uses, new(big.Int).Quo(a.lo, b.lo), new(big.Int).Quo(a.lo, b.hi),
				new(big.Int).Quo(a.hi, b.lo), new(big.Int).Quo(a.hi, b.hi))
		} else {
			// |a % b| < |b| and the result has the dividend's sign.
			m := new(big.Int).Abs(b.lo)
			if h := new(big.Int).Abs(b.hi); h.Cmp(m) > 0 {
				m = h
			}
			m.Sub(m, big.NewInt(1))
			lo, hi := new(big.Int).Neg(m), m
			if a.lo.Sign() >= 0 {
				lo = big.NewInt(0)
			} else if a.lo.Cmp(lo) > 0 {
				lo = a.lo
			}
			if a.hi.Sign() <= 0 {
				hi = big.NewInt(0)
			} else if a.hi.Cmp(hi) < 0 {
				hi = a.hi
			}
			out = intIv(uses, lo, hi)
		}
	default:
		return Interval{}, false
	}
	if !out.fits(t) {
		return Interval{}, false
	}
	return out, true
}

// castInterval returns the interval of cast(x, to) with x of type from and
// interval iv, and whether the strict cast provably succeeds on every
// non-null value.
func castInterval(from, to Type, iv Interval) (Interval, bool) {
	if iv.kind == ivEmpty {
		return Interval{kind: ivEmpty}, true
	}
	switch {
	case from == to:
		return iv, true
	case isProofInt(from) && isProofInt(to):
		if iv.kind == ivInt && iv.fits(to) {
			return iv, true
		}
		return Interval{}, !CastCanFail(from, to)
	case isProofInt(from) && to == Float64:
		if iv.kind != ivInt {
			return Interval{}, true
		}
		lo, _ := new(big.Float).SetInt(iv.lo).Float64()
		hi, _ := new(big.Float).SetInt(iv.hi).Float64()
		return Interval{kind: ivFloat, flo: lo, fhi: hi, nanFree: true, uses: iv.uses}, true
	case from == Float64 && isProofInt(to):
		if iv.kind != ivFloat || !iv.nanFree {
			return Interval{}, false
		}
		// A cast truncates toward zero and fails unless the truncation
		// lies in [-2^63, 2^63) (int32: [-2^31, 2^31)); ±Inf fail too.
		lo, hi := math.Trunc(iv.flo), math.Trunc(iv.fhi)
		minT, maxT := -9223372036854775808.0, 9223372036854775808.0
		if to == Int32 {
			minT, maxT = -2147483648.0, 2147483648.0
		}
		if !(lo >= minT && hi < maxT) {
			return Interval{}, false
		}
		return Interval{kind: ivInt, lo: big.NewInt(int64(lo)), hi: big.NewInt(int64(hi)), uses: iv.uses}, true
	case from == Bool && isProofInt(to):
		return Interval{kind: ivInt, lo: big.NewInt(0), hi: big.NewInt(1)}, true
	case from == Bool && to == Float64:
		return Interval{kind: ivFloat, flo: 0, fhi: 1, nanFree: true}, true
	}
	return Interval{}, !CastCanFail(from, to)
}

// Proof is the result of Prove: whether an expression is total on the
// plan's input, and the facts that show it.
type Proof struct {
	// Expr is the expression with every call and strict cast that can
	// fail in the language marked with WithProof (when Total, each is
	// proven; a caller that marks regardless gets an expression the
	// optimizer trusts wrongly, which is what a mutant of the rp.facts cell
	// does).
	Expr Expr
	// Partial says that the expression holds a call or strict cast that
	// can fail in the language (plan.Total with TrustDeclared says no):
	// only then is there anything to prove.
	Partial bool
	// Total says that every such call and cast provably cannot fail, from
	// the facts Uses (and that nothing else in it can raise: a UDF call
	// declared partial, an over() of an integer sum).
	Total bool
	// Uses are the facts the proof relied on, each with its scan.
	Uses []FactUse
	// Detail names what the proof could not show: "`a * b` may overflow: a
	// in [0, 10], b unknown".
	Detail string
	// Value is the interval of the expression's values.
	Value Interval
	// Informed says that something is known of a column the expression
	// reads: without it a partial expression over columns has nothing to
	// be proven with.
	Informed bool
}

// Prove tries to prove e total over the input schema in, the columns' values
// bounded by facts (nil: nothing is known of a column).
func Prove(e Expr, in Schema, facts func(column string) Interval) Proof {
	p := &prover{in: in, facts: facts}
	_, iv, total, out := p.walk(e)
	return Proof{Expr: out, Partial: p.partial, Total: total && p.detail == "", Uses: p.uses, Detail: p.detail, Value: iv, Informed: p.informed}
}

// prover is one Prove walk.
type prover struct {
	in       Schema
	facts    func(string) Interval
	partial  bool
	detail   string
	uses     []FactUse
	informed bool
}

// fail records the first thing the proof could not show.
func (p *prover) fail(format string) {
	if p.detail == "" {
		p.detail = format
	}
}

// operandsText renders the intervals of the columns e reads: "a in [0,
// 10], b unknown".
func (p *prover) operandsText(e Expr) string {
	var parts []string
	seen := map[string]bool{}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Column); ok && !seen[c.Name] {
			seen[c.Name] = true
			iv := Interval{}
			if p.facts != nil {
				iv = p.facts(c.Name)
			}
			if iv.Known() {
				parts = append(parts, columnText(c.Name)+" in "+iv.String())
			} else {
				parts = append(parts, "nothing known of "+columnText(c.Name))
			}
		}
		return true
	})
	return strings.Join(parts, ", ")
}

// walk returns e's type, its interval, whether it is total (given the
// proofs), and e with its partial calls and casts marked.
func (p *prover) walk(e Expr) (Type, Interval, bool, Expr) {
	switch x := e.(type) {
	case *Column:
		f, ok := p.in.Lookup(x.Name)
		if !ok {
			return Invalid, Interval{}, false, e
		}
		iv := Interval{}
		if p.facts != nil {
			iv = p.facts(x.Name)
		}
		p.informed = p.informed || iv.Known()
		return f.Type, iv, true, e
	case *Literal:
		t := x.Value.Type()
		v := x.Value
		switch {
		case t == Invalid || x.bad != "":
			return t, Interval{}, false, e
		case v.IsNull():
			return t, Interval{kind: ivEmpty}, true, e
		case isProofInt(t):
			return t, Interval{kind: ivInt, lo: big.NewInt(v.Int()), hi: big.NewInt(v.Int())}, true, e
		case t == Float64 && !math.IsNaN(v.Float()):
			return t, Interval{kind: ivFloat, flo: v.Float(), fhi: v.Float(), nanFree: true}, true, e
		}
		return t, Interval{}, true, e
	case *Alias:
		t, iv, total, inner := p.walk(x.Expr)
		if inner != x.Expr {
			e = x.WithChildren([]Expr{inner})
		}
		return t, iv, total, e
	case *Cast:
		from, iv, total, inner := p.walk(x.Expr)
		out := e
		if inner != x.Expr {
			out = x.WithChildren([]Expr{inner})
		}
		if from == Invalid {
			return x.To, Interval{}, false, out
		}
		civ, ok := castInterval(from, x.To, iv)
		if !x.Strict {
			if !ok {
				civ = Interval{}
			}
			return x.To, civ, total, out
		}
		if !CastCanFail(from, x.To) {
			return x.To, civ, total, out
		}
		p.partial = true
		if !ok {
			p.fail("`" + x.String() + "` may fail: " + p.operandsText(x))
			return x.To, Interval{}, false, WithProof(out, nil)
		}
		p.uses = mergeUses(p.uses, civ.uses)
		return x.To, civ, total, WithProof(out, factsOf(civ.uses))
	case *Call:
		types := make([]Type, len(x.Args))
		ivs := make([]Interval, len(x.Args))
		args := make([]Expr, len(x.Args))
		total, changed := true, false
		for i, a := range x.Args {
			var at bool
			types[i], ivs[i], at, args[i] = p.walk(a)
			total = total && at
			changed = changed || args[i] != a
		}
		out := e
		if changed {
			out = x.WithChildren(args)
		}
		t, ok := callResultType(x.Fn, types)
		if !ok {
			return Invalid, Interval{}, false, out
		}
		if !FuncCanRaise(x.Fn, types) {
			var iv Interval
			switch x.Fn {
			case FuncIf:
				iv = hull(ivs[1], ivs[2])
			case FuncCoalesce:
				iv = ivs[0]
				for _, o := range ivs[1:] {
					iv = hull(iv, o)
				}
			}
			return t, iv, total, out
		}
		p.partial = true
		if !isProofInt(t) || x.Fn == FuncListSum {
			p.fail("`" + x.String() + "` can raise")
			return t, Interval{}, false, out
		}
		iv, safe := arith(x.Fn, t, ivs)
		if !safe {
			what := "may overflow"
			if x.Fn == FuncDiv || x.Fn == FuncMod {
				what = "may divide by zero or overflow"
			}
			p.fail("`" + x.String() + "` " + what + ": " + p.operandsText(x))
			return t, Interval{}, false, WithProof(out, nil)
		}
		p.uses = mergeUses(p.uses, iv.uses)
		return t, iv, total, WithProof(out, factsOf(iv.uses))
	}
	t, total := totalType(e, p.in, TrustDeclared)
	if !total {
		p.partial = true
		p.fail("`" + e.String() + "` is partial")
	}
	return t, Interval{}, total, e
}

// factsOf lists the facts of uses.
func factsOf(uses []FactUse) []Assumption {
	out := make([]Assumption, len(uses))
	for i, u := range uses {
		out[i] = u.Fact
	}
	return out
}

// HasProof reports whether e holds a call or cast marked by WithProof:
// whether its totality may rest on facts about the very columns it reads,
// which an expression renamed onto other columns does not inherit.
func HasProof(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		if _, ok := ProofOf(x); ok {
			found = true
		}
		return !found
	})
	return found
}

// IntBounds returns the bounds of an interval of integer values (false
// when it is not one: unknown, empty or of floats).
func (iv Interval) IntBounds() (lo, hi *big.Int, ok bool) {
	if iv.kind != ivInt {
		return nil, nil, false
	}
	return new(big.Int).Set(iv.lo), new(big.Int).Set(iv.hi), true
}
