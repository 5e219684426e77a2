package main

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
)

func init() {
	register("legality", command{
		synopsis: "print the legality table (--markdown: the page docs/legality.md)",
		run:      runLegality,
	})
}

func runLegality(env *environment, args []string) int {
	fs := newFlagSet("legality", "legality [--markdown]", env.stderr)
	markdown := fs.Bool("markdown", false, "render docs/legality.md")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadArgs
	}
	if len(rest) != 0 {
		return badArgs(env, fs, "unexpected argument %q (legality reads no file)", rest[0])
	}
	table := legality.Default()
	if *markdown {
		fmt.Fprint(env.stdout, legality.Markdown(table))
		fmt.Fprintf(env.stderr, "legality: ok cells=%d\n", len(table.Cells()))
		return exitOK
	}
	for _, c := range table.Cells() {
		fmt.Fprintf(env.stdout, "%-24s %-20s %-14s %-10s %s\n", c.ID, c.Rule, c.Node, table.Verdict(c.ID), c.Reason)
	}
	fmt.Fprintf(env.stdout, "legality: ok cells=%d\n", len(table.Cells()))
	return exitOK
}
