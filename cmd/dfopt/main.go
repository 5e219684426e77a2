// Command dfopt runs, explains, checks and stress-tests dataframe plans
// written in the dfopt-plan/1 format (docs/plan-format.md).
//
// Usage:
//
//	dfopt run FILE [--no-opt] [--format table|csv|json]
//	dfopt explain FILE [--raw] [--why] [--format text|dot|json]
//	dfopt check FILE...
//	dfopt oracle [-n N] [-seed S] [-workers W] [-shard K/N] [-out DIR]
//	dfopt bisect FILE
//	dfopt mutate [-n N] [-seed S] [--markdown]
//	dfopt legality [--markdown]
//	dfopt gen-bench [-rows N] [-rowgroup R] -out DIR
//	dfopt gen-tpch [-sf N] [-rowgroup R] -out DIR
//	dfopt bench FILE... [-n 5] [--no-opt] [--memory] [--flags ...]
//
// Every command ends with a one-line summary a script can parse (on stderr
// when stdout carries machine-readable output). Exit status: 0 success, 1 a
// failed collect, divergence or unmet expectation, 2 bad usage or bad input.
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// command is one subcommand: its one-line synopsis and its body, which
// returns the process exit status.
type command struct {
	synopsis string
	run      func(env *environment, args []string) int
}

// environment is what a command may touch: its streams. Tests substitute
// buffers.
type environment struct {
	stdout, stderr io.Writer
}

var commands = map[string]command{}

func register(name string, c command) { commands[name] = c }

func main() {
	os.Exit(dispatch(&environment{stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailed  = 1 // a failed collect, a divergence, an unmet expectation
	exitBadArgs = 2 // bad usage or unreadable input
)

func dispatch(env *environment, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.stderr)
		if len(args) == 0 {
			return exitBadArgs
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "dfopt: unknown command %q\n", args[0])
		usage(env.stderr)
		return exitBadArgs
	}
	return c.run(env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dfopt <command> [arguments]")
	fmt.Fprintln(w, "commands:")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].synopsis)
	}
	fmt.Fprintln(w, "run 'dfopt <command> -h' for a command's flags")
}

// fail prints a one-line error (the file, node and field are in err) and
// returns status.
func fail(env *environment, cmd string, status int, err error) int {
	msg := strings.TrimSpace(err.Error())
	fmt.Fprintf(env.stderr, "dfopt %s: %s\n", cmd, msg)
	return status
}
