package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"time"

	"github.com/dfopt/dfopt/bench/tpch"
)

func init() {
	register("gen-tpch", command{
		synopsis: "generate the eight TPC-H tables as Parquet with go-tpc's dbgen (deterministic)",
		run:      runGenTpch,
	})
}

// genTpchChildEnv marks the child process gen-tpch runs the generation in.
// go-tpc's dbgen can generate once per process (tpch.ErrAlreadyGenerated)
// and prints to os.Stdout, so the command re-executes itself with this
// variable set and passes the child's output through.
const genTpchChildEnv = "DFOPT_GEN_TPCH_CHILD"

func runGenTpch(env *environment, args []string) int {
	fs := newFlagSet("gen-tpch", "gen-tpch [-sf N] [-rowgroup R] -out DIR", env.stderr)
	sf := fs.String("sf", "1", "scale factor: an integer from 1, or a multiple of 0.001 below 1")
	rowGroup := fs.Int64("rowgroup", tpch.DefaultRowGroup, "rows per Parquet row group")
	out := fs.String("out", "", "directory to write region.parquet ... lineitem.parquet into (created if missing)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(pos) != 0 {
		return badArgs(env, fs, "unexpected argument %q (the directory goes after -out)", pos[0])
	}
	if *out == "" {
		return badArgs(env, fs, "-out DIR is required")
	}
	scale, err := tpch.ParseScale(*sf)
	if err != nil {
		return fail(env, "gen-tpch", exitBadArgs, fmt.Errorf("-sf: %w", err))
	}
	if err := checkInt("rowgroup", *rowGroup, 1, 1<<32); err != nil {
		return fail(env, "gen-tpch", exitBadArgs, err)
	}
	if os.Getenv(genTpchChildEnv) != "1" {
		return genTpchInChild(env, args)
	}
	start := time.Now()
	res, err := tpch.Generate(context.Background(), *out, tpch.GenOptions{Scale: scale, RowGroup: *rowGroup, Progress: env.stdout})
	if err != nil {
		fmt.Fprintf(env.stderr, "dfopt gen-tpch: %v\n", err)
		fmt.Fprintf(env.stderr, "gen-tpch: failed out=%s\n", *out)
		return exitFailed
	}
	fmt.Fprintf(env.stdout, "gen-tpch: ok out=%s sf=%s rows=%d rowgroup=%d counts=checked seconds=%.3f\n",
		*out, scale, res.Rows(), *rowGroup, time.Since(start).Seconds())
	return exitOK
}

// genTpchInChild runs "gen-tpch args" in a new process of this executable
// and returns its exit status.
func genTpchInChild(env *environment, args []string) int {
	exe, err := os.Executable()
	if err != nil {
		return fail(env, "gen-tpch", exitFailed, fmt.Errorf("cannot find this executable to run the generator in a new process: %w", err))
	}
	cmd := osexec.Command(exe, append([]string{"gen-tpch"}, args...)...)
	cmd.Env = append(os.Environ(), genTpchChildEnv+"=1")
	cmd.Stdout, cmd.Stderr = env.stdout, env.stderr
	err = cmd.Run()
	var exit *osexec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	default:
		return fail(env, "gen-tpch", exitFailed, fmt.Errorf("generator process: %w", err))
	}
}
