package step

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// shareTables draws the inputs of TestJoinSharedPairs: l (k int64 and
// k2 string, both with nulls and repeats; v a row number; z zero on some
// rows, for a key that raises), r (rk, rk2 the same way; w a row number)
// and f (fk: l's row numbers, four times as many rows, so that f joined
// to l is a wide gather of l's rows, keysThroughIndex's case).
func shareTables(t *testing.T, r *rand.Rand) (l, rt, f *plan.Table) {
	t.Helper()
	null := plan.NullValue
	key := func() plan.Value {
		if r.Intn(5) == 0 {
			return null(plan.Int64)
		}
		return i64(int64(r.Intn(5)))
	}
	str := func() plan.Value {
		if r.Intn(6) == 0 {
			return null(plan.String)
		}
		return plan.StringValue([]string{"a", "b"}[r.Intn(2)])
	}
	ln, rn := 1+r.Intn(10), r.Intn(9)
	var k, k2, v, z []plan.Value
	for i := range ln {
		k, k2, v = append(k, key()), append(k2, str()), append(v, i64(int64(i)))
		z = append(z, i64(int64(min(r.Intn(8), 1))))
	}
	var rk, rk2, w []plan.Value
	for i := range rn {
		rk, rk2, w = append(rk, key()), append(rk2, str()), append(w, i64(int64(i)))
	}
	var fk []plan.Value
	for range 4 * ln {
		fk = append(fk, i64(int64(r.Intn(ln))))
	}
	mk := func(name string, fields []plan.Field, cols [][]plan.Value) *plan.Table {
		tb, err := plan.NewTable(name, plan.MustSchema(fields...), cols)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	l = mk("l", []plan.Field{{Name: "k", Type: plan.Int64, Nullable: true}, {Name: "k2", Type: plan.String, Nullable: true},
		{Name: "v", Type: plan.Int64}, {Name: "z", Type: plan.Int64}}, [][]plan.Value{k, k2, v, z})
	rt = mk("r", []plan.Field{{Name: "rk", Type: plan.Int64, Nullable: true}, {Name: "rk2", Type: plan.String, Nullable: true},
		{Name: "w", Type: plan.Int64}}, [][]plan.Value{rk, rk2, w})
	f = mk("f", []plan.Field{{Name: "fk", Type: plan.Int64}}, [][]plan.Value{fk})
	return l, rt, f
}

// TestJoinSharedPairs: joins sharing their pairs (JoinShared) give each
// join's own outcome — rows in order, or the error — whichever member is
// evaluated first: an inner join built on either side, then or before a
// semi join on the same inputs and keys (its rows derived from the inner
// pairs, LeftOnce), over random inputs with null and repeated keys on both
// sides, one or two keys, a computed key, a key that raises, nulls_equal,
// every validate option per join, and a left input that is a wide gather
// (keysThroughIndex's path) or a filtered frame.
func TestJoinSharedPairs(t *testing.T) {
	seed := int64(20261202)
	if s := os.Getenv("DFOPT_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DFOPT_SEED=%q: %v", s, err)
		}
		seed = v
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 500
	if testing.Short() {
		params.MinSuccessfulTests = 100
	}
	params.Workers = 1
	t.Logf("gopter seed %d (set DFOPT_SEED to replay another)", seed)
	validates := []plan.JoinValidate{plan.ValidateManyToMany, plan.ValidateManyToOne, plan.ValidateOneToMany, plan.ValidateOneToOne}
	var shared, derived, raised, through int
	props := gopter.NewProperties(params)
	props.Property("each join's own outcome", prop.ForAll(func(s int64) bool {
		r := rand.New(rand.NewSource(s))
		l, rt, f := shareTables(t, r)
		left := plan.Scan(l)
		switch r.Intn(3) {
		case 1:
			left = left.Filter(col("v").Gt(lit(int64(r.Intn(3) - 1))))
		case 2:
			left = plan.Scan(f).Join(left, plan.InnerJoin, []plan.E{col("fk")}, []plan.E{col("v")})
		}
		right := plan.Scan(rt)
		lon, ron := []plan.E{col("k")}, []plan.E{col("rk")}
		switch r.Intn(4) {
		case 1:
			lon, ron = []plan.E{col("k"), col("k2")}, []plan.E{col("rk"), col("rk2")}
		case 2:
			lon = []plan.E{col("k").Add(lit(int64(1)))}
		case 3:
			lon = []plan.E{col("v").Div(col("z"))} // raises where z is 0
		}
		nullsEqual := r.Intn(4) == 0
		mk := func(how plan.JoinKind, buildLeft bool) *plan.JoinNode {
			o := plan.JoinOptions{NullsEqual: nullsEqual}
			if r.Intn(3) == 0 {
				o.Validate = validates[r.Intn(len(validates))]
			}
			j := left.Join(right, how, lon, ron).WithJoinOptions(o).Node().(*plan.JoinNode)
			c := *j
			c.BuildLeft = buildLeft
			res, err := plan.Resolve(&c)
			if err != nil {
				t.Fatal(err)
			}
			return res.(*plan.JoinNode)
		}
		joins := []*plan.JoinNode{mk(plan.InnerJoin, false), mk(plan.SemiJoin, false), mk(plan.InnerJoin, true), mk(plan.SemiJoin, false)}
		order := r.Perm(len(joins))
		e := env(t)
		tables := NewTables()
		defer tables.Release()
		lf, rf := evalFrame(t, e, tables, joins[0].Left), evalFrame(t, e, tables, joins[0].Right)
		defer lf.Release()
		defer rf.Release()
		if _, _, ok := e.keysThroughIndex(joins[order[0]], plan.InnerJoin, lf); ok {
			through++
		}
		show := func(out *Frame, err error) string {
			if err != nil {
				return "error: " + err.Error()
			}
			defer out.Release()
			return fmt.Sprint(materializeRows(t, e, out))
		}
		var p JoinPairs
		for i, k := range order {
			j := joins[k]
			want := show(Eval(e, j, []*Frame{lf, rf}))
			held := p.held()
			got := show(JoinShared(e, j, lf, rf, &p))
			if got != want {
				t.Errorf("seed %d: join %d (%s, build left %v, validate %s, evaluated %d of %v), pairs held %v:\nshared: %s\nown:    %s",
					s, k, j.How, j.BuildLeft, j.Validate, i, order, held, got, want)
				return false
			}
			switch {
			case held && j.How == plan.SemiJoin:
				derived++
			case held:
				shared++
			case !p.held():
				raised++
			}
		}
		return true
	}, gen.Int64()))
	props.TestingRun(t)
	t.Logf("served %d inner and %d semi joins from shared pairs; %d raised before pairs were held; %d through the index", shared, derived, raised, through)
	if shared == 0 || derived == 0 || raised == 0 || through == 0 {
		t.Errorf("a case was not exercised: shared %d, derived %d, raised %d, through the index %d", shared, derived, raised, through)
	}
}

// TestLeftOnce: the distinct left rows of an inner join's pairs, in order.
func TestLeftOnce(t *testing.T) {
	for _, c := range []struct{ in, want []int32 }{
		{nil, []int32{}},
		{[]int32{0}, []int32{0}},
		{[]int32{0, 0, 0, 2, 3, 3, 7}, []int32{0, 2, 3, 7}},
		{[]int32{1, 2, 3}, []int32{1, 2, 3}},
	} {
		if got := LeftOnce(c.in); fmt.Sprint(got) != fmt.Sprint(c.want) || got == nil {
			t.Errorf("LeftOnce(%v) = %#v, want %v", c.in, got, c.want)
		}
	}
}
