// Package gen is the engine of proptest's case generator: seeded random
// tables with adversarial data, type-directed expressions, plans built from
// node moves and legality-cell templates, and the ill-typed corruptions.
// Package proptest wraps it (proptest.Generate, proptest.Config); the
// package comment there describes what is generated and why.
package gen
