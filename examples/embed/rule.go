package main

import (
	"fmt"

	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

// This file is the host's own optimizer rule, registered next to dfopt's
// built-in ones: the flags, the trace, the counters, the legality table,
// the oracle, the mutation campaign and bisection treat it exactly like
// them (docs/embedding.md, "Your own rules").

// The host rule's names: its rule (and flag), its counter and its cell.
const (
	ruleIdentityBucket   = "identity_bucket"
	counterFoldedBuckets = "foldedBuckets"
	cellBucketWidthOne   = legality.CellID("ib.width_one")
)

// identityBucket is a local rule: a Bucket of width 1 copies its column
// (floor(v / 1) = v, null stays null), so it becomes
// with_columns(col as bucket), a node every built-in rule understands —
// filters cross it, pruning drops it when nothing reads bucket, projection
// fusion inlines it — where a host operator stops most of them. It runs
// before predicate_pushdown, so that they all see the with_columns.
//
// Its one cell, ib.width_one, allows only width 1 over a nullable column:
// Bucket(qty, 5) is not a copy (7 goes to 1), and over a non-nullable
// column the copy would not be nullable where bucket is (the schema guard
// would stop the rule). Flipping the cell makes the rule fold every
// Bucket: the oracle sees the wrong values (TestMutationKillsHostCell).
func identityBucket() rules.Rule {
	return rules.Rule{
		Name:        ruleIdentityBucket,
		Doc:         "replaces a Bucket of width 1, a copy of its column, by a with_columns the built-in rules can push through, prune and inline",
		Counters:    []rules.CounterDef{{Name: counterFoldedBuckets}},
		Verbs:       rules.Verbs{Verb: rules.Verb{Allowed: "folded", Refused: "kept"}},
		Application: "one Bucket replaced by a with_columns",
		Before:      rules.FlagPredicatePushdown,
		Matches:     []plan.Kind{plan.KindExtension},
		Cells: []legality.Cell{{
			ID: cellBucketWidthOne, Rule: ruleIdentityBucket, Node: "extension bucket", Verdict: legality.CrossesIf,
			Condition: "the width is 1 and the bucketed column is nullable: floor(v / 1) = v, null stays null, and with_columns(col as bucket) has Bucket's schema",
			Reason:    "bucket(qty, 5) is not a copy of qty: qty = 7 goes to bucket 1, not 7",
		}},
		Local: foldIdentityBucket,
	}
}

// foldIdentityBucket is identityBucket's rewrite of one node.
func foldIdentityBucket(c *rules.Context, n plan.Node, at *plan.Path) (plan.Node, error) {
	x, ok := n.(*plan.ExtensionNode)
	if !ok || len(x.Inputs) != 1 {
		return n, nil
	}
	k, ok := bucketParams(x.Def)
	if !ok {
		return n, nil // another operator: not ours to judge
	}
	input := x.Inputs[0]
	d := c.Decide(cellBucketWidthOne, func() (bool, string) {
		if k.width != 1 {
			return false, fmt.Sprintf("the width is %d", k.width)
		}
		if f, ok := input.Schema().Lookup(k.col); !ok || !f.Nullable {
			return false, fmt.Sprintf("%s is not a nullable column of the input", k.col)
		}
		return true, ""
	})
	if !c.Apply(d, n, at, nil) {
		return n, nil
	}
	c.Count(counterFoldedBuckets, 1)
	return &plan.WithColumnsNode{Input: input, Exprs: []plan.Expr{&plan.Alias{Expr: &plan.Column{Name: k.col}, Name: "bucket"}}}, nil
}

// bucketParams returns the parameters of a Bucket declaration (bucketDef),
// and false for any other operator.
func bucketParams(d *plan.ExtensionDef) (bucketKey, bool) {
	bucketMu.Lock()
	defer bucketMu.Unlock()
	k, ok := bucketOf[d]
	return k, ok
}

// Registry returns the rules the host optimizes with: dfopt's built-in
// rules and its own. A registry is a value: nothing global changes, and
// another embedding in the same process keeps its own rules.
func Registry() (*rules.Registry, error) {
	reg, err := rules.Builtin().With(identityBucket())
	if err != nil {
		return nil, fmt.Errorf("the host's rules: %w", err)
	}
	return reg, nil
}
