package exec

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/plan"
)

// The memory limit (Options.MemoryLimit): joins and aggregates whose hash
// tables do not fit spill and give the unlimited collect's outcome bit
// for bit; what cannot spill fails with resource_exhausted; spill files
// never outlive a collect.

// limitSide is a generated input: k (an int64 key, one of keys values
// spread over the whole int64 range so that they hash, 3% null),
// id (the row), f (float64 of mixed magnitudes, NaNs and -0.0 included,
// so that sums depend on their order) and, when pay > 0, p (a string of
// pay bytes) that makes the side wide.
func limitSide(t testing.TB, rng *rand.Rand, name string, rows, keys, pay int) (*ArrowSource, int64) {
	t.Helper()
	mem := memory.DefaultAllocator
	kb, ib, fb, pb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewStringBuilder(mem)
	defer kb.Release()
	defer ib.Release()
	defer fb.Release()
	defer pb.Release()
	payload := strings.Repeat("abcdefghij", pay/10+1)
	for r := 0; r < rows; r++ {
		if rng.IntN(100) < 3 {
			kb.AppendNull()
		} else {
			kb.Append(int64(uint64(rng.Int64N(int64(keys))) * 0x9E3779B97F4A7C15))
		}
		ib.Append(int64(r))
		switch rng.IntN(20) {
		case 0:
			fb.Append(math.Float64frombits(0x7ff8000000000000 | rng.Uint64()&0xffff))
		case 1:
			fb.Append(math.Copysign(0, -1))
		case 2:
			fb.AppendNull()
		default:
			fb.Append(float64(rng.IntN(2000)-1000) * math.Pow(10, float64(rng.IntN(33)-16)))
		}
		if pay > 0 {
			pb.Append(payload[r%10 : r%10+pay])
		}
	}
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}
	cols := []arrow.Array{kb.NewArray(), ib.NewArray(), fb.NewArray()}
	if pay > 0 {
		fields = append(fields, arrow.Field{Name: "p", Type: arrow.BinaryTypes.String})
		cols = append(cols, pb.NewArray())
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(rows))
	defer rec.Release()
	releaseAll(cols)
	var bytes int64
	for _, c := range cols {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				bytes += int64(b.Len())
			}
		}
	}
	src, err := NewArrowSource(name, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Release)
	return src, bytes
}

// limited collects n under the limit with its spill directory in a fresh
// test directory, and checks the outcome against the unlimited collect:
// the same rows bit for bit in the same order, or the same error (kind,
// expression, row and node); that the spill directory is empty afterwards;
// and that the accounting never saw more than the limit. It returns the
// limited outcome's result statistics and whether a spill file existed
// at some point (also when the collect failed).
func limited(t *testing.T, n plan.Node, limit int64, opts Options) (MemoryStats, bool) {
	t.Helper()
	want := collectOutcome(t, n, opts)
	dir := t.TempDir()
	opts.MemoryLimit, opts.SpillDir = limit, dir
	opts.Mem = checked(t)
	watch := &spillCtx{Context: context.Background(), dir: dir, watchOnly: true}
	var budget *memlimit.Budget
	budgetHook = func(b *memlimit.Budget) { budget = b }
	defer func() { budgetHook = nil }()
	res, err := Collect(watch, n, opts)
	var got outcome
	var stats MemoryStats
	if err != nil {
		pe, ok := plan.AsError(err)
		if !ok {
			t.Fatalf("error %v is not a *plan.Error", err)
		}
		got.err = pe
	} else {
		stats = res.Memory
		rows, err := res.Rows()
		if err != nil {
			t.Fatal(err)
		}
		got.rows = rows
		res.Release()
	}
	if msg := sameOutcome(want, got); msg != "" {
		t.Fatalf("limit %d: %s", limit, msg)
	}
	// Every reservation given back, every counted buffer freed (the
	// result's included, now released).
	if u := budget.Used(); u != 0 {
		t.Fatalf("the budget still counts %d bytes after the collect", u)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("the spill directory was left behind: %v", ents)
	}
	if stats.Peak > limit {
		t.Fatalf("the accounting saw %d bytes under a limit of %d", stats.Peak, limit)
	}
	return stats, watch.seen || stats.SpillFiles > 0
}

// TestMemoryLimitJoinSpills: for every join kind, a join whose build side
// is ten times the limit (a wide payload column; the build side is the
// right input, the left one for a right join) gives the rows of the
// unlimited collect, bit for bit and in the same order, having spilled —
// sequentially and split over goroutines.
func TestMemoryLimitJoinSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	big, bigBytes := limitSide(t, rng, "big", 20_000, 5_000, 600)
	small, _ := limitSide(t, rng, "small", 2_000, 5_000, 0)
	limit := bigBytes / 10
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin} {
		l, r := plan.Scan(small), plan.Scan(big)
		if kind == plan.RightJoin {
			l, r = r, l // the right join builds on its left input
		}
		j := l.Join(r, kind, []plan.E{c("k")}, []plan.E{c("k")})
		var n plan.Node
		switch kind {
		case plan.SemiJoin, plan.AntiJoin:
			n = j.Select(c("id"), c("k"), c("f")).Node()
		case plan.InnerJoin, plan.LeftJoin, plan.RightJoin: // one key column k (merged)
			n = j.Select(c("id"), c("k"), c("f"), c("id_right"), c("f_right")).Node()
		default:
			n = j.Select(c("id"), c("k"), c("f"), c("id_right"), c("k_right"), c("f_right")).Node()
		}
		for _, opts := range []Options{{Parallelism: 1}, forcedParallel} {
			t.Run(fmt.Sprintf("%s/p%d", joinName(kind), opts.Parallelism), func(t *testing.T) {
				st, _ := limited(t, n, limit, opts)
				if st.SpillFiles == 0 {
					t.Fatalf("the join did not spill (stats %+v)", st)
				}
				t.Logf("build side %d bytes, limit %d, peak %d, %d spill files of %d bytes", bigBytes, limit, st.Peak, st.SpillFiles, st.SpillBytes)
			})
		}
	}
}

// joinName names a join kind in test names.
func joinName(k plan.JoinKind) string {
	return map[plan.JoinKind]string{plan.InnerJoin: "inner", plan.LeftJoin: "left", plan.RightJoin: "right",
		plan.FullJoin: "full", plan.SemiJoin: "semi", plan.AntiJoin: "anti", plan.CrossJoin: "cross"}[k]
}

// TestMemoryLimitAggregateSpills: an aggregate of many groups (two keys,
// every aggregate function) whose hash table does not fit spills and gives
// the unlimited rows bit for bit, float sums and means included (their
// order is the rows').
func TestMemoryLimitAggregateSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	src, _ := limitSide(t, rng, "t", 200_000, 20_000, 0)
	n := plan.Scan(src).GroupBy(c("k"), c("id").Mod(lt(int64(3))).Alias("m")).Agg(
		c("f").Sum().Alias("sf"), c("f").Mean().Alias("mf"), c("f").Min().Alias("lo"), c("f").Max().Alias("hi"),
		c("f").First().Alias("ff"), c("f").Last().Alias("lf"), c("f").Count().Alias("nf"), plan.Len().Alias("n"),
		c("id").Sum().Alias("si"), c("id").Max().Alias("mi")).Node()
	for _, opts := range []Options{{Parallelism: 1}, forcedParallel} {
		t.Run(fmt.Sprintf("p%d", opts.Parallelism), func(t *testing.T) {
			st, _ := limited(t, n, 8<<20, opts)
			if st.SpillFiles == 0 {
				t.Fatalf("the aggregate did not spill (stats %+v)", st)
			}
			t.Logf("peak %d, %d spill files of %d bytes", st.Peak, st.SpillFiles, st.SpillBytes)
		})
	}
}

// TestMemoryLimitErrorsAgree: under a limit that makes the join or the
// aggregate spill, every error is the unlimited collect's — the same
// kind, expression, row and node, raised first in the same evaluation
// order — and no spill file survives the failure.
func TestMemoryLimitErrorsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big, bigBytes := limitSide(t, rng, "big", 20_000, 5_000, 600)
	small, _ := limitSide(t, rng, "small", 2_000, 5_000, 0)
	limit := bigBytes / 10
	huge := lt(int64(math.MaxInt64 / 4))
	join := plan.Scan(small).Join(plan.Scan(big), plan.LeftJoin, []plan.E{c("k")}, []plan.E{c("k")})
	cases := []struct {
		name  string
		n     plan.Node
		spill bool // the failure comes after a spill
	}{
		{"a left key fails before the right keys", plan.Scan(small).Join(plan.Scan(big), plan.InnerJoin,
			[]plan.E{c("id").Div(c("id").Sub(lt(int64(1500))))}, []plan.E{c("k").Mul(huge)}).Node(), false},
		{"a right key fails", plan.Scan(small).Join(plan.Scan(big), plan.InnerJoin,
			[]plan.E{c("k")}, []plan.E{c("k").Mul(huge)}).Node(), false},
		{"above a spilled join", join.Select(c("id"), c("id_right").Mul(huge).Alias("x")).Node(), true},
		{"the first overflowing group of a spilled aggregate", plan.Scan(big).GroupBy(c("k"), c("id").Mod(lt(int64(3))).Alias("g")).
			Agg(c("f").Sum().Alias("s"), c("id").Mul(lt(int64(math.MaxInt64/30_000))).Sum().Alias("big"), c("id").Div(c("k").Sub(c("k"))).Sum().Alias("z")).Node(), true},
	}
	for _, tc := range cases {
		for _, opts := range []Options{{Parallelism: 1}, forcedParallel} {
			t.Run(fmt.Sprintf("%s/p%d", tc.name, opts.Parallelism), func(t *testing.T) {
				if o := collectOutcome(t, tc.n, opts); o.err == nil {
					t.Fatal("the unlimited collect succeeded: the case tests no error")
				}
				if _, spilled := limited(t, tc.n, limit, opts); spilled != tc.spill {
					t.Fatalf("spilled %v before failing, want %v", spilled, tc.spill)
				}
			})
		}
	}
}

// TestMemoryLimitCrossJoin: a 30,000 x 30,000 cross join (900M output
// rows, which without a limit exhaust the process) fails under a limit
// with resource_exhausted naming the join, before its pairs are
// allocated.
func TestMemoryLimitCrossJoin(t *testing.T) {
	vals := make([]plan.Value, 30_000)
	for i := range vals {
		vals[i] = plan.Int64Value(int64(i))
	}
	T := mustTable(t, "t", []plan.Field{{Name: "a", Type: plan.Int64}}, vals)
	U := mustTable(t, "u", []plan.Field{{Name: "b", Type: plan.Int64}}, vals)
	n := plan.Scan(T).CrossJoin(plan.Scan(U)).Node()
	dir := t.TempDir()
	res, err := Collect(context.Background(), n, Options{Mem: checked(t), MemoryLimit: 256 << 20, SpillDir: dir})
	if err == nil {
		res.Release()
		t.Fatal("the cross join succeeded")
	}
	pe, ok := plan.AsError(err)
	if !ok || pe.Kind != plan.ResourceExhausted || !strings.HasPrefix(pe.Node, "join") || !strings.Contains(pe.Msg, "cross join") {
		t.Fatalf("error %v (node %q), want resource_exhausted naming the join", err, pe.Node)
	}
	t.Log(err)
}

// TestMemoryLimitCannotSpill: a node's output is what cannot spill: a scan
// of a table larger than the limit fails with resource_exhausted naming
// the scan, a window whose partitions do not fit names the window.
func TestMemoryLimitCannotSpill(t *testing.T) {
	vals := make([]plan.Value, 10_000)
	for i := range vals {
		vals[i] = plan.Int64Value(int64(uint64(i%5000) * 0x9E3779B97F4A7C15)) // 5,000 partitions that hash
	}
	T := mustTable(t, "t", []plan.Field{{Name: "a", Type: plan.Int64}}, vals)
	for _, tc := range []struct {
		name  string
		n     plan.Node
		limit int64
		node  string
	}{
		{"scan", plan.Scan(T).Node(), 40_000, "scan"},
		{"window", plan.Scan(T).WithColumns(c("a").Sum().Over(c("a")).Alias("s")).Node(), 500_000, "window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Collect(context.Background(), tc.n, Options{Mem: checked(t), MemoryLimit: tc.limit, SpillDir: t.TempDir()})
			if err == nil {
				res.Release()
				t.Fatal("the collect succeeded")
			}
			pe, ok := plan.AsError(err)
			if !ok || pe.Kind != plan.ResourceExhausted || !strings.HasPrefix(pe.Node, tc.node) {
				t.Fatalf("error %v, want resource_exhausted naming the %s", err, tc.node)
			}
			// The same plan fits a larger limit, with the unlimited outcome.
			limited(t, tc.n, 64<<20, Options{})
		})
	}
}

// spillCtx is a context that reports itself cancelled as soon as a spill
// file exists under dir: it cancels a collect in the middle of spilling.
// With watchOnly it only records that a spill file existed.
type spillCtx struct {
	context.Context
	dir       string
	seen      bool
	watchOnly bool
}

// Err reports context.Canceled once a file has appeared under dir.
func (c *spillCtx) Err() error {
	if !c.seen {
		subs, _ := os.ReadDir(c.dir)
		for _, s := range subs {
			if files, _ := os.ReadDir(filepath.Join(c.dir, s.Name())); len(files) > 0 {
				c.seen = true
			}
		}
	}
	if c.seen && !c.watchOnly {
		return context.Canceled
	}
	return nil
}

// TestMemoryLimitCancelRemovesSpill: a collect cancelled while its join
// (and, in another plan, its aggregate) is spilling returns cancelled and
// leaves no spill file and no Arrow buffer behind.
func TestMemoryLimitCancelRemovesSpill(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	big, bigBytes := limitSide(t, rng, "big", 20_000, 5_000, 600)
	small, _ := limitSide(t, rng, "small", 2_000, 5_000, 0)
	for _, n := range []plan.Node{
		plan.Scan(small).Join(plan.Scan(big), plan.FullJoin, []plan.E{c("k")}, []plan.E{c("k")}).Select(c("id"), c("id_right")).Node(),
		plan.Scan(big).GroupBy(c("k")).Agg(c("f").Sum().Alias("s")).Node(),
	} {
		dir := t.TempDir()
		ctx := &spillCtx{Context: context.Background(), dir: dir}
		res, err := Collect(ctx, n, Options{Mem: checked(t), MemoryLimit: bigBytes / 10, SpillDir: dir})
		if err == nil {
			res.Release()
			t.Fatal("the collect was not cancelled")
		}
		if pe, ok := plan.AsError(err); !ok || pe.Kind != plan.Cancelled || !ctx.seen {
			t.Fatalf("error %v (spill seen %v), want cancelled while spilling", err, ctx.seen)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("the spill directory was left behind: %v", ents)
		}
	}
}

// TestMemoryLimitNegative: a negative limit is an invalid plan; no limit
// reports no memory statistics.
func TestMemoryLimitNegative(t *testing.T) {
	T := tableT(t)
	if _, err := Collect(context.Background(), plan.Scan(T).Node(), Options{MemoryLimit: -1}); err == nil {
		t.Fatal("a negative limit was accepted")
	} else if pe, _ := plan.AsError(err); pe == nil || pe.Kind != plan.InvalidPlan {
		t.Fatalf("error %v, want invalid_plan", err)
	}
	res, err := Collect(context.Background(), plan.Scan(T).Node(), Options{Mem: checked(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if res.Memory != (MemoryStats{}) {
		t.Fatalf("statistics %+v without a limit", res.Memory)
	}
}

// propLimitCase is a random join (and maybe an aggregate, a distinct, a
// sort or a window above it) over two small random tables, with a tiny
// limit and a partitioning.
type propLimitCase struct {
	left, right [][]any // per column: int64 key, int64 id, float64 value, string
	kind        plan.JoinKind
	twoKeys     bool
	top         int   // 0 none, 1 aggregate, 2 distinct, 3 sort, 4 window
	limit       int64 // when the unlimited collect fails
	share       int   // the limit in percent of the peak
	opts        Options
}

// String renders the case for a failure report.
func (c propLimitCase) String() string {
	return fmt.Sprintf("%s twoKeys=%v top=%d limit=%d share=%d%% parallelism=%d partitionRows=%d\n  left %v\n  right %v",
		joinName(c.kind), c.twoKeys, c.top, c.limit, c.share, c.opts.Parallelism, c.opts.PartitionRows, c.left, c.right)
}

// propTable draws n rows: k in a small domain (nulls included), id, a
// float of mixed magnitudes (NaN, -0.0, null), s from a few strings.
func propTable(rng interface {
	Intn(int) int
	Int63() int64
}, n int) [][]any {
	cols := make([][]any, 4)
	for r := 0; r < n; r++ {
		var k, f, s any
		if rng.Intn(8) > 0 {
			k = int64(rng.Intn(30))
		}
		switch rng.Intn(10) {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Copysign(0, -1)
		case 2:
		default:
			f = float64(rng.Intn(200)-100) * math.Pow(10, float64(rng.Intn(31)-15))
		}
		if rng.Intn(6) > 0 {
			s = []string{"a", "b", "", "ccc"}[rng.Intn(4)]
		}
		cols[0] = append(cols[0], k)
		cols[1] = append(cols[1], int64(r))
		cols[2] = append(cols[2], f)
		cols[3] = append(cols[3], s)
	}
	return cols
}

func genPropLimitCase() gopter.Gen {
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin, plan.CrossJoin}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		c := propLimitCase{
			left:    propTable(rng, rng.Intn(100)),
			right:   propTable(rng, rng.Intn(100)),
			kind:    kinds[rng.Intn(len(kinds))],
			twoKeys: rng.Intn(2) == 0,
			top:     []int{0, 1, 1, 1, 2, 3, 4}[rng.Intn(7)],
			limit:   int64(1<<10 + rng.Intn(15<<10)),
			share:   45 + rng.Intn(55),
			opts:    []Options{{Parallelism: 1}, forcedParallel, {Parallelism: 2, PartitionRows: 16}}[rng.Intn(3)],
		}
		return gopter.NewGenResult(c, gopter.NoShrinker)
	}
}

// arrowTable builds the ArrowSource of a propTable.
func arrowTable(t *testing.T, name string, cols [][]any) *ArrowSource {
	t.Helper()
	mem := memory.DefaultAllocator
	kb, ib, fb, sb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewStringBuilder(mem)
	defer kb.Release()
	defer ib.Release()
	defer fb.Release()
	defer sb.Release()
	for r := range cols[1] {
		if v, ok := cols[0][r].(int64); ok {
			kb.Append(v)
		} else {
			kb.AppendNull()
		}
		ib.Append(cols[1][r].(int64))
		if v, ok := cols[2][r].(float64); ok {
			fb.Append(v)
		} else {
			fb.AppendNull()
		}
		if v, ok := cols[3][r].(string); ok {
			sb.Append(v)
		} else {
			sb.AppendNull()
		}
	}
	arrs := []arrow.Array{kb.NewArray(), ib.NewArray(), fb.NewArray(), sb.NewArray()}
	defer releaseAll(arrs)
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil), arrs, int64(len(cols[1])))
	defer rec.Release()
	src, err := NewArrowSource(name, rec)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestPropMemoryLimit: random small tables joined (every kind, one or two
// keys) and maybe aggregated, under a tiny limit (2 to 16 KiB) and every
// partitioning option, give the unlimited outcome — rows bit for bit in
// order, or the same error — unless the limit is too small for the plan
// (resource_exhausted, which a good share of the cases must not hit), and
// leave no spill file.
func TestPropMemoryLimit(t *testing.T) {
	runs, spilled, exhausted := 0, 0, 0
	params := gopter.DefaultTestParametersWithSeed(20260111)
	params.MinSuccessfulTests = 300
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	props := gopter.NewProperties(params)
	props.Property("a tiny memory limit changes no outcome", prop.ForAll(func(c propLimitCase) string {
		ls, rs := arrowTable(t, "l", c.left), arrowTable(t, "r", c.right)
		defer ls.Release()
		defer rs.Release()
		l, r := plan.Scan(ls), plan.Scan(rs)
		var j plan.Frame
		switch {
		case c.kind == plan.CrossJoin:
			j = l.CrossJoin(r)
		case c.twoKeys:
			j = l.Join(r, c.kind, []plan.E{c2("k"), c2("s")}, []plan.E{c2("k"), c2("s")})
		default:
			j = l.Join(r, c.kind, []plan.E{c2("k")}, []plan.E{c2("k").Add(lt(int64(1)))})
		}
		n := j.Node()
		switch c.top {
		case 1:
			n = j.GroupBy(c2("k"), c2("s")).Agg(c2("f").Sum().Alias("sf"), c2("f").Mean().Alias("mf"), c2("f").Max().Alias("xf"),
				c2("f").First().Alias("ff"), c2("id").Sum().Alias("si"), c2("s").Min().Alias("ms"), plan.Len().Alias("n")).Node()
		case 2:
			n = j.Distinct("k", "s").Node()
		case 3:
			n = j.Sort(plan.Desc(c2("f")), plan.Asc(c2("id"))).Node()
		case 4:
			n = j.WithColumns(c2("f").Sum().Over(c2("k")).Alias("w")).Node()
		}
		want := collectOutcome(t, n, c.opts)
		got, didSpill, msg := collectUnderShare(t, n, c)
		if msg != "" {
			return msg
		}
		if didSpill {
			spilled++
		}
		runs++
		if got.err != nil && got.err.Kind == plan.ResourceExhausted && (want.err == nil || want.err.Kind != plan.ResourceExhausted) {
			exhausted++
			return ""
		}
		return sameOutcome(want, got)
	}, genPropLimitCase()))
	props.TestingRun(t)
	t.Logf("%d runs: %d spilled, %d ran out of memory", runs, spilled, exhausted)
	if 4*spilled < runs || 5*exhausted > 3*runs {
		t.Errorf("%d runs: %d spilled, %d ran out of memory: the limits test too little", runs, spilled, exhausted)
	}
}

// c2 is plan.Col (c is shadowed by the case in the property).
func c2(name string) plan.E { return plan.Col(name) }

// TestMemoryLimitSpillFails: a join that must spill into a spill
// directory that cannot be made fails with resource_exhausted naming the
// join and saying why.
func TestMemoryLimitSpillFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	big, bigBytes := limitSide(t, rng, "big", 20_000, 5_000, 600)
	small, _ := limitSide(t, rng, "small", 2_000, 5_000, 0)
	n := plan.Scan(small).Join(plan.Scan(big), plan.InnerJoin, []plan.E{c("k")}, []plan.E{c("k")}).Select(c("id")).Node()
	res, err := Collect(context.Background(), n, Options{Mem: checked(t), MemoryLimit: bigBytes / 10,
		SpillDir: filepath.Join(t.TempDir(), "missing")})
	if err == nil {
		res.Release()
		t.Fatal("the collect succeeded without its spill directory")
	}
	pe, ok := plan.AsError(err)
	if !ok || pe.Kind != plan.ResourceExhausted || !strings.HasPrefix(pe.Node, "join") || !strings.Contains(pe.Msg, "spilling to disk failed") {
		t.Fatalf("error %v, want resource_exhausted naming the join and the spill", err)
	}
}

// collectUnderShare collects n under a memory limit of c.share percent of
// the peak it holds under a limit it never reaches (so the hash tables are
// what does not fit; c.limit when that collect fails), a few KiB at least,
// spilling to a fresh directory. It returns the outcome, whether the
// collect spilled, and what went wrong besides the outcome: a peak over
// the limit, leaked buffers, a budget that still counts bytes, or a spill
// directory left behind.
func collectUnderShare(t *testing.T, n plan.Node, c propLimitCase) (got outcome, spilled bool, msg string) {
	probe := c.opts
	probe.MemoryLimit = 1 << 30
	limit := c.limit
	if res, err := Collect(context.Background(), n, probe); err == nil {
		limit = max(1<<10, res.Memory.Peak*int64(c.share)/100)
		res.Release()
	}
	dir := t.TempDir()
	opts := c.opts
	opts.MemoryLimit, opts.SpillDir, opts.Mem = limit, dir, memory.NewCheckedAllocator(memory.NewGoAllocator())
	var budget *memlimit.Budget
	budgetHook = func(b *memlimit.Budget) { budget = b }
	res, err := Collect(context.Background(), n, opts)
	budgetHook = nil
	if err != nil {
		pe, _ := plan.AsError(err)
		if pe == nil {
			return got, false, fmt.Sprintf("error %v is not a *plan.Error", err)
		}
		got.err = pe
	} else {
		rows, err := res.Rows()
		if err != nil {
			return got, false, err.Error()
		}
		got.rows = rows
		spilled = res.Memory.SpillFiles > 0
		if res.Memory.Peak > limit {
			return got, spilled, fmt.Sprintf("peak %d over the limit %d", res.Memory.Peak, limit)
		}
		res.Release()
	}
	if a := opts.Mem.(*memory.CheckedAllocator).CurrentAlloc(); a != 0 {
		return got, spilled, fmt.Sprintf("%d bytes leaked", a)
	}
	if u := budget.Used(); u != 0 {
		return got, spilled, fmt.Sprintf("the budget still counts %d bytes after the collect", u)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		return got, spilled, "the spill directory was left behind"
	}
	return got, spilled, ""
}
