package oracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/rules"
)

// Counterexample is one minimized divergence of a campaign.
type Counterexample struct {
	// Index and Seed locate the original plan: plan Index of the campaign,
	// generated from Seed (proptest.Generate(Seed, config) replays it).
	Index int
	Seed  int64
	// Class is the divergence class the shrinker preserved.
	Class string
	// Before and After are the sizes of the original and minimized cases;
	// Calls counts the oracle calls the shrinker spent.
	Before, After proptest.CaseSize
	Calls         int
	// Report is the minimized case's report.
	Report *Report
	// File is the plan file written ("" when OutDir is empty or writing
	// failed).
	File string
	// Reproduces reports that the written file, read back and checked with
	// CheckDocument, shows the same divergence class.
	Reproduces bool
	// Note says what else a reader must know (NaN payloads that the file
	// format cannot keep, a write failure).
	Note string
}

// Summary renders the counterexample in one line.
func (x Counterexample) Summary() string {
	s := fmt.Sprintf("index %d (case seed %d): %s; shrunk %s -> %s in %d calls", x.Index, x.Seed, x.Class, x.Before, x.After, x.Calls)
	if x.File != "" {
		s += "; wrote " + x.File
		if !x.Reproduces {
			s += " (DOES NOT REPRODUCE)"
		}
	}
	if x.Note != "" {
		s += "; " + x.Note
	}
	return s
}

// minimize shrinks one failure while its divergence class stays the same,
// then writes it to c.OutDir.
func (c *Campaign) minimize(ctx context.Context, f failure, flags rules.Flags) Counterexample {
	x := Counterexample{Index: f.index, Seed: f.seed, Class: f.class, Report: f.rep}
	if f.rep.Divergences != nil && f.rep.Divergences[0].Kind == DiffGenerator {
		x.Note = "the generator panicked: nothing to shrink"
		return x
	}
	orig := c.generate(f.seed)
	check := func(pc proptest.Case) *Report {
		root, cleanup, err := c.scanned(pc)
		if err != nil {
			rep := &Report{Name: "minimized"}
			rep.Divergences = append(rep.Divergences, Divergence{Kind: DiffGenerator, Column: -1, Row: -1, Detail: err.Error()})
			return rep
		}
		defer cleanup()
		return Check(ctx, c.caseOf(fmt.Sprintf("seed=%d index=%d (minimized)", c.Seed, f.index), root, &flags))
	}
	stillFails := func(pc proptest.Case) bool { return ctx.Err() == nil && check(pc).Class() == f.class }
	calls := c.ShrinkCalls
	if calls <= 0 {
		calls = 5000
	}
	min, st := proptest.ShrinkWith(orig, stillFails, proptest.ShrinkOptions{MaxCalls: calls})
	x.Before, x.After, x.Calls = st.Before, st.After, st.Calls
	// The plan file format keeps no NaN payloads: prefer the canonical form
	// when it still fails the same way.
	if canon := proptest.CanonicalNaNs(min); stillFails(canon) {
		min = canon
	} else {
		x.Note = "the divergence needs NaN payloads, which dfopt-plan/1 does not keep"
	}
	x.Report = check(min)
	if c.OutDir == "" {
		return x
	}
	file, err := writeCounterexample(c.OutDir, c.Seed, f.index, f.seed, min, flags, x.Report, c.Parquet)
	if err != nil {
		x.Note = joinNote(x.Note, "write: "+err.Error())
		return x
	}
	x.File = file
	doc, err := planjson.DecodeFile(file, planjson.Options{OpenParquet: parquet.Open})
	if err != nil {
		x.Note = joinNote(x.Note, "read back: "+err.Error())
		return x
	}
	dflags, err := DocumentFlagsFor(doc, flags.Registry)
	if err != nil {
		x.Note = joinNote(x.Note, "check back: "+err.Error())
		return x
	}
	// A plan file cannot carry legality overrides (a mutation campaign's):
	// check it back under the campaign's table, and say so.
	dflags.Table = flags.Table
	if flags.Table != nil && len(flags.Table.Overrides()) > 0 {
		x.Note = joinNote(x.Note, fmt.Sprintf("reproduces only with the legality overrides %v", flags.Table.Overrides()))
	}
	rep := Check(ctx, c.caseOf(x.File, doc.Plan, &dflags))
	x.Reproduces = rep.Class() == f.class
	return x
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// writeCounterexample writes a minimized case as a dfopt-plan/1 file named
// after the campaign seed and index. "expect" holds the unoptimized
// outcome's error kind (null for success): the plan as written is the
// reference.
func writeCounterexample(dir string, campaignSeed int64, index int, caseSeed int64, pc proptest.Case, flags rules.Flags, rep *Report,
	parquet int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	stem := fmt.Sprintf("oracle-s%d-i%d", campaignSeed, index)
	root := pc.Plan
	var files []proptest.ParquetTable
	if parquet > 0 {
		// The tables the campaign scanned from Parquet are written next to
		// the plan file, which names them relative to itself.
		pqDir, err := os.MkdirTemp(dir, stem+"-")
		if err != nil {
			return "", err
		}
		if root, files, err = proptest.WithParquet(pc, pqDir, parquet); err != nil {
			return "", fmt.Errorf("parquet tables: %w", err)
		}
	}
	doc, err := planjson.NewDocumentWith(root, func(src plan.Source) (*planjson.TableSpec, bool) {
		for _, f := range files {
			if src == plan.Source(f.Source) {
				rel, err := filepath.Rel(dir, f.Path)
				if err != nil {
					rel = f.Path
				}
				return &planjson.TableSpec{Parquet: filepath.ToSlash(rel), ParquetPath: f.Path, ParquetSource: f.Source}, true
			}
		}
		return nil, false
	})
	if err != nil {
		return "", fmt.Errorf("plan file: %w", err)
	}
	first := "agree"
	if len(rep.Divergences) > 0 {
		first = rep.Divergences[0].String()
	}
	doc.Description = fmt.Sprintf("oracle campaign seed %d, plan index %d (proptest case seed %d), minimized: %s. Divergence: %s",
		campaignSeed, index, caseSeed, proptest.Size(pc), first)
	doc.Flags = flags.Map()
	if flags.Tier != rules.TierStandard {
		doc.Tier = flags.Tier.String()
	}
	kind := rep.Results[Unoptimized].ErrorKind() // "" for success: "error": null
	doc.Expect = &planjson.Expect{Error: &kind}
	data, err := planjson.Encode(doc)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	path := filepath.Join(dir, stem+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	return path, nil
}
