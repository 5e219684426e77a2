// Package planutil holds the plan-editing helpers shared by the generator
// (proptest/internal/gen) and the shrinker (proptest): reading and replacing
// a node's expression lists, subexpressions and subtrees, rebinding scans,
// resolving a user-written plan node by node, expression constructors, and
// the value ranks shrinking uses.
package planutil
