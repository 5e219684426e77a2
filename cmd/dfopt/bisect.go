package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

func init() {
	register("bisect", command{
		synopsis: "find the rule, rewrite and legality cell behind a divergence; write FILE.min.json",
		run:      runBisect,
	})
}

// cellList is a repeatable -flip flag.
type cellList []legality.CellID

func (c *cellList) String() string {
	s := make([]string, len(*c))
	for i, id := range *c {
		s[i] = string(id)
	}
	return strings.Join(s, ",")
}

func (c *cellList) Set(v string) error {
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			*c = append(*c, legality.CellID(id))
		}
	}
	return nil
}

// flippedTable returns the default table with each cell flipped
// (legality.Flip), or nil for none.
func flippedTable(cells []legality.CellID) (*legality.Table, error) {
	if len(cells) == 0 {
		return nil, nil
	}
	t := legality.Default()
	for _, id := range cells {
		var err error
		if t, err = t.Flipped(id); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// minPath names the minimized file next to the input: x.json -> x.min.json.
func minPath(file string) string {
	return strings.TrimSuffix(file, ".json") + ".min.json"
}

// runBisect bisects one plan file. Exit status: 1 when the file diverges
// (the divergence was bisected and the minimized case written), 0 when its
// three ways agree (nothing to bisect), 2 for bad usage or input.
func runBisect(env *environment, args []string) int {
	fs := newFlagSet("bisect", "bisect FILE [-flip CELL]... [-o OUT] [-shrink-calls N] [-v]", env.stderr)
	var flips cellList
	fs.Var(&flips, "flip", "flip this legality cell's verdict first (a mutant under test; repeatable)")
	out := fs.String("o", "", "write the minimized case here (default: FILE.min.json next to FILE)")
	calls := fs.Int("shrink-calls", 5000, "oracle calls the minimization may spend (0: do not minimize)")
	verbose := fs.Bool("v", false, "print the minimized case's full report")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(rest) != 1 {
		return badArgs(env, fs, "want exactly one FILE, got %d", len(rest))
	}
	outSet := false
	fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "o" })
	if err := firstError(
		checkInt("shrink-calls", int64(*calls), 0, maxCalls),
		checkCells("flip", flips),
	); err != nil {
		return fail(env, "bisect", exitBadArgs, err)
	}
	if outSet {
		if err := checkNonEmpty("o", *out); err != nil {
			return fail(env, "bisect", exitBadArgs, err)
		}
	}
	file := rest[0]
	table, err := flippedTable(flips)
	if err != nil {
		return fail(env, "bisect", exitBadArgs, err)
	}
	doc, err := loadFile(file)
	if err != nil {
		return fail(env, "bisect", exitBadArgs, err)
	}
	opts := oracle.BisectOptions{Table: table, ShrinkCalls: *calls}
	if *calls == 0 {
		opts.ShrinkCalls = -1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := oracle.BisectDocument(ctx, doc, opts)
	switch {
	case errors.Is(err, oracle.ErrNoDivergence):
		fmt.Fprintf(env.stdout, "bisect: ok file=%s agrees: nothing to bisect\n", file)
		return exitOK
	case err != nil && res == nil:
		return fail(env, "bisect", exitBadArgs, fmt.Errorf("%s: %w", file, err))
	}
	res.Name = file
	printBisect(env.stdout, res)
	if *verbose && res.Report != nil {
		fmt.Fprint(env.stdout, indentLines(res.Report.String(), "  "))
	}
	target := *out
	if target == "" {
		target = minPath(file)
	}
	if werr := writeMinimized(target, res, table); werr != nil {
		fmt.Fprintf(env.stderr, "dfopt bisect: %v\n", werr)
		target = "-"
	} else {
		fmt.Fprintf(env.stdout, "wrote %s\n", target)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "dfopt bisect: %v (the result covers the steps done)\n", err)
	}
	fmt.Fprintf(env.stdout, "bisect: DIVERGENCE file=%s class=%q %s out=%s\n", file, res.Class, bisectFields(res), target)
	return exitFailed
}

// printBisect prints the steps' findings, one line each.
func printBisect(w io.Writer, r *oracle.BisectResult) {
	fmt.Fprintf(w, "divergence: %s\n", r.Class)
	if len(r.Overrides) > 0 {
		fmt.Fprintf(w, "legality overrides: %s\n", joinCells(r.Overrides))
	}
	minimal := strings.Join(r.MinimalNames, " ")
	if minimal == "" {
		minimal = "(none)"
	}
	fmt.Fprintf(w, "flags: %s -> %s\n", strings.Join(r.Enabled, " "), minimal)
	switch {
	case r.NoRule:
		fmt.Fprintln(w, "rule: none: the divergence persists with every rule and arm off (not the optimizer's)")
	default:
		fmt.Fprintf(w, "rule: %s\n", strings.Join(r.Rules, " "))
		arms := strings.Join(r.Arms, " ")
		if arms == "" {
			arms = "-"
		}
		fmt.Fprintf(w, "arm: %s\n", arms)
	}
	fmt.Fprintf(w, "first bad application: %s\n", describeApp(r.First, r.Applications, r.NoRule))
	cell := string(r.Cell)
	if cell == "" {
		cell = "-"
	} else {
		cell += " (" + r.CellWhy + ")"
	}
	fmt.Fprintf(w, "cell: %s\n", cell)
	if len(r.Necessary) > 0 {
		fmt.Fprintf(w, "necessary cells: %s\n", joinCells(r.Necessary))
	}
	b, a := r.Before, r.After
	fmt.Fprintf(w, "minimized: nodes %d -> %d, expression nodes %d -> %d, rows %d -> %d, columns %d -> %d (%d oracle calls)\n",
		b.Nodes, a.Nodes, b.Exprs, a.Exprs, b.Rows, a.Rows, b.Columns, a.Columns, r.ShrinkCalls)
	if r.MinFirst != nil {
		fmt.Fprintf(w, "minimized first bad application: %s\n", r.MinFirst)
	}
	if r.Report != nil && len(r.Report.Divergences) > 0 {
		fmt.Fprintf(w, "minimized divergence: %s\n", r.Report.Divergences[0])
	}
	if r.Note != "" {
		fmt.Fprintf(w, "note: %s\n", r.Note)
	}
	fmt.Fprintf(w, "oracle calls: %d in %s\n", r.Checks, r.Elapsed.Round(1e6))
}

func describeApp(a *rules.Application, n int, noRule bool) string {
	switch {
	case a != nil:
		return fmt.Sprintf("%s (of %d)", a, n)
	case noRule:
		return "-"
	}
	return fmt.Sprintf("none: the divergence persists with no rewrite applied (of %d); a prediction, not a rewrite", n)
}

func joinCells(ids []legality.CellID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, " ")
}

// bisectFields renders the summary line's key=value fields.
func bisectFields(r *oracle.BisectResult) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	app, appRule, appPath, appCell := "-", "-", "-", "-"
	if r.First != nil {
		app = fmt.Sprint(r.First.Index)
		appRule, appPath, appCell = r.First.Rule, r.First.Path(), string(r.First.Cell)
	}
	b, a := r.Before, r.After
	return fmt.Sprintf("rule=%s arm=%s cell=%s application=%s application_rule=%s application_path=%s application_cell=%s "+
		"nodes=%d->%d exprs=%d->%d rows=%d->%d cols=%d->%d checks=%d elapsed=%.3fs",
		dash(strings.Join(r.Rules, "+")), dash(strings.Join(r.Arms, "+")), dash(string(r.Cell)), app, appRule, appPath, appCell,
		b.Nodes, a.Nodes, b.Exprs, a.Exprs, b.Rows, a.Rows, b.Columns, a.Columns, r.Checks, r.Elapsed.Seconds())
}

// writeMinimized writes the minimized case and checks that the file, read
// back, shows the same divergence class (under the same overrides).
func writeMinimized(path string, r *oracle.BisectResult, table *legality.Table) error {
	doc, err := r.Document()
	if err != nil {
		return err
	}
	if err := relocateParquet(doc, filepath.Dir(path)); err != nil {
		return err
	}
	data, err := planjson.Encode(doc)
	if err != nil {
		return fmt.Errorf("encode the minimized case: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	back, err := loadFile(path)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	flags, err := oracle.DocumentFlags(back)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	if table != nil {
		flags.Table = table
	}
	if rep := oracle.Check(context.Background(), oracle.Case{Plan: back.Plan, Flags: &flags}); rep.Class() != r.Class {
		return fmt.Errorf("%s was written but does not reproduce: it diverges as %q, not %q", path, rep.Class(), r.Class)
	}
	return nil
}

// relocateParquet rewrites the relative Parquet paths of doc, which are
// relative to the directory of the file they were read from, to be
// relative to dir, where doc is written: the written case must read the
// same files from wherever it is opened. A path that has no relative form
// (another volume) becomes absolute; absolute paths stay as they are. The
// table specs are copied, not changed in place.
func relocateParquet(doc *planjson.Document, dir string) error {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("relocate Parquet paths: %w", err)
	}
	for name, spec := range doc.Tables {
		if spec.Parquet == "" || filepath.IsAbs(spec.Parquet) {
			continue
		}
		abs, err := filepath.Abs(spec.ParquetPath)
		if err != nil {
			return fmt.Errorf("relocate Parquet table %q: %w", name, err)
		}
		moved := *spec
		moved.Parquet = abs
		if rel, err := filepath.Rel(absDir, abs); err == nil {
			moved.Parquet = filepath.ToSlash(rel)
		}
		doc.Tables[name] = &moved
	}
	return nil
}
