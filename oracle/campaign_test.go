package oracle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/proptest"
)

// smallConfig keeps test campaigns fast.
var smallConfig = proptest.Config{MaxRows: 12, MaxDepth: 6}

// statsView is what must not depend on the number of workers or shards.
func statsView(s *Stats) Stats {
	v := *s
	v.Elapsed, v.CPU, v.Workers, v.Shard, v.Counterexamples = 0, 0, 0, Shard{}, nil
	return v
}

// TestCampaignDeterministic: the statistics do not depend on Workers, and
// two shards add up to the whole campaign.
func TestCampaignDeterministic(t *testing.T) {
	ctx := context.Background()
	run := func(workers int, shard Shard) *Stats {
		t.Helper()
		st, err := (&Campaign{Seed: 7, N: 300, Workers: workers, Shard: shard, Config: smallConfig}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Divergences != 0 {
			t.Fatalf("seed 7: %d divergences: %v", st.Divergences, st.Classes)
		}
		return st
	}
	one, three := run(1, Shard{}), run(3, Shard{})
	if diff := cmp.Diff(statsView(one), statsView(three), cmpopts.IgnoreUnexported(legality.Table{})); diff != "" {
		t.Fatalf("1 worker vs 3 workers (-1 +3):\n%s", diff)
	}
	if one.Plans != 300 {
		t.Fatalf("plans %d, want 300", one.Plans)
	}
	a, b := run(2, Shard{K: 0, N: 2}), run(2, Shard{K: 1, N: 2})
	a.merge(b)
	if diff := cmp.Diff(statsView(one), statsView(a), cmpopts.IgnoreUnexported(legality.Table{})); diff != "" {
		t.Fatalf("whole vs shards 0/2+1/2 (-whole +shards):\n%s", diff)
	}
}

// TestCampaignMutantCounterexample runs a campaign against a legality
// mutant (pp.scan flipped to crosses: every conjunct is handed to a source
// that does not apply it, and removed from the plan): it must find the
// divergence, shrink it to a small plan and write a plan file that
// reproduces it.
func TestCampaignMutantCounterexample(t *testing.T) {
	mutant, err := legality.Default().Flipped(legality.PPScan)
	if err != nil {
		t.Fatal(err)
	}
	flags := DefaultFlags()
	flags.Table = mutant
	dir := t.TempDir()
	c := &Campaign{Seed: 1, N: 500, Workers: 2, Config: smallConfig, Flags: &flags, OutDir: dir, MaxShrink: 1}
	st, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Divergences == 0 {
		t.Fatalf("no divergence in %d plans against the pp.scan mutant", st.Plans)
	}
	if len(st.Counterexamples) != 1 {
		t.Fatalf("%d counterexamples, want 1 (MaxShrink)", len(st.Counterexamples))
	}
	x := st.Counterexamples[0]
	t.Logf("%s", x.Summary())
	if !x.Reproduces || x.File == "" {
		t.Fatalf("counterexample does not reproduce: %s", x.Summary())
	}
	if x.After.Nodes > 4 {
		t.Errorf("minimized plan has %d nodes, want at most 4:\n%s", x.After.Nodes, x.Report)
	}
	doc, err := planjson.DecodeFile(x.File, planjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Expect == nil || doc.Expect.Error == nil || doc.Flags["predicate_pushdown"] != true {
		t.Fatalf("file lacks expect or flags: %+v", doc)
	}
	// Under the default table the written plan agrees: the divergence is
	// the mutant's.
	rep, err := CheckDocument(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Agree() {
		t.Fatalf("the default table diverges on the mutant's counterexample:\n%s", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.Base(x.File))); err != nil {
		t.Fatal(err)
	}
}

// TestCampaignCancel stops at once and reports the plans checked.
func TestCampaignCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	c := &Campaign{Seed: 1, N: 1 << 30, Workers: 2, Config: smallConfig, ProgressEvery: time.Millisecond,
		Progress: func(p Progress) {
			calls++
			if p.Done > 50 {
				cancel()
			}
		}}
	st, err := c.Run(ctx)
	if err == nil || st == nil || st.Plans == 0 || st.Plans >= 1<<30 {
		t.Fatalf("want a cancelled campaign with some plans, got err=%v stats=%v", err, st)
	}
	if calls == 0 {
		t.Fatal("progress never called")
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true},
		{"3/4", Shard{3, 4}, true},
		{"4/4", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
		{"0/0", Shard{}, false},
	}
	for _, tc := range tests {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestCellOutcomes: the cells' own arguments (legality.Cell.NeverAllows,
// NeverRefuses) and their verdicts decide which outcomes can be seen.
func TestCellOutcomes(t *testing.T) {
	table := legality.Default()
	tests := []struct {
		id                  legality.CellID
		canAllow, canRefuse bool
	}{
		{legality.PPLimit, false, true},
		{legality.PRPassthrough, true, false},
		{legality.PPSort, true, true},
		{legality.SSNested, false, true},
		{legality.PPUnknown, false, false},
	}
	for _, tc := range tests {
		a, r := CellOutcomes(table, tc.id)
		if a != tc.canAllow || r != tc.canRefuse {
			t.Errorf("%s: (%v, %v), want (%v, %v)", tc.id, a, r, tc.canAllow, tc.canRefuse)
		}
	}
	// A flipped cell loses its exemption: the mutant's crosses verdict can
	// only allow.
	flipped, err := table.Flipped(legality.SSNested)
	if err != nil {
		t.Fatal(err)
	}
	if a, r := CellOutcomes(flipped, legality.SSNested); !a || r {
		t.Errorf("flipped ss.nested: (%v, %v), want (true, false)", a, r)
	}
}

// TestShardIndices: the shard's indices are exactly i < n with i % N == K.
func TestShardIndices(t *testing.T) {
	for _, s := range []Shard{{}, {0, 1}, {0, 3}, {2, 3}, {4, 5}} {
		for _, n := range []int{0, 1, 2, 3, 4, 10, 11} {
			var want []int
			for i := 0; i < n; i++ {
				if s.N <= 1 || i%s.N == s.K {
					want = append(want, i)
				}
			}
			var got []int
			for k := 0; k < s.count(n); k++ {
				got = append(got, s.index(k))
			}
			if !cmp.Equal(want, got) {
				t.Errorf("shard %v n=%d: %v, want %v", s, n, got, want)
			}
		}
	}
}

// TestCellTableMarks: the table marks unexercised outcomes and outcomes an
// exemption says are impossible.
func TestCellTableMarks(t *testing.T) {
	st := newStats()
	st.Plans = 10
	st.Cells[legality.PPSort] = &CellStats{Allowed: 3, AllowedPlans: 2}
	st.Cells[legality.SSNested] = &CellStats{Allowed: 1, AllowedPlans: 1, Refused: 5, RefusedPlans: 5}
	st.Cells[legality.PPLimit] = &CellStats{Refused: 1, RefusedPlans: 1}
	table := st.CellTable()
	lines := map[string]string{}
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	checks := []struct {
		cell legality.CellID
		want string
	}{
		{legality.PPSort, "UNEXERCISED: never refused"},
		{legality.SSNested, "1!"},
		{legality.SSNested, "stale exemption"},
		{legality.PPProject, "UNEXERCISED: never allowed; UNEXERCISED: never refused"},
	}
	for _, c := range checks {
		if !strings.Contains(lines[string(c.cell)], c.want) {
			t.Errorf("%s: line %q lacks %q", c.cell, lines[string(c.cell)], c.want)
		}
	}
	if strings.Contains(lines[string(legality.PPLimit)], "UNEXERCISED") {
		t.Errorf("pp.limit is exercised: %q", lines[string(legality.PPLimit)])
	}
	var got []string
	for _, u := range st.Unexercised() {
		if u.Cell == legality.PPSort || u.Cell == legality.PPLimit || u.Cell == legality.SSNested {
			got = append(got, u.String())
		}
	}
	if diff := cmp.Diff([]string{"pp.sort never refused"}, got); diff != "" {
		t.Errorf("unexercised (-want +got):\n%s", diff)
	}
}

// TestCellOutcomesTwins: twin tables make ss.structural refusals possible.
func TestCellOutcomesTwins(t *testing.T) {
	if _, r := legality.Default().Outcomes(legality.SSStructural, false); r {
		t.Error("ss.structural can refuse without twins")
	}
	if _, r := legality.Default().Outcomes(legality.SSStructural, true); !r {
		t.Error("ss.structural cannot refuse with twins")
	}
	if _, r := legality.Default().Outcomes(legality.PRScan, true); r {
		t.Error("twins change pr.scan")
	}
}

// TestCampaignParquet: with Parquet on, a campaign scans the generated
// tables from Parquet files (0 divergences under the default table), and a
// counterexample against a mutant is written with its Parquet tables next
// to the plan file, which reads back and reproduces the divergence.
func TestCampaignParquet(t *testing.T) {
	c := &Campaign{Seed: 3, N: 300, Workers: 2, Config: smallConfig, Parquet: 50}
	st, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Divergences != 0 {
		t.Fatalf("%d divergences over Parquet tables: %v", st.Divergences, st.Counterexamples)
	}
	mutant, err := legality.Default().Flipped(legality.PPScan)
	if err != nil {
		t.Fatal(err)
	}
	flags := DefaultFlags()
	flags.Table = mutant
	dir := t.TempDir()
	c = &Campaign{Seed: 1, N: 500, Workers: 2, Config: smallConfig, Flags: &flags, OutDir: dir, MaxShrink: 1, Parquet: 100}
	st, err = c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Counterexamples) != 1 {
		t.Fatalf("%d counterexamples against the pp.scan mutant over Parquet, want 1", len(st.Counterexamples))
	}
	x := st.Counterexamples[0]
	if !x.Reproduces || x.File == "" {
		t.Fatalf("the counterexample does not reproduce: %s", x.Summary())
	}
	doc, err := planjson.DecodeFile(x.File, planjson.Options{OpenParquet: parquet.Open})
	if err != nil {
		t.Fatal(err)
	}
	parquet := 0
	for _, spec := range doc.Tables {
		if spec.Parquet != "" {
			parquet++
			if filepath.IsAbs(spec.Parquet) {
				t.Errorf("the plan file names %q, want a path relative to it", spec.Parquet)
			}
		}
	}
	if parquet == 0 {
		t.Fatalf("the counterexample scans no Parquet table: %+v", doc.Tables)
	}
}
