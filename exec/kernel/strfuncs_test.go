package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// TestStringSetFunctions is the table of docs/semantics.md, Strings and
// Sets and ranges: each case is evaluated by the kernel over a batch and
// by the reference interpreter, and both must give the listed values.
// The adversarial values: the empty string, multi-byte characters (é, ß,
// 日本), invalid UTF-8 bytes, % and _ in the data, patterns with escapes.
func TestStringSetFunctions(t *testing.T) {
	T, F := true, false
	s := col("s")
	words := strs("Hello", "", "éÉß", "a\xffB", nil, "日本語", "ı", "50%_off")
	cases := []struct {
		name string
		cols []column
		expr plan.E
		want []plan.Value
	}{
		// lower, upper: simple case mapping, invalid bytes unchanged, ß stays
		{"lower", []column{colOf("s", plan.String, words...)}, s.Lower(),
			strs("hello", "", "ééß", "a\xffb", nil, "日本語", "ı", "50%_off")},
		{"upper", []column{colOf("s", plan.String, words...)}, s.Upper(),
			strs("HELLO", "", "ÉÉß", "A\xffB", nil, "日本語", "I", "50%_OFF")},
		{"upper grows and lower shrinks", []column{colOf("s", plan.String, strs("ȿȿȿ", "ȾA", "İ")...)}, s.Upper().Lower(),
			strs("ȿȿȿ", "ⱦa", "i")},
		// literal tests, by bytes
		{"starts_with", []column{colOf("s", plan.String, words...)}, s.StartsWith(lit("")), bools(T, T, T, T, nil, T, T, T)},
		{"starts_with é", []column{colOf("s", plan.String, words...)}, s.StartsWith(lit("é")), bools(F, F, T, F, nil, F, F, F)},
		{"starts_with a partial character", []column{colOf("s", plan.String, words...)}, s.StartsWith(lit("\xc3")), bools(F, F, T, F, nil, F, F, F)},
		{"ends_with", []column{colOf("s", plan.String, words...)}, s.EndsWith(lit("off")), bools(F, F, F, F, nil, F, F, T)},
		{"contains % literally", []column{colOf("s", plan.String, words...)}, s.Contains(lit("%_")), bools(F, F, F, F, nil, F, F, T)},
		{"contains an invalid byte", []column{colOf("s", plan.String, words...)}, s.Contains(lit("\xff")), bools(F, F, F, T, nil, F, F, F)},
		{"contains per row", []column{colOf("s", plan.String, strs("abc", "abc", "x", nil)...), colOf("p", plan.String, strs("b", "d", "", "x")...)},
			s.Contains(col("p")), bools(T, F, T, nil)},
		{"str_len_bytes", []column{colOf("s", plan.String, words...)}, s.StrLenBytes(), i64s(5, 0, 6, 3, nil, 9, 2, 7)},
		{"str_len counts invalid bytes", []column{colOf("s", plan.String, words...)}, s.StrLen(), i64s(5, 0, 3, 3, nil, 3, 1, 7)},
		// like
		{"like %", []column{colOf("s", plan.String, words...)}, s.Like(lit("%")), bools(T, T, T, T, nil, T, T, T)},
		{"like exact", []column{colOf("s", plan.String, words...)}, s.Like(lit("Hello")), bools(T, F, F, F, nil, F, F, F)},
		{"like _ is one character", []column{colOf("s", plan.String, words...)}, s.Like(lit("___")),
			bools(F, F, T, T, nil, T, F, F)},
		{"like prefix and suffix", []column{colOf("s", plan.String, words...)}, s.Like(lit("H%o")), bools(T, F, F, F, nil, F, F, F)},
		{"like infix", []column{colOf("s", plan.String, words...)}, s.Like(lit("%本%")), bools(F, F, F, F, nil, T, F, F)},
		{"like no escape by default", []column{colOf("s", plan.String, words...)}, s.Like(lit("50\\%%")), bools(F, F, F, F, nil, F, F, F)},
		{"like escape", []column{colOf("s", plan.String, strs("50%_off", "50x_off", "5%", "!")...)}, s.LikeEscape(lit("50!%!_%"), lit("!")),
			bools(T, F, F, F)},
		{"like escape at the end", []column{colOf("s", plan.String, strs("a!", "a", "a!!")...)}, s.LikeEscape(lit("a!"), lit("!")),
			bools(T, F, F)},
		{"like escaped escape", []column{colOf("s", plan.String, strs("a!", "a", "a!!")...)}, s.LikeEscape(lit("a!!"), lit("!")),
			bools(T, F, F)},
		{"like escape is %", []column{colOf("s", plan.String, strs("a%", "ab", "a")...)}, s.LikeEscape(lit("a%%"), lit("%")),
			bools(T, F, F)},
		{"like invalid byte is one character", []column{colOf("s", plan.String, strs("a\xffB", "a\xc3B", "aéB", "a\xc3\xa9\xa9B")...)},
			s.Like(lit("a_B")), bools(T, T, T, F)},
		{"like invalid byte in the pattern", []column{colOf("s", plan.String, strs("\xc3", "é", "x\xc3")...)},
			s.Like(lit("%\xc3")), bools(T, F, T)},
		{"like backtracks", []column{colOf("s", plan.String, strs("aXbXc", "abc", "aXbXcX", "")...)}, s.Like(lit("a%b_c")),
			bools(T, F, F, F)},
		{"like per-row pattern", []column{colOf("s", plan.String, strs("abc", "abc", "abc", nil)...), colOf("p", plan.String, strs("a%", "%d", nil, "%")...)},
			s.Like(col("p")), bools(T, F, nil, nil)},
		// substring: 0-based, negative from the end, clamped
		{"substring", []column{colOf("s", plan.String, strs("hello", "hello", "hello", "hello", "", "日本語", "a\xffb")...),
			colOf("b", plan.Int64, i64s(1, -3, -7, 9, 0, 1, 1)...), colOf("n", plan.Int32, i32s(3, nil, 3, 1, 1, 1, 1)...)},
			s.Substring(col("b"), col("n")), strs("ell", nil, "h", "", "", "本", "\xff")},
		{"substring to the end", []column{colOf("s", plan.String, strs("hello", "hello", "hello", "héllo")...), colOf("b", plan.Int64, i64s(1, -3, -9, 2)...)},
			s.SubstringFrom(col("b")), strs("ello", "llo", "hello", "llo")},
		{"substring extremes", []column{colOf("s", plan.String, strs("hello", "hello", "hello", "hello")...),
			colOf("b", plan.Int64, i64s(math.MinInt64, math.MaxInt64, 2, -2)...), colOf("n", plan.Int64, i64s(math.MaxInt64, math.MaxInt64, -1, math.MaxInt64)...)},
			s.Substring(col("b"), col("n")), strs("hell", "", "", "lo")},
		{"substring from MinInt64 with a length", []column{colOf("s", plan.String, strs("hello")...)},
			s.Substring(lit(int64(math.MinInt64)), lit(int64(math.MaxInt64))), strs("hell")}, // positions MinInt64+5 .. 3
		// replace, replace_all
		{"replace first", []column{colOf("s", plan.String, strs("aaa", "bab", "", nil)...)}, s.Replace(lit("a"), lit("xy")),
			strs("xyaa", "bxyb", "", nil)},
		{"replace_all", []column{colOf("s", plan.String, strs("aaa", "bab", "", "aaaa")...)}, s.ReplaceAll(lit("aa"), lit("b")),
			strs("ba", "bab", "", "bb")},
		{"replace empty old", []column{colOf("s", plan.String, strs("ab", "")...)}, s.Replace(lit(""), lit("-")), strs("-ab", "-")},
		{"replace_all empty old", []column{colOf("s", plan.String, strs("ab", "", "é\xff")...)}, s.ReplaceAll(lit(""), lit("-")),
			strs("-a-b-", "-", "-é-\xff-")},
		{"replace_all splits a character", []column{colOf("s", plan.String, strs("éé")...)}, s.ReplaceAll(lit("\xa9"), lit("")),
			strs("\xc3\xc3")},
		// strip
		{"strip", []column{colOf("s", plan.String, strs("  a b \t\n", "\u00a0x\u3000", "   ", "", "\xff ", " \u200bx")...)}, s.Strip(),
			strs("a b", "x", "", "", "\xff", "\u200bx")},
		{"strip chars", []column{colOf("s", plan.String, strs("xxaxyx", "éaé", "\xffa\xff", "a")...)}, s.StripChars(lit("xyé\xff")),
			strs("a", "a", "\xffa\xff", "a")},
		{"strip reads characters forwards", []column{colOf("s", plan.String, strs("a\u00a0 \u00a0", "é \xa0", "\xc2\xa0\xa0 ", " \xc2", "x\u3000\xe3\x80", "\u2028")...)},
			s.Strip(), strs("a", "é \xa0", "\xa0", "\xc2", "x\u3000\xe3\x80", "")},
		{"strip no chars", []column{colOf("s", plan.String, strs(" a ")...)}, s.StripChars(lit("")), strs(" a ")},
		// is_in: SQL null rules
		{"is_in ints", []column{colOf("a", plan.Int64, i64s(1, 2, 3, nil)...)}, col("a").IsIn(i64(1), i64(3)), bools(T, F, T, nil)},
		{"is_in with a null", []column{colOf("a", plan.Int64, i64s(1, 2, nil)...)}, col("a").IsIn(i64(1), null(plan.Int64)), bools(T, nil, nil)},
		{"is_in empty", []column{colOf("a", plan.Int64, i64s(1, nil)...)}, col("a").IsIn(), bools(F, nil)},
		{"is_in promotes", []column{colOf("a", plan.Int32, i32s(1, 2, 3)...)}, col("a").IsIn(f64(2), i64(3)), bools(F, T, T)},
		{"is_in int64 with a float", []column{colOf("a", plan.Int64, i64s(1<<53+1, 1<<53)...)}, col("a").IsIn(f64(1 << 53)), bools(T, T)},
		{"is_in int64 exact", []column{colOf("a", plan.Int64, i64s(1<<53+1, 1<<53)...)}, col("a").IsIn(i64(1 << 53)), bools(F, T)},
		{"is_in floats", []column{colOf("f", plan.Float64, f64s(math.NaN(), negZer, 1.5, 2)...)}, col("f").IsIn(f64(math.NaN()), f64(0), i64(2)),
			bools(F, T, F, T)},
		{"is_in strings", []column{colOf("s", plan.String, words...)}, s.IsIn(str(""), str("éÉß"), str("a\xffB")), bools(F, T, T, T, nil, F, F, F)},
		// A row of at most 8 bytes compares as one word and its length
		// (AIR\x00 is AIR's word, not its length); longer rows, and rows
		// within 8 bytes of the data's end, compare bytes.
		{"is_in strings by word", []column{colOf("s", plan.String, strs("AIR", "AIR\x00", "AIR REG", "", "REG AIR", "12345678", "123456789",
			"1234567", nil, "12345678", "AIR")...)}, s.IsIn(str("AIR"), str("AIR REG"), str("12345678"), str("123456789"), str("")),
			bools(T, F, T, T, F, T, T, F, nil, T, T)},
		{"is_in strings by word, no empty element", []column{colOf("s", plan.String, strs("", "a", "ab", "abcdefgh", "abcdefgi", "x")...)},
			s.IsIn(str("abcdefgh"), str("a")), bools(F, T, F, T, F, F)},
		{"is_in bools", []column{colOf("p", plan.Bool, bools(T, F, nil)...)}, col("p").IsIn(bl(true)), bools(T, F, nil)},
		{"is_in many", []column{colOf("a", plan.Int64, i64s(1, 10, 11, 20)...)},
			col("a").IsIn(i64(1), i64(2), i64(3), i64(4), i64(5), i64(6), i64(7), i64(8), i64(9), i64(10), null(plan.Int64)), bools(T, T, nil, nil)},
		// between: >= and <= under Kleene and
		{"between", []column{colOf("a", plan.Int64, i64s(0, 1, 2, 3, nil)...)}, col("a").Between(lit(1), lit(2)), bools(F, T, T, F, nil)},
		{"between null bounds", []column{colOf("a", plan.Int64, i64s(0, 2, 5)...), colOf("h", plan.Int64, i64s(nil, nil, nil)...)},
			col("a").Between(lit(1), col("h")), bools(F, nil, nil)},
		{"between literal x", []column{colOf("l", plan.Float64, f64s(0.5, 2.5, math.NaN())...)}, lit(2).Between(col("l"), lit(3)), bools(T, F, F)},
		{"between both bounds null", []column{colOf("a", plan.Int64, i64s(0)...)}, col("a").Between(plan.Null(plan.Int64), plan.Null(plan.Int64)),
			[]plan.Value{null(plan.Bool)}},
		{"between strings", []column{colOf("s", plan.String, words...)}, s.Between(lit("H"), lit("b")), bools(T, F, F, T, nil, F, F, F)},
		// when: the chain of if()s
		{"when", []column{colOf("a", plan.Int64, i64s(1, 5, 10, nil)...)},
			plan.When(col("a").Lt(lit(3)), lit("low"), col("a").Lt(lit(7)), lit("mid"), lit("high")), strs("low", "mid", "high", "high")},
		{"when raises only on its rows", []column{colOf("a", plan.Int64, i64s(0, 2, 4)...)},
			plan.When(col("a").Eq(lit(0)), lit(-1), col("a").Gt(lit(3)), lit(100).Div(col("a")), lit(10).Div(col("a"))), i64s(-1, 5, 25)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := mkBatch(t, mem, tc.cols...)
			defer rec.Release()
			got, err := evalValues(t, mem, tc.expr.Expr(), rec, 0)
			checkOutcome(t, tc.expr.Expr(), got, err, tc.want, nil)

			env := &refEnv{ctx: plan.WithCallCounter(context.Background()), cols: map[string][]plan.Value{}}
			var fields []plan.Field
			rows := make([]int, len(tc.want))
			for i := range rows {
				rows[i] = i
			}
			for _, c := range tc.cols {
				env.cols[c.name] = c.vals
				fields = append(fields, plan.Field{Name: c.name, Type: c.typ, Nullable: true})
			}
			env.schema = plan.MustSchema(fields...)
			ref, rerr := refEval(env, tc.expr.Expr(), rows)
			if rerr != nil {
				t.Fatalf("reference: %s", rerr)
			}
			checkOutcome(t, tc.expr.Expr(), ref, nil, tc.want, nil)
		})
	}
}

// TestStringFunctionsFold evaluates each function over literal operands
// only, which the kernel folds to one value.
func TestStringFunctionsFold(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := mkBatch(t, mem, colOf("z", plan.Int64, i64s(0, 1)...))
	defer rec.Release()
	for _, tc := range []struct {
		expr plan.E
		want plan.Value
	}{
		{lit("AbC").Lower(), str("abc")}, {lit("AbC").Upper(), str("ABC")},
		{lit("abc").StartsWith(lit("ab")), bl(true)}, {lit("abc").Like(lit("a_c")), bl(true)},
		{lit("abc").Substring(lit(1), lit(1)), str("b")}, {lit(" x ").Strip(), str("x")},
		{lit(2).IsIn(i64(1), null(plan.Int64)), null(plan.Bool)}, {lit(2).Between(lit(1), lit(3)), bl(true)},
		{plan.Null(plan.String).Lower(), null(plan.String)}, {lit("a").Contains(plan.Null(plan.String)), null(plan.Bool)},
		{lit("a").ReplaceAll(lit("a"), lit("bb")), str("bb")}, {lit("ab").StrLenBytes(), i64(2)},
	} {
		got, err := evalValues(t, mem, tc.expr.Expr(), rec, 0)
		checkOutcome(t, tc.expr.Expr(), got, err, []plan.Value{tc.want, tc.want}, nil)
	}
}

// TestLikeContainsLaw: like(s, "%" + x + "%") == contains(s, x) when x is
// valid UTF-8 holding no % or _, and like(s, x + "%") == starts_with(s, x).
func TestLikeContainsLaw(t *testing.T) {
	pool := []string{"", "a", "é", "\xc3", "\xff", "ab", "éa", "日", "%", "_", "aé\xffb", "\xc3\xa9", "ba", "aab"}
	var data []string
	for _, a := range pool {
		for _, b := range pool {
			data = append(data, a+b)
		}
	}
	for _, x := range pool {
		if strings.ContainsAny(x, "%_") || !isValidUTF8(x) {
			continue
		}
		m := compileLike([]byte("%"+x+"%"), "")
		p := compileLike([]byte(x+"%"), "")
		for _, s := range data {
			if got, want := m.match([]byte(s)), strings.Contains(s, x); got != want {
				t.Errorf("like(%q, %q) = %v, contains = %v", s, "%"+x+"%", got, want)
			}
			if got, want := p.match([]byte(s)), strings.HasPrefix(s, x); got != want {
				t.Errorf("like(%q, %q) = %v, starts_with = %v", s, x+"%", got, want)
			}
			// The segment matcher and the character matcher agree.
			if a, b := m.matchSegs([]byte(s)), m.matchToks([]byte(s)); a != b {
				t.Errorf("like(%q, %q): segments %v, characters %v", s, "%"+x+"%", a, b)
			}
		}
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\x00\x01") == s }

// TestPropertyStringSetLaws checks the laws docs/semantics.md states, on
// the kernel over generated data (the property test's columns and
// values, invalid UTF-8 included): between(x, lo, hi) == (x >= lo and x
// <= hi); is_in(x, [v1, v2]) == (x == v1 or x == v2); like(s, "%" + p +
// "%") == contains(s, p), like(s, p + "%") == starts_with(s, p) and
// like(s, "%" + p) == ends_with(s, p) for a valid UTF-8 p without
// wildcards.
func TestPropertyStringSetLaws(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(propSeed(t))
	params.MinSuccessfulTests = 500
	params.Workers = 1
	props := gopter.NewProperties(params)
	type lawCase struct {
		Seed int64
		Rows int
	}
	gen := func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(lawCase{Seed: p.Rng.Int63(), Rows: 1 + p.Rng.Intn(40)}, gopter.NoShrinker)
	}
	props.Property("laws of between, is_in and like", prop.ForAll(func(c lawCase) string {
		r := rand.New(rand.NewSource(c.Seed))
		data := genData(c.Seed, c.Rows, false)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		cols := make([]column, 0, propSchema.Len())
		for _, f := range propSchema.Fields() {
			cols = append(cols, colOf(f.Name, f.Type, data[f.Name]...))
		}
		rec := mkBatch(t, mem, cols...)
		defer rec.Release()
		pick := func(t plan.Type) plan.E {
			if r.Intn(3) > 0 {
				return plan.Wrap(genLeaf(r, t))
			}
			return plan.Lit(genValue(r, t, 20))
		}
		types := []plan.Type{plan.Int32, plan.Int64, plan.Float64, plan.String, plan.Bool}
		tx := types[r.Intn(len(types))]
		ty := tx
		if tx.IsNumeric() {
			ty = types[r.Intn(3)]
		}
		x, lo, hi := pick(tx), pick(ty), pick(ty)
		v1, v2 := genValue(r, ty, 20), genValue(r, ty, 20)
		p := []string{"", "a", "é", "ab", "1", "ß", "日本"}[r.Intn(7)]
		s := pick(plan.String)
		pairs := [][2]plan.E{
			{x.Between(lo, hi), x.Ge(lo).And(x.Le(hi))},
			{x.IsIn(v1, v2), x.Eq(plan.Lit(v1)).Or(x.Eq(plan.Lit(v2)))},
			{s.Like(plan.Lit("%" + p + "%")), s.Contains(plan.Lit(p))},
			{s.Like(plan.Lit(p + "%")), s.StartsWith(plan.Lit(p))},
			{s.Like(plan.Lit("%" + p)), s.EndsWith(plan.Lit(p))},
		}
		for _, pr := range pairs {
			a, err := evalValues(t, mem, pr[0].Expr(), rec, 0)
			if err != nil {
				return fmt.Sprintf("%s: %v", pr[0], err)
			}
			b, err := evalValues(t, mem, pr[1].Expr(), rec, 0)
			if err != nil {
				return fmt.Sprintf("%s: %v", pr[1], err)
			}
			for i := range a {
				if !a[i].Identical(b[i]) {
					return fmt.Sprintf("row %d: %s = %s but %s = %s", i, pr[0], a[i], pr[1], b[i])
				}
			}
		}
		return ""
	}, gen))
	props.TestingRun(t)
}
