// Package parquet is dfopt's Parquet source: a Parquet file as a plan
// source the executor scans (Open, OpenFile, Source). It is a source like
// a host's — it implements exec.Source and imports exec, and the executor
// never imports it — so it lives beside the executor, not inside it.
//
// A scan decodes only the requested columns, straight from the column
// chunks into one contiguous Arrow array per column, row groups and
// columns in parallel (read.go); it skips the row groups whose min/max and
// null-count statistics refute a pushed Inexact conjunct (prune.go), tests
// those conjuncts row by row on the columns they read before it decodes
// the other columns, and then only for the rows that pass (late
// materialization, late.go), stops
// after the row groups a max-rows hint needs, verifies the page checksums
// of the chunks it decodes (checksum.go), and states the columns' facts
// from the statistics (facts.go). ScanAll reads a file through arrow-go's
// own reader instead, for the eager chain (scanall.go). WriteTable writes
// a plan.Table with statistics and page checksums, and AddPageChecksums
// adds the checksums to a file arrow-go wrote (checksum_write.go): the
// tests, the generators and the benchmark data use them.
//
// Errors opening a file are *plan.Error of kind source_error naming the
// source and the file; a scan's errors name the file, and the executor
// reports them as source_error naming the source.
package parquet
