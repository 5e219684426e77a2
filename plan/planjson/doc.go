// Package planjson reads and writes dfopt-plan/1, the JSON plan file format
// shared by the command-line tool, the oracle's regression corpus and the
// documentation (docs/design.md §9; the full reference is docs/plan-format.md).
//
// A plan file is one JSON object:
//
//	{
//	  "format": "dfopt-plan/1",
//	  "tables": {"t": {"columns": [{"name": "a", "type": "int64", "values": [1, null, 3]}]}},
//	  "plan":   {"op": "filter", "input": {"op": "scan", "table": "t"},
//	             "predicates": [{"fn": "gt", "args": [{"col": "a"}, {"lit": 1, "type": "int64"}]}]},
//	  "flags":  {"predicate_pushdown": true},
//	  "expect": {"counters": {"pushedFilters": 0}, "error": null}
//	}
//
// Decode turns such a file into a Document whose Plan is an unresolved
// plan.Node built from the plan package's own types (scans reference their
// table's plan.Source), so a decoded plan can be resolved, optimized and
// explained without this package. Encode writes a Document back. The two are
// inverse up to what the format deliberately does not keep (NaN payloads,
// see Encode), and the package's property test checks exactly that.
//
// Why a hand-written reader instead of encoding/json struct tags: every
// error must name the JSON path at fault ("plan.input.predicates[1].args[0]:
// unknown function \"gtt\"") and its line and column, unknown and
// duplicate fields must be rejected (a typo must never be silently ignored),
// int64 values must survive beyond ±2^53, and float specials must be spelled
// as strings. The JSON parser underneath is ours too: decoding through
// encoding/json's token stream, which it replaced, took about 4x as long
// and hides offsets. A fuzz target checks the parser against encoding/json.
//
// The package imports neither Arrow nor the executor: a Parquet table is
// opened through Options.OpenParquet, which the executor supplies.
package planjson
