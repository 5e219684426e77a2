package plan

import (
	"strings"
	"testing"
)

// TestDepthLimit: plans deeper than MaxDepth, built through the Go API (no
// JSON decoder to stop them), fail to resolve with an error naming the
// limit instead of overflowing the stack; plans at the limit resolve.
func TestDepthLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plans of a million nodes")
	}
	tbl, err := NewTable("t", MustSchema(Field{Name: "a", Type: Int64}), [][]Value{{Int64Value(1)}})
	if err != nil {
		t.Fatal(err)
	}
	deepExpr := func(n int) E {
		e := Col("a")
		for i := 0; i < n; i++ {
			e = e.Add(Lit(1))
		}
		return e
	}
	chain := func(n int) Frame {
		f := Scan(tbl)
		for i := 0; i < n; i++ {
			f = f.Filter(Col("a").Gt(Lit(0)))
		}
		return f
	}
	for _, tc := range []struct {
		name string
		root Node
		want string // "" for success
	}{
		{"expression of 700,000 levels", Scan(tbl).Select(deepExpr(700_000).Alias("x")).Node(), "nests deeper than 200000 levels (plan.MaxDepth)"},
		{"expression of 50,000 levels", Scan(tbl).Select(deepExpr(50_000).Alias("x")).Node(), ""},
		{"chain of 300,000 nodes", chain(300_000).Node(), "the plan nests deeper than 200000 nodes (plan.MaxDepth)"},
		{"chain of 100,000 nodes", chain(100_000).Node(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.root)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("resolve: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("resolve: %v, want an error containing %q", err, tc.want)
			case tc.want != "":
				pe, _ := AsError(err)
				if pe == nil || pe.Kind != InvalidPlan || len(err.Error()) > 4*MaxEcho {
					t.Fatalf("the error is not a short invalid_plan error (%d bytes): %.300s", len(err.Error()), err)
				}
			}
		})
	}
}

// TestSharedSubtreesResolveOnce: a subtree shared by pointer is resolved
// once per Resolve, so 60 nested self-unions (2^60 paths) resolve at once,
// and an expression reused 60 times (2^60 nodes as a tree) is rejected by
// MaxExprNodes instead of being walked forever.
func TestSharedSubtreesResolveOnce(t *testing.T) {
	tbl, err := NewTable("t", MustSchema(Field{Name: "a", Type: Int64}), [][]Value{{Int64Value(1)}})
	if err != nil {
		t.Fatal(err)
	}
	var n Node = Scan(tbl).Filter(Col("a").Gt(Lit(0))).Node()
	for i := 0; i < 60; i++ {
		n = &UnionNode{Inputs: []Node{n, n}}
	}
	r, err := Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	if u := r.(*UnionNode); u.Inputs[0] != u.Inputs[1] {
		t.Error("a shared subtree must stay shared after Resolve")
	}
	e := Col("a")
	for i := 0; i < 60; i++ {
		e = e.Add(e)
	}
	_, err = Resolve(Scan(tbl).Select(e.Alias("x")).Node())
	if err == nil || !strings.Contains(err.Error(), "plan.MaxExprNodes") {
		t.Fatalf("resolve of a 2^60-node expression: %v", err)
	}
}

func TestAbbrev(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijkl", 5, "abcde… (7 more bytes)"},
		{"ééé", 3, "é… (4 more bytes)"}, // cut before a character's second byte
		{"", 0, ""},
	} {
		if got := Abbrev(tc.s, tc.max); got != tc.want {
			t.Errorf("Abbrev(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
	e := &Error{Kind: Overflow, Expr: strings.Repeat("a + ", 10_000) + "a", Node: strings.Repeat("x", 100_000), Row: 3, Msg: "overflow"}
	if n := len(e.Error()); n > 3*MaxEcho {
		t.Errorf("a message echoing a 40 KB expression and a 100 KB label has %d bytes", n)
	}
}

func TestPathFoldsRuns(t *testing.T) {
	var p *Path
	for i := 0; i < 20000; i++ {
		p = p.Child(".input")
	}
	p = p.Index("predicates", 0)
	if got, want := p.String(), "plan.input*20000.predicates[0]"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := p.Tail(4), "plan.…(19997 more).input.input.input.predicates[0]"; got != want {
		t.Errorf("Tail(4) = %q, want %q", got, want)
	}
	var q *Path
	for i := 0; i < 7; i++ { // a run shorter than pathRun is written out
		q = q.Child(".input")
	}
	q = q.Child(".left")
	if got, want := q.String(), "plan"+strings.Repeat(".input", 7)+".left"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := q.Tail(100); got != q.String() {
		t.Errorf("Tail of a short path = %q, want %q", got, q.String())
	}
	if got := (&Path{}).String(); got != "plan" {
		t.Errorf("the zero Path is %q, want plan", got)
	}
}

func TestExplainCapsIndentation(t *testing.T) {
	tbl, err := NewTable("t", MustSchema(Field{Name: "a", Type: Int64}), [][]Value{{Int64Value(1)}})
	if err != nil {
		t.Fatal(err)
	}
	f := Scan(tbl)
	for i := 0; i < 100; i++ {
		f = f.Filter(Col("a").Gt(Lit(i)))
	}
	lines := strings.Split(strings.TrimRight(Explain(f.Node()), "\n"), "\n")
	if len(lines) != 101 {
		t.Fatalf("%d lines, want 101", len(lines))
	}
	want40 := strings.Repeat("  ", 40) + "filter [a > 59]"
	want41 := strings.Repeat("  ", 40) + "[depth 41] filter [a > 58]"
	want100 := strings.Repeat("  ", 40) + "[depth 100] scan t"
	if lines[40] != want40 || lines[41] != want41 || lines[100] != want100 {
		t.Errorf("lines 40, 41, 100:\n%q\n%q\n%q", lines[40], lines[41], lines[100])
	}
}
