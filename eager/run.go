package eager

import (
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// runner is the state of one evaluation of a resolved tree: the frames
// bound to its input placeholders (a DataFrame method's step, whose tree
// holds no other scan) or the in-memory tables converted so far (FromPlan,
// which releases them).
type runner struct {
	inputs []*DataFrame
	tables *step.Tables
}

// run evaluates a resolved tree: children in order, left before right, then
// the node, through step.Eval (a scan reads its source here). Every node's
// output is materialized into a new frame at once, and every intermediate
// frame is released once its parent has run. There is no memo: a subtree
// that appears twice is evaluated twice. Errors name the node at fault.
func (s *Session) run(n plan.Node, r *runner) (*DataFrame, error) {
	out, err := s.runNode(n, r)
	if err != nil {
		return nil, step.Locate(err, step.Label(n), "")
	}
	return out, nil
}

func (s *Session) runNode(n plan.Node, r *runner) (*DataFrame, error) {
	if err := s.env.CheckCtx(); err != nil {
		return nil, err
	}
	if sn, ok := n.(*plan.ScanNode); ok {
		return s.scanNode(sn, r)
	}
	children := n.Children()
	kids := make([]*DataFrame, 0, len(children))
	defer func() { releaseFrames(kids) }()
	for _, c := range children {
		f, err := s.run(c, r)
		if err != nil {
			return nil, err
		}
		kids = append(kids, f)
	}
	if err := s.env.CheckCtx(); err != nil {
		return nil, err
	}
	ins := make([]*step.Frame, 0, len(kids))
	defer func() { step.ReleaseFrames(ins) }()
	for _, k := range kids {
		f, err := s.env.FromRecord(k.schema, k.rec)
		if err != nil {
			return nil, err
		}
		ins = append(ins, f)
	}
	out, err := step.Eval(s.env, n, ins)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return s.materialize(out)
}

// materialize turns a node's output into a frame with one compact record.
func (s *Session) materialize(f *step.Frame) (*DataFrame, error) {
	rec, err := s.env.Materialize(f)
	if err != nil {
		return nil, err
	}
	return &DataFrame{s: s, schema: f.Schema(), rec: rec}, nil
}

// releaseFrames releases every non-nil frame.
func releaseFrames(fs []*DataFrame) {
	for _, f := range fs {
		f.Release()
	}
}
