package plan

// OwnedWindow returns the window node n owns: the *WindowNode directly
// under a project or with_columns. Resolve synthesizes a window under the
// project or with_columns that uses over() and accepts a window node nowhere
// else (not under any other node, not at the root), so in a resolved plan
// every window has exactly one owner, the node directly above it. The owner
// reads the window's temporary columns; a with_columns owner does not pass
// them through. The optimizer never separates the two: a window is always
// moved, crossed or kept together with its owner.
func OwnedWindow(n Node) (*WindowNode, bool) {
	var in Node
	switch n := n.(type) {
	case *ProjectNode:
		if n == nil {
			return nil, false
		}
		in = n.Input
	case *WithColumnsNode:
		if n == nil {
			return nil, false
		}
		in = n.Input
	default:
		return nil, false
	}
	w, ok := in.(*WindowNode)
	if !ok || w == nil {
		return nil, false
	}
	return w, true
}

// canOwnWindow reports whether n is a node kind a window node may sit
// directly under.
func canOwnWindow(n Node) bool {
	switch n.(type) {
	case *ProjectNode, *WithColumnsNode:
		return true
	}
	return false
}

// strayWindow is the error for a window node that is not directly under a
// project or with_columns; where names what it is under ("the root", "a
// filter").
func strayWindow(w Node, p *Path, where string) error {
	return &Error{Kind: InvalidPlan, Row: -1, Node: w.Label(), Path: p.String(),
		Msg: "window: a window node must sit directly under the project or with_columns that owns it " +
			"(Resolve synthesizes it from over()); found at " + where}
}
