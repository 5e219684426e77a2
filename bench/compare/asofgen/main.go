// Command asofgen writes the as-of benchmark's tables (bench.AsofRecords)
// as Parquet files for bench/compare/asof.js:
//
//	go run ./bench/compare/asofgen -out DIR [-rows 1000000]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/dfopt/dfopt/bench"
)

func main() {
	out := flag.String("out", "", "directory for left.parquet and right.parquet")
	rows := flag.Int("rows", 1_000_000, "rows of each table")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: asofgen -out DIR [-rows N]")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := bench.WriteAsofData(*out, *rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
