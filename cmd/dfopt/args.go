package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/dfopt/dfopt/legality"
)

// parseInterleaved parses flags that may appear before, between or after
// positional arguments ("dfopt explain FILE --why"), which the flag package
// alone does not allow. It returns the positional arguments in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to w.
func newFlagSet(name, usage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		io.WriteString(w, "usage: dfopt "+usage+"\n")
		fs.PrintDefaults()
	}
	return fs
}

// Bounds of the numeric flags. They keep a typo (a sign, a stray digit)
// from starting a campaign of a billion plans or a billion goroutines.
const (
	maxPlans   = 1_000_000_000 // -n of oracle and mutate
	maxWorkers = 1024          // -workers, -parallelism
	maxGenRows = 200           // -rows of oracle and mutate (the generator's limit)
	maxCalls   = 1_000_000_000 // -shrink-calls, -max-shrink
	maxRuns    = 1_000_000     // bench -n
)

// checkInt returns a one-line error naming the flag, its value and the
// allowed range when v is outside [lo, hi], else nil.
func checkInt(name string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("-%s %d: out of range (want %d to %d)", name, v, lo, hi)
	}
	return nil
}

// checkFloat is checkInt for a float flag; NaN is out of every range.
func checkFloat(name string, v, lo, hi float64) error {
	if !(v >= lo && v <= hi) {
		return fmt.Errorf("-%s %v: out of range (want %v to %v)", name, v, lo, hi)
	}
	return nil
}

// checkNonEmpty rejects an empty string flag (a path that must name
// something).
func checkNonEmpty(name, v string) error {
	if v == "" {
		return fmt.Errorf("-%s: empty (want a path)", name)
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// badArgs prints why the command line is wrong, as one line, then the
// command's usage, and returns the bad-usage status.
func badArgs(env *environment, fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(env.stderr, "dfopt %s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return exitBadArgs
}

// checkCells rejects a legality cell name the default table does not have.
func checkCells(name string, cells []legality.CellID) error {
	for _, id := range cells {
		if _, err := legality.Default().Flipped(id); err != nil {
			return fmt.Errorf("-%s: no cell %q (dfopt legality lists the cells)", name, id)
		}
	}
	return nil
}
