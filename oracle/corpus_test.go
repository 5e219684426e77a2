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

// survivors are the legality mutants no corpus file kills, each with the
// reason the mutant is equivalent (or unreachable) in the bounded tier.
var survivors = map[legality.CellID]string{
	legality.PPUnknown:       "no node kind reaches the catch-all",
	legality.PRUnknown:       "no node kind reaches the catch-all",
	legality.FFBoolean:       "Resolve rejects non-bool filter conjuncts, so the condition always holds",
	legality.PFDeterministic: "nd_seq, the only non-deterministic UDF, is declared partial, so pf.inline refuses every inlining that could reorder it",
	legality.PRScan:          "its condition is met by construction (crosses-if == crosses)",
	legality.PRAggregate:     "its condition is met by construction (crosses-if == crosses)",
	legality.PRPassthrough:   "the mutant refuses; refusing to prune is always safe",
	legality.PRExtension:     "the only extension, identity, passes every column through",
	legality.SSStructural:    "a refusal needs a fingerprint collision",
}

// TestCorpusKillsMutants flips each legality cell in turn and checks that
// some corpus file then diverges or misses its expectation: the corpus is
// a regression test of every cell, not only of today's verdicts.
func TestCorpusKillsMutants(t *testing.T) {
	type loaded struct {
		name string
		doc  *planjson.Document
	}
	var docs []loaded
	for _, file := range corpusFiles(t) {
		docs = append(docs, loaded{filepath.Base(file), decode(t, file)})
	}
	for _, id := range legality.Default().IDs() {
		mutant, err := legality.Default().Flipped(id)
		if err != nil {
			t.Fatal(err)
		}
		var killers []string
		for _, d := range docs {
			flags, err := oracle.DocumentFlags(d.doc)
			if err != nil {
				t.Fatal(err)
			}
			flags.Table = mutant
			if !oracle.Check(context.Background(), oracle.Case{Plan: d.doc.Plan, Flags: &flags, Expect: d.doc.Expect}).Agree() {
				killers = append(killers, d.name)
			}
		}
		why, survives := survivors[id]
		switch {
		case len(killers) == 0 && !survives:
			t.Errorf("mutant %s survives the corpus: add a plan file that kills it (or list it as equivalent)", id)
		case len(killers) > 0 && survives:
			t.Errorf("mutant %s is killed by %v but listed as a survivor (%s)", id, killers, why)
		}
	}
}
