package main

import (
	"flag"
	"io"
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
