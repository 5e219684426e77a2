// Command embed is a worked embedding of dfopt's optimizer in a host query
// engine that has its own plan types and its own row-at-a-time interpreter
// (host.go), and no Arrow and no dfopt executor anywhere: the host maps its
// plan to dfopt's (convert.go), optimizes it with chosen flags and a rule of
// its own (rule.go), reads the counters and the trace, maps the optimized
// plan back, and runs it.
//
//	go run ./examples/embed
//
// docs/embedding.md walks through the same steps.
package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/dfopt/dfopt/rules"
)

func main() {
	if err := demo(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// orders is the host's example table.
func orders() *Table {
	return &Table{
		TableName: "orders",
		Columns: []Column{
			{"id", IntCol}, {"customer", StringCol}, {"qty", IntCol}, {"price", FloatCol}, {"rush", BoolCol},
		},
		Rows: []Row{
			{"id": int64(1), "customer": "ada", "qty": int64(3), "price": 9.5, "rush": true},
			{"id": int64(2), "customer": "bob", "qty": int64(0), "price": 20.0, "rush": false},
			{"id": int64(3), "customer": "ada", "qty": int64(12), "price": 1.25, "rush": nil},
			{"id": int64(4), "customer": nil, "qty": int64(7), "price": 3.0, "rush": true},
			{"id": int64(5), "customer": "cy", "qty": nil, "price": 4.5, "rush": false},
		},
	}
}

// query is the host's plan: bucket quantities, copy a column, keep the
// bigger orders, then one customer's, newest first, top 3, with a computed
// total.
func query(t *Table) Node {
	var n Node = Scan{Table: t}
	n = Bucket{Input: n, Col: "qty", Width: 5}
	n = Extend{Input: n, Assign: []Item{{"who", Ref("customer")}}}
	n = Where{Input: n, Preds: []Expr{Bin{">", Ref("qty"), Const{int64(2)}}, Bin{"<", Ref("id"), Const{int64(100)}}}}
	n = Where{Input: n, Preds: []Expr{Bin{"=", Ref("customer"), Const{"ada"}}}}
	n = OrderBy{Input: n, Col: "id", Desc: true}
	n = Take{Input: n, N: 3}
	return Project{Input: n, Items: []Item{{"id", Ref("id")}, {"total", Bin{"*", Ref("price"), Ref("qty")}}, {"bucket", Ref("bucket")}}}
}

// demo runs the embedding end to end and writes what happens to w.
func demo(w io.Writer) error {
	host := query(orders())
	fmt.Fprintf(w, "host plan:\n%s\n", Explain(host))

	// 1. Map the host plan to dfopt's.
	in, err := ToDfopt(host)
	if err != nil {
		return err
	}
	// 2. Optimize with chosen flags: every rule and arm — dfopt's and the
	// host's own (rule.go) — Verify on.
	reg, err := Registry()
	if err != nil {
		return err
	}
	flags := reg.DefaultFlags()
	flags.Verify = true
	res, err := rules.Optimize(in, flags)
	if err != nil {
		return err
	}
	// 3. Read what the optimizer did: counters, and the trace (every rewrite
	// and refusal with the legality cell that decided).
	fmt.Fprintf(w, "counters: %s\n", res.Counters)
	fmt.Fprintf(w, "why:\n")
	for _, line := range rules.WhyLines(res) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	// 4. Map the optimized plan back, with the scan's narrowed columns and
	// the conjuncts the storage accepted.
	opt, err := FromDfopt(res.Plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\noptimized host plan:\n%s\n", Explain(opt))

	// 5. Run both on the host's own interpreter: same result.
	if err := compare(w, host, opt); err != nil {
		return err
	}

	// 6. The host's own rule at work: a Bucket of width 1 is a copy of its
	// column, so it becomes a with_columns, which projection fusion inlines
	// and pruning then drops from the scan.
	copyPlan := Project{Input: Bucket{Input: Scan{Table: orders()}, Col: "qty", Width: 1},
		Items: []Item{{"id", Ref("id")}, {"bucket", Ref("bucket")}}}
	fmt.Fprintf(w, "\nhost plan:\n%s\n", Explain(copyPlan))
	in, err = ToDfopt(copyPlan)
	if err != nil {
		return err
	}
	if res, err = rules.Optimize(in, flags); err != nil {
		return err
	}
	fmt.Fprintf(w, "counters: %s\nwhy:\n", res.Counters)
	for _, line := range rules.WhyLines(res) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if opt, err = FromDfopt(res.Plan); err != nil {
		return err
	}
	fmt.Fprintf(w, "\noptimized host plan:\n%s\n", Explain(opt))
	return compare(w, copyPlan, opt)
}

// compare runs a host plan and its optimized version on the host's
// interpreter, prints the result and fails unless both give it.
func compare(w io.Writer, host, opt Node) error {
	want, err := Run(host)
	if err != nil {
		return err
	}
	got, err := Run(opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "result %v:\n", got.Cols)
	for _, r := range got.Rows {
		fmt.Fprint(w, " ")
		for _, c := range got.Cols {
			fmt.Fprintf(w, " %v", r[c])
		}
		fmt.Fprintln(w)
	}
	if render(got) != render(want) {
		return fmt.Errorf("the optimized plan gave\n%s\nthe host plan\n%s", render(got), render(want))
	}
	fmt.Fprintln(w, "same result as the unoptimized host plan")
	return nil
}

// render prints a result canonically (floats by their bits, so NaN and
// -0.0 count), for comparisons.
func render(r Result) string {
	s := fmt.Sprint(r.Cols, "\n")
	for _, row := range r.Rows {
		for _, c := range r.Cols {
			switch v := row[c].(type) {
			case float64:
				s += fmt.Sprintf("f%016x ", math.Float64bits(v))
			case nil:
				s += "null "
			default:
				s += fmt.Sprintf("%T:%v ", v, v)
			}
		}
		s += "\n"
	}
	return s
}
