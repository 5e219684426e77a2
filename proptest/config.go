package proptest

import "github.com/dfopt/dfopt/proptest/internal/gen"

// Config bounds what Generate produces. The zero value means "the defaults"
// field by field, so Config{MaxRows: 16} is a valid configuration:
//   - MaxRows: rows per table (0: 64; at most 200; negative: empty tables
//     only). Row counts are skewed small: about 8% of tables are empty and a
//     fifth hold one to three rows.
//   - MaxTables: source tables (0: 3; 1 to 3). MaxColumns: columns per table
//     (0: 8; 1 to 8).
//   - MaxDepth: nodes above a scan on the longest path (0: 10; at most 16;
//     negative: bare scans, plus the broken node of an ill-typed case).
//   - MaxNodes: a soft bound on the operators above the scans (0: 24;
//     negative: none).
//   - MaxExprDepth: expression nesting (0: 3; at most 6; negative: leaves).
//   - MaxJoinRows: the worst-case output of a join; larger inputs get a limit
//     (0: 4096).
//   - IllTypedShare: the probability of a deliberately ill-typed case (0:
//     0.05; negative: none).
//   - TwinShare: the probability that a shared-subtree shape pairs its
//     subtree with a twin over same-name tables of other values, a
//     fingerprint collision (0 and negative: none; such cases cannot be
//     written as plan files).
//
// A Case records its normalized Config (negative "none" values kept as -1),
// and Generate(c.Seed, c.Config) replays it.
type Config = gen.Config

// DefaultConfig returns the campaign defaults: up to 64 rows, 3 tables, 8
// columns, depth 10, 24 operators, expressions nested 3 deep, joins of at
// most 4096 rows, 5% ill-typed cases.
func DefaultConfig() Config { return gen.DefaultConfig() }
