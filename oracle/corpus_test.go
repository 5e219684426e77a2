package oracle_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan/planjson"
)

// corpusDirs are replayed by every `go test ./...`: the regression corpus
// (hand-written cell counterexamples and minimized campaign divergences) and
// the examples.
var corpusDirs = []string{"../proptest/testdata/corpus", "../examples"}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range corpusDirs {
		fs, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d corpus files in %v: the replay would test nothing", len(files), corpusDirs)
	}
	sort.Strings(files)
	return files
}

func decode(t *testing.T, file string) *planjson.Document {
	t.Helper()
	doc, err := planjson.DecodeFile(file, planjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCorpusReplay checks every corpus file with the oracle: the three ways
// agree and the file's "expect" holds.
func TestCorpusReplay(t *testing.T) {
	for _, file := range corpusFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			doc := decode(t, file)
			rep, err := oracle.CheckDocument(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			rep.Name = file
			if !rep.Agree() {
				t.Fatalf("%s", rep)
			}
			if strings.Contains(file, "corpus") && (doc.Expect == nil || doc.Expect.Error == nil) {
				t.Errorf("a corpus file must say which outcome it expects (expect.error)")
			}
		})
	}
}

// killers maps each legality cell to the corpus file written for it: with
// the cell flipped (legality.Table.Flipped), that file must diverge or miss
// its expectation. A new cell gets a corpus file that kills it and an entry
// here (or, when no plan file can kill it, an entry in unwritable or an
// equivalence note in legality).
var killers = map[legality.CellID]string{
	legality.PPDeterministic:     "pp_deterministic_nd_seq.json",
	legality.PPSplit:             "pp_split_partial_left.json",
	legality.PPFilter:            "pp_filter_guard.json",
	legality.PPProject:           "pp_project_partial.json",
	legality.PPProjectShadow:     "pp_project_shadow.json",
	legality.PPWithColumns:       "pp_with_columns_partial.json",
	legality.PPWithColumnsShadow: "pp_with_columns_shadow.json",
	legality.PPSort:              "pp_sort_partial.json",
	legality.PPScan:              "pp_scan_unsupported.json",
	legality.PPScanMerge:         "pp_scan_merge_exact_all.json",
	legality.PPScanSkip:          "pp_scan_skip_zone_map.json",
	legality.PPLimit:             "pp_limit.json",
	legality.PPSlice:             "pp_slice.json",
	legality.PPAggregate:         "pp_aggregate_key.json",
	legality.PPJoin:              "pp_join_inner_error.json",
	legality.PPWindow:            "pp_window.json",
	legality.PPUnion:             "pp_union_error_order.json",
	legality.PPDistinct:          "pp_distinct.json",
	legality.PPExtension:         "pp_extension.json",

	legality.PPExtensionRowPreserving:   "pp_extension_row_preserving.json",
	legality.PPExtensionOrderPreserving: "pp_extension_order_preserving.json",
	legality.PPExtensionDeterministic:   "pp_extension_deterministic.json",
	legality.PPExtensionPassthrough:     "pp_extension_passthrough.json",
	legality.PRExtension:                "pr_extension_positional.json",
	legality.PRExtensionPassthrough:     "pr_extension_passthrough.json",
	legality.SSExtensionDeterministic:   "ss_extension_nondeterministic.json",

	legality.FFTotalOuter:       "ff_partial_outer.json",
	legality.PFHolder:           "pf_holder_window.json",
	legality.PFDeterministic:    "pf_deterministic_nd_tick.json",
	legality.PFOnce:             "pf_once.json",
	legality.PFCapture:          "pf_capture_total.json",
	legality.PFInline:           "pf_inline_error_order.json",
	legality.PRProject:          "pr_project_dead_partial.json",
	legality.PRWithColumns:      "pr_with_columns_dead_partial.json",
	legality.PRWithColumnsEmpty: "pr_with_columns_empty_window.json",
	legality.PRJoin:             "pr_join_suffix.json",
	legality.PRDistinct:         "pr_distinct_all_columns.json",
	legality.PRWindow:           "pr_window_dead_overflow.json",
	legality.PRUnion:            "pr_union_keeps_columns.json",
	legality.SSDeterministic:    "ss_nondeterministic_union.json",
	legality.SSNested:           "ss_nested.json",

	legality.LPDeterministic: "lp_nd_projection.json",
	legality.LPProject:       "lp_partial_project.json",
	legality.LPWithColumns:   "lp_partial_with_columns.json",
	legality.LPScan:          "lp_scan_exact_partial.json",
	legality.LPFilter:        "lp_filter_below_limit.json",
	legality.LPAggregate:     "lp_aggregate_head.json",
	legality.LPJoin:          "lp_join_head.json",
	legality.LPDistinct:      "lp_distinct_head.json",
	legality.LPWindow:        "lp_window_head.json",
	legality.LPExtension:     "lp_extension_head.json",
	legality.LPLimit:         "lp_limit_over_slice.json",

	legality.CCJDeterministic: "ccj_deterministic_nd_tick.json",
	legality.CCJTotal:         "ccj_total_empty_right.json",
	legality.CCJFloat:         "ccj_float_nan_keys.json",
	legality.CCJKeyColumn:     "ccj_duplicated_right_key.json",
	legality.CCJRest:          "ccj_rest_partial.json",
	legality.BSKind:           "bs_kind_left_join.json",
	legality.SPSide:           "sp_side_both_inputs.json",
	legality.SPOptions:        "sp_options_validate_left.json",
	legality.SPKeys:           "sp_keys_partial_unmatched_row.json",
	legality.SPRightInput:     "sp_right_input_raises_first.json",
	legality.SRRows:           "sr_rows_sum_overflow_unmatched_group.json",
	legality.SRSource:         "sr_source_nd_tick_key.json",
	// The standard tier's crossings (the files say "tier": "standard").
	legality.PPFilterTotal:        "pp_filter_total_partial_stays.json",
	legality.PPAggregateTotal:     "pp_aggregate_total_sum_overflow.json",
	legality.PPAggregateKeys:      "pp_aggregate_keys_signed_zero.json",
	legality.PPDistinctKeys:       "pp_distinct_keys_signed_zero.json",
	legality.PPJoinKeys:           "pp_join_keys_guarded_key.json",
	legality.PPJoinPreserved:      "pp_join_preserved_partial.json",
	legality.PPJoinLeftRightSide:  "pp_join_left_right_side.json",
	legality.PPJoinRightLeftSide:  "bug_b24_right_join_nullable_side.json",
	legality.PPJoinFullLeftSide:   "pp_join_full_left_side.json",
	legality.PPJoinFullRightSide:  "pp_join_full_right_side.json",
	legality.PPJoinKeyEquivalence: "pp_join_key_equivalence_promotion.json",
}

// Two kinds of mutants need no corpus file: the equivalent ones
// (legality.Cell.Equivalent), and those whose counterexample needs twin
// sources (legality.Cell.TwinsReach), which dfopt-plan/1 cannot hold
// although a campaign can generate them.

// TestCorpusKillsMutants flips each legality cell in turn and checks that
// the corpus file written for it then diverges or misses its expectation:
// the corpus is a regression test of every cell's guard, not only of
// today's verdicts.
func TestCorpusKillsMutants(t *testing.T) {
	table := legality.Default()
	dir := corpusDirs[0]
	for id, file := range killers {
		if _, ok := table.Lookup(id); !ok {
			t.Errorf("killers: unknown cell %s", id)
			continue
		}
		doc := decode(t, filepath.Join(dir, file))
		mutant, err := table.Flipped(id)
		if err != nil {
			t.Fatal(err)
		}
		flags, err := oracle.DocumentFlags(doc)
		if err != nil {
			t.Fatal(err)
		}
		if r := oracle.Check(context.Background(), oracle.Case{Plan: doc.Plan, Flags: &flags, Expect: doc.Expect}); !r.Agree() {
			t.Errorf("%s: the default table fails its own file:\n%s", file, r)
		}
		flags.Table = mutant
		if oracle.Check(context.Background(), oracle.Case{Plan: doc.Plan, Flags: &flags, Expect: doc.Expect}).Agree() {
			t.Errorf("mutant %s survives %s", id, file)
		}
	}
	for _, c := range table.Cells() {
		if _, k := killers[c.ID]; !k && !c.TwinsReach && c.Equivalent == "" {
			// Not an error, so that work adding cells is not blocked; the
			// log names the gap.
			t.Logf("cell %s has no corpus file that kills its mutant yet", c.ID)
		}
	}
}
