package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan/planjson"
)

// loadFile decodes a plan file, opening its Parquet tables through the
// executor. Errors name the file and the JSON path at fault.
func loadFile(path string) (*planjson.Document, error) {
	return planjson.DecodeFile(path, planjson.Options{OpenParquet: parquet.Open})
}

// loadOneFile starts a command that reads exactly one plan file and prints
// it in one of formats (the --format flag, bound to format): it parses args
// with fs, printing the usage unless there is one file, checks the format
// and loads the file. When the command must stop, it has printed why and
// returns a nil document and the exit status.
func loadOneFile(env *environment, fs *flag.FlagSet, args []string, format *string, formats ...string) (file string, doc *planjson.Document, status int) {
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return "", nil, exitBadArgs
	}
	if len(files) != 1 {
		return "", nil, badArgs(env, fs, "want exactly one FILE, got %d", len(files))
	}
	if !slices.Contains(formats, *format) {
		last := len(formats) - 1
		want := strings.Join(formats[:last], ", ") + " or " + formats[last]
		return "", nil, fail(env, fs.Name(), exitBadArgs, fmt.Errorf("--format %q: want %s", *format, want))
	}
	file = files[0]
	doc, err = loadFile(file)
	if err != nil {
		return "", nil, fail(env, fs.Name(), exitBadArgs, err)
	}
	return file, doc, exitOK
}
