// Package bench is dfopt's reproducible benchmark harness: a deterministic
// data generator (Generate), the benchmark queries (the plan files in
// bench/queries), and a runner (Load, Run) that times optimize+collect per
// query and checksums the results, for the `dfopt gen-bench` and
// `dfopt bench` commands and for the package's Go benchmarks.
//
// # The data
//
// Every value is a pure function of the row index i, so any engine can
// regenerate exactly the same tables (docs/performance.md gives the
// formulas; other engines' published figures depend on them):
//
//	h32(x)  = lowbias32 on uint32
//	u(i, c) = h32(h32(i) + c*0x9e3779b9)        (uint32 arithmetic)
//
//	t: id = i; k = i*7919 mod 1000; a = u(i,0) mod 2000001 - 1000000;
//	   b = null if u(i,1) mod 100 == 0 else u(i,2)/2^32*2000 - 1000;
//	   s = "s" + (u(i,3) mod 100); f0..f11 = u(i,4+j)/2^32
//	d: k = 0..999, name = "n" + k
//
// Generate writes t.parquet (row groups of RowGroup rows, snappy,
// statistics) and d.parquet. Row groups are generated in parallel and written
// in order, so the files are byte-for-byte deterministic.
//
// # The runner
//
// Load decodes plan files, opening their Parquet tables either as Parquet
// sources that every collect reads again, or (Options.Memory) read once
// into one in-memory Arrow batch per file. Measure runs a query once as a
// warm-up and then Options.Runs times, each run timing rules.Optimize and
// exec.Collect together (and the optimize step on its own), and checksums the
// warm-up's result (Checksum). Run does both for a list of files.
package bench
