package plan

import "testing"

// TestOriginsInIdentity: an expression that stands in for another differs,
// in equality and in fingerprint, from the same expression without that
// origin, so shared-subplan detection never merges two subtrees whose
// errors would name different texts.
func TestOriginsInIdentity(t *testing.T) {
	a := Col("a").Add(Col("b")).Expr()
	x := (&Call{Fn: FuncAdd, Args: []Expr{WithOrigin(Col("a").Expr(), Col("x").Expr()), Col("b").Expr()}})
	if ExprEqual(a, x) || ExprFingerprint(a) == ExprFingerprint(x) {
		t.Errorf("%s and %s (written %s): equal=%v, same fingerprint=%v", a, x, Written(x), ExprEqual(a, x), ExprFingerprint(a) == ExprFingerprint(x))
	}
	y := (&Call{Fn: FuncAdd, Args: []Expr{WithOrigin(Col("a").Expr(), Col("x").Expr()), Col("b").Expr()}})
	if !ExprEqual(x, y) || ExprFingerprint(x) != ExprFingerprint(y) {
		t.Error("two equal expressions with equal origins differ")
	}
	if Written(x) != "x + b" || x.String() != "a + b" {
		t.Errorf("written %q, canonical %q", Written(x), x.String())
	}
}
