package step

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/exec/internal/memlimit"
	"github.com/dfopt/dfopt/plan"
)

// stageTable is st with n rows: a (int64, null every 7th row, from -50 to
// 50), b (float64, -1 to 2), s (string, "0" to "5"), k (int64, 0 to 9),
// z (int64: 0 where a > 45, else 1, so 100 / z raises only on rows a > 45
// keeps) and big (int64, near the int64 limits on every 5th row, so big *
// 2 overflows there).
func stageTable(t testing.TB, n int) *plan.Table {
	t.Helper()
	var a, b, s, k, z, big []plan.Value
	for i := 0; i < n; i++ {
		av := int64(i*37%101 - 50)
		if i%7 == 3 {
			a = append(a, plan.NullValue(plan.Int64))
		} else {
			a = append(a, i64(av))
		}
		b = append(b, plan.Float64Value(float64(i%13)/4-1))
		s = append(s, plan.StringValue(strconv.Itoa(i%6)))
		k = append(k, i64(int64(i%10)))
		zv := int64(1)
		if i%7 != 3 && av > 45 {
			zv = 0
		}
		z = append(z, i64(zv))
		bv := int64(i)
		if i%5 == 4 {
			bv = math.MaxInt64 - int64(i)
		}
		big = append(big, i64(bv))
	}
	tb, err := plan.NewTable("st", plan.MustSchema(
		plan.Field{Name: "a", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "b", Type: plan.Float64},
		plan.Field{Name: "s", Type: plan.String},
		plan.Field{Name: "k", Type: plan.Int64},
		plan.Field{Name: "z", Type: plan.Int64},
		plan.Field{Name: "big", Type: plan.Int64},
	), [][]plan.Value{a, b, s, k, z, big})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// stageInputs are the inputs a filter reads in the tests: the scan (a
// compact record), a sort (a lazy frame over an index vector), a filter
// (a child space) and a left join (gathered columns, -1 for the unmatched
// rows: the right holds k 0 to 7 only).
func stageInputs(t testing.TB, n int) []struct {
	name string
	df   plan.Frame
} {
	T := stageTable(t, n)
	var ks, names []plan.Value
	for i := 0; i < 8; i++ {
		ks = append(ks, i64(int64(i)))
		names = append(names, plan.StringValue("n"+strconv.Itoa(i)))
	}
	D, err := plan.NewTable("sd", plan.MustSchema(plan.Field{Name: "dk", Type: plan.Int64},
		plan.Field{Name: "name", Type: plan.String}), [][]plan.Value{ks, names})
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		df   plan.Frame
	}{
		{"scan", plan.Scan(T)},
		{"sort", plan.Scan(T).Sort(plan.Desc(col("b")))},
		{"filter", plan.Scan(T).Filter(col("b").Gt(lit(-0.9)))},
		{"left join", plan.Scan(T).Join(plan.Scan(D), plan.LeftJoin, []plan.E{col("k")}, []plan.E{col("dk")})},
	}
}

// stagePool is the conjuncts the tests draw from, by name: total ones of
// every selectivity, and ones that may raise (a division by z, a checked
// multiplication) or are not deterministic.
func stagePool() map[string]plan.E {
	nd, _ := plan.BuiltinUDFs().Lookup("nd_tick")
	return map[string]plan.E{
		"a < -30":           col("a").Lt(lit(int64(-30))),
		"a > -40":           col("a").Gt(lit(int64(-40))),
		"a is null":         col("a").IsNull(),
		"a > 60":            col("a").Gt(lit(int64(60))),
		"b > 0.0":           col("b").Gt(lit(0.0)),
		"b <= 1.5":          col("b").Le(lit(1.5)),
		"s == 1":            col("s").Eq(lit("1")),
		"s ends with 3":     col("s").EndsWith(lit("3")),
		"k in (1, 2)":       col("k").IsIn(i64(1), i64(2)),
		"a or b":            col("a").Gt(lit(int64(40))).Or(col("b").Lt(lit(-0.5))),
		"100 / z > 0":       lit(int64(100)).Div(col("z")).Gt(lit(int64(0))),
		"100 / (k + 1) > 0": lit(int64(100)).Div(col("k").Add(lit(int64(1)))).Gt(lit(int64(0))),
		"big * 2 > 0":       col("big").Mul(lit(int64(2))).Gt(lit(int64(0))),
		"nd_tick(k) >= 0":   plan.CallUDF(nd, col("k")).Ge(lit(int64(0))),
		"name == n3":        col("name").Eq(lit("n3")),
		"name is not null":  col("name").IsNotNull(),
	}
}

// budgetEnv is env under a memory limit of 64 MiB, whose allocator the
// test asserts is back at zero when it ends.
func budgetEnv(t *testing.T) *Env {
	t.Helper()
	inner := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { inner.AssertSize(t, 0) })
	b := memlimit.New(64<<20, t.TempDir())
	return NewEnv(plan.WithCallCounter(context.Background()), b.Allocator(inner), nil, "test").WithBudget(b)
}

// lowerStageRows sets filterStageRows for the test.
func lowerStageRows(t *testing.T, n int) {
	old := filterStageRows
	filterStageRows = n
	t.Cleanup(func() { filterStageRows = old })
}

// TestStagedFilter: a filter evaluated in stages keeps exactly the rows,
// in the same order, and raises exactly the error of the evaluation of
// every conjunct over all rows, on every kind of input frame, and it does
// stage where it should: after a selective total conjunct, never before a
// conjunct that may raise, not at all when nothing is selective.
func TestStagedFilter(t *testing.T) {
	lowerStageRows(t, 16)
	pool := stagePool()
	for _, c := range []struct {
		name      string
		conjuncts []string
		stages    int // on the scan
	}{
		{"selective first: the rest on the kept rows", []string{"a < -30", "b > 0.0", "s == 1"}, 2},
		{"two stages then the rest", []string{"s == 1", "k in (1, 2)", "b <= 1.5", "a > -40"}, 3},
		{"nothing selective: one stage", []string{"b <= 1.5", "a > -40"}, 1},
		{"a null test", []string{"a is null", "b > 0.0"}, 2},
		// After the disjunction (24% kept) ends_with is cheaper over all
		// rows than gathering s (fullWidthNext), then b on the kept rows.
		{"a disjunction", []string{"a or b", "s ends with 3", "b <= 1.5"}, 2},
		{"may raise: first, over all rows", []string{"a < -30", "100 / (k + 1) > 0", "b > 0.0"}, 2},
		// An error: no stage count (0).
		{"raises on rows an earlier conjunct drops", []string{"a < -30", "100 / z > 0"}, 0},
		{"raises, listed after a selective one", []string{"a < -30", "b > 0.0", "100 / z > 0"}, 0},
		{"the first raising conjunct in list order reports", []string{"a < -30", "big * 2 > 0", "100 / z > 0"}, 0},
		{"overflow on kept and dropped rows", []string{"s == 1", "big * 2 > 0", "b > 0.0"}, 0},
		{"non-deterministic: over all rows", []string{"k in (1, 2)", "nd_tick(k) >= 0", "b > 0.0"}, 2},
		{"every row dropped", []string{"a > 60", "a > -40", "b > 0.0"}, 1},
	} {
		var conj []plan.E
		for _, name := range c.conjuncts {
			x, ok := pool[name]
			if !ok {
				t.Fatalf("no conjunct %q", name)
			}
			conj = append(conj, x)
		}
		for _, in := range stageInputs(t, 400) {
			t.Run(c.name+"/"+in.name, func(t *testing.T) {
				n := in.df.Filter(conj...).Node()
				got, want := outcomeBothWays(t, n, &stagedFilter)
				if got != want {
					t.Fatalf("in stages:\n%s\nat once:\n%s", got, want)
				}
				if in.name != "scan" {
					return
				}
				stages := stagesOf(t, n)
				if stages != c.stages {
					t.Errorf("%d stages, want %d (%s)", stages, c.stages, firstLine(got))
				}
			})
		}
	}
}

// stagesOf evaluates the filter n (over a scan) and returns the number of
// stages stagedRows took, failing on an error other than the filter's own.
func stagesOf(t *testing.T, n plan.Node) int {
	t.Helper()
	resolved, err := plan.Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	e := env(t)
	tables := NewTables()
	defer tables.Release()
	in := evalFrame(t, e, tables, resolved.Children()[0])
	defer in.Release()
	_, stages, _ := e.stagedRows(resolved.(*plan.FilterNode).Predicates, in)
	return stages
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// TestFullWidthNext: which remaining conjunct is evaluated over all rows
// before the others move to the kept rows: a string test on a compact
// column when enough rows are kept that gathering the strings costs more
// than testing the dropped rows, never a conjunct whose column is
// gathered anyway (the input of a sort).
func TestFullWidthNext(t *testing.T) {
	pool := stagePool()
	rest := []plan.E{pool["b > 0.0"], pool["s == 1"], pool["a > -40"]}
	for _, c := range []struct {
		input string
		kept  int // of 1,000 rows
		want  int
	}{
		{"scan", 300, 1},  // 300 * 20 > 700 * 3
		{"scan", 100, -1}, // 100 * 20 < 900 * 3
		{"scan", 0, -1},
		{"sort", 300, -1},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.input, c.kept), func(t *testing.T) {
			var df plan.Frame
			for _, in := range stageInputs(t, 1000) {
				if in.name == c.input {
					df = in.df
				}
			}
			resolved, err := plan.Resolve(df.Filter(rest...).Node())
			if err != nil {
				t.Fatal(err)
			}
			e := env(t)
			tables := NewTables()
			defer tables.Release()
			in := evalFrame(t, e, tables, resolved.Children()[0])
			defer in.Release()
			if got := fullWidthNext(resolved.(*plan.FilterNode).Predicates, in, c.kept); got != c.want {
				t.Errorf("fullWidthNext = %d, want %d", got, c.want)
			}
		})
	}
}

// TestStagedFilterAtItsThreshold: at the default threshold, a Q6-shaped
// filter over 120,000 rows (s == "1" keeps 1/6 of them, k in (1, 2) 1/5
// of those, then two more tests) is evaluated in three stages (the third
// at once: it is under the threshold) and keeps the rows of the evaluation
// at once; below the threshold it is one stage.
func TestStagedFilterAtItsThreshold(t *testing.T) {
	pool := stagePool()
	conj := []plan.E{pool["s == 1"], pool["k in (1, 2)"], pool["b <= 1.5"], pool["a > -40"]}
	for _, c := range []struct {
		rows, stages int
	}{{120000, 3}, {filterStageRows - 1, 1}} {
		t.Run(strconv.Itoa(c.rows), func(t *testing.T) {
			n := plan.Scan(stageTable(t, c.rows)).Filter(conj...).Node()
			resolved, err := plan.Resolve(n)
			if err != nil {
				t.Fatal(err)
			}
			e := env(t)
			tables := NewTables()
			defer tables.Release()
			in := evalFrame(t, e, tables, resolved.Children()[0])
			defer in.Release()
			preds := resolved.(*plan.FilterNode).Predicates
			rows, stages, err := e.stagedRows(preds, in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.keptRowsAtOnce(preds, in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Fatalf("kept %d rows, at once %d", len(rows), len(want))
			}
			if stages != c.stages {
				t.Errorf("%d stages, want %d", stages, c.stages)
			}
		})
	}
}

// TestStagedFilterProperty: random conjunct lists from the pool over
// random inputs and table sizes give the same outcome (rows or error) in
// stages as at once, and in stages under a memory limit (flat frames),
// every reference released.
func TestStagedFilterProperty(t *testing.T) {
	lowerStageRows(t, 8)
	pool := stagePool()
	var names []string
	for name := range pool {
		names = append(names, name)
	}
	// The map's order is random: sort for a fixed seed to mean one run.
	slices.Sort(names)
	params := gopter.DefaultTestParametersWithSeed(20261202)
	params.MinSuccessfulTests = 300
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	params.Workers = 1
	props := gopter.NewProperties(params)
	props.Property("in stages as at once", prop.ForAll(func(seed int64, size int) string {
		r := rand.New(rand.NewSource(seed))
		inputs := stageInputs(t, size)
		in := inputs[r.Intn(len(inputs))]
		var conj []plan.E
		var picked []string
		for i, m := 0, 1+r.Intn(5); i < m; i++ {
			name := names[r.Intn(len(names))]
			if !strings.HasPrefix(name, "name") || in.name == "left join" {
				conj = append(conj, pool[name])
				picked = append(picked, name)
			}
		}
		if len(conj) == 0 {
			return ""
		}
		n := in.df.Filter(conj...).Node()
		// Under a memory limit frames are flat, not lazy.
		limited := outcome(budgetEnv(t), n)
		got, want := outcomeBothWays(t, n, &stagedFilter)
		if got != want || limited != want {
			return fmt.Sprintf("%s, %d rows, [%s]:\nin stages: %s\nunder a limit: %s\nat once: %s", in.name, size,
				strings.Join(picked, ", "), firstLine(got), firstLine(limited), firstLine(want))
		}
		return ""
	}, gen.Int64(), gen.IntRange(0, 300)))
	props.TestingRun(t)
}
