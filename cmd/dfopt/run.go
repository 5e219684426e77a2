package main

import (
	"context"
	"fmt"

	"github.com/dfopt/dfopt/exec"
	dfformat "github.com/dfopt/dfopt/format"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

func init() {
	register("run", command{
		synopsis: "collect a plan file and print the result (table, csv or json)",
		run:      runRun,
	})
}

func runRun(env *environment, args []string) int {
	fs := newFlagSet("run", "run FILE [--no-opt] [--format table|csv|json] [--tier bounded|standard] [--memory-limit SIZE] [--spill-dir DIR]", env.stderr)
	noOpt := fs.Bool("no-opt", false, "collect the plan as written, without optimizing it")
	format := fs.String("format", "table", "output format: table, csv or json")
	tier := tierFlag(fs)
	memLimit := fs.String("memory-limit", "", "bound the collect's memory (e.g. 512MiB, 2GB; 0 or empty: no limit): joins and aggregates spill to disk, what cannot fails with resource_exhausted")
	spillDir := fs.String("spill-dir", "", "directory for spill files (default: the system's temporary directory)")
	file, doc, status := loadOneFile(env, fs, args, format, "table", "csv", "json")
	if doc == nil {
		return status
	}
	if err := checkTier(*tier); err != nil {
		return fail(env, "run", exitBadArgs, err)
	}
	var opts exec.Options
	if *memLimit != "" {
		limit, err := parseSize(*memLimit)
		if err != nil {
			return fail(env, "run", exitBadArgs, fmt.Errorf("--memory-limit: %w", err))
		}
		opts.MemoryLimit, opts.SpillDir = limit, *spillDir
	}
	root := doc.Plan
	var counters rules.Counters
	if !*noOpt {
		flags, err := fileFlags(doc, *tier)
		if err != nil {
			return fail(env, "run", exitBadArgs, fmt.Errorf("%s: %w", file, err))
		}
		res, err := rules.Optimize(root, flags)
		if err == nil {
			root, counters = res.Plan, res.Counters
		} else if _, isPlanErr := plan.AsError(err); !isPlanErr {
			return fail(env, "run", exitFailed, fmt.Errorf("%s: optimize: %w", file, err))
		}
		// A plan that does not resolve fails the collect below with the
		// same error, reported like any other failed collect.
	}
	result, err := exec.Collect(context.Background(), root, opts)
	if err != nil {
		return reportFailedRun(env, file, *format, root, counters, err)
	}
	defer result.Release()
	switch *format {
	case "table":
		err = dfformat.Table(env.stdout, result)
	case "csv":
		err = dfformat.CSV(env.stdout, result)
	case "json":
		err = dfformat.JSON(env.stdout, result, &counters)
	}
	if err != nil {
		return fail(env, "run", exitFailed, fmt.Errorf("%s: write result: %w", file, err))
	}
	summary := fmt.Sprintf("run: ok file=%s rows=%d columns=%d memo_hits=%d %s", file,
		result.NumRows(), result.Schema.Len(), result.MemoHits, counters)
	if *format == "table" {
		fmt.Fprintln(env.stdout, summary)
	} else {
		fmt.Fprintln(env.stderr, summary)
	}
	return exitOK
}

// reportFailedRun prints a failed collect: as the JSON error object with
// --format json, else as one line on stderr; it exits 1 either way.
func reportFailedRun(env *environment, file, format string, root plan.Node, counters rules.Counters, err error) int {
	if format == "json" {
		var schema plan.Schema
		if resolved, rErr := plan.Resolve(root); rErr == nil {
			schema = resolved.Schema()
		}
		if jErr := dfformat.JSONError(env.stdout, schema, &counters, err); jErr != nil {
			return fail(env, "run", exitFailed, jErr)
		}
	}
	kind := "internal"
	if pe, ok := plan.AsError(err); ok {
		kind = string(pe.Kind)
	}
	fmt.Fprintf(env.stderr, "dfopt run: %s: %v\n", file, err)
	fmt.Fprintf(env.stderr, "run: failed file=%s error=%s\n", file, kind)
	return exitFailed
}
