package main

import (
	"context"
	"fmt"

	"github.com/dfopt/dfopt/oracle"
)

func init() {
	register("check", command{
		synopsis: "run the three-way oracle on plan files (exit 1 on a divergence or unmet expect)",
		run:      runCheck,
	})
}

// runCheck checks each file: one line per file on stdout ("ok FILE",
// "DIVERGENCE FILE: ...", "UNMET FILE: ...", "ERROR FILE: ..."), the full
// report of every failing file on stderr, and a summary line last.
func runCheck(env *environment, args []string) int {
	fs := newFlagSet("check", "check FILE... [--tier bounded|standard]", env.stderr)
	tier := tierFlag(fs)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if err := checkTier(*tier); err != nil {
		return fail(env, "check", exitBadArgs, err)
	}
	if len(files) == 0 {
		return badArgs(env, fs, "want at least one FILE")
	}
	var ok, divergent, unmet, bad int
	for _, file := range files {
		doc, err := loadFile(file)
		if err != nil {
			bad++
			fmt.Fprintf(env.stdout, "ERROR %s: %v\n", file, err)
			continue
		}
		if *tier != "" {
			doc.Tier = *tier
		}
		rep, err := oracle.CheckDocument(context.Background(), doc)
		if err != nil {
			bad++
			fmt.Fprintf(env.stdout, "ERROR %s: %v\n", file, err)
			continue
		}
		rep.Name = file
		fmt.Fprintln(env.stdout, rep.Summary())
		switch {
		case len(rep.Divergences) > 0:
			divergent++
		case len(rep.Unmet) > 0:
			unmet++
		default:
			ok++
			continue
		}
		fmt.Fprintf(env.stderr, "---- %s\n%s", file, rep.String())
	}
	status := "ok"
	code := exitOK
	switch {
	case divergent > 0 || unmet > 0:
		status, code = "failed", exitFailed
	case bad > 0:
		status, code = "failed", exitBadArgs
	}
	fmt.Fprintf(env.stdout, "check: %s files=%d ok=%d divergent=%d unmet=%d unreadable=%d\n",
		status, len(files), ok, divergent, unmet, bad)
	return code
}
