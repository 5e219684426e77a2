package main

// Running dfopt's differential oracle against the host's own executor. This
// is a test file: the oracle compares the host with dfopt's eager chain,
// which is built on Arrow, so the oracle enters the host's test binary only;
// the embedding itself (the package without its tests) imports neither
// Arrow nor dfopt's executor. docs/embedding.md shows this code.

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan"
)

// hostExecutor runs dfopt plans on the host's interpreter: the oracle's
// optimized and unoptimized ways then run on the host, and the third way,
// dfopt's eager chain, is the reference.
type hostExecutor struct{}

// Name identifies the executor in reports.
func (hostExecutor) Name() string { return "host" }

// Collect maps the plan to the host's, runs it and returns the result as an
// oracle.Outcome: the resolved plan's schema (names, types, nullability)
// and the values as plan.Values. Failures must be *plan.Error values:
// resolve errors as Resolve returns them, and the host's evaluation errors
// with dfopt's kind and the failing expression's text.
func (hostExecutor) Collect(_ context.Context, root plan.Node) (oracle.Outcome, error) {
	resolved, err := plan.Resolve(root)
	if err != nil {
		return oracle.Outcome{}, err
	}
	host, err := FromDfopt(resolved)
	if err != nil {
		return oracle.Outcome{}, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: err.Error()}
	}
	res, err := Run(host)
	if err != nil {
		var he *HostError
		if errors.As(err, &he) {
			return oracle.Outcome{}, &plan.Error{Kind: plan.ErrorKind(he.Kind), Expr: he.Expr, Row: -1, Msg: he.Error()}
		}
		return oracle.Outcome{}, &plan.Error{Kind: plan.InvalidPlan, Row: -1, Msg: err.Error()}
	}
	schema := resolved.Schema()
	out := oracle.Outcome{Schema: schema, Rows: len(res.Rows), Columns: make([][]plan.Value, schema.Len()), MemoHits: -1}
	for i, f := range schema.Fields() {
		out.Columns[i] = make([]plan.Value, len(res.Rows))
		for r, row := range res.Rows {
			out.Columns[i][r] = planValue(f.Type, row[f.Name])
		}
	}
	return out, nil
}

// planValue converts a host value to a dfopt value of type t.
func planValue(t plan.Type, v any) plan.Value {
	switch v := v.(type) {
	case int64:
		if t == plan.Float64 {
			return plan.Float64Value(float64(v))
		}
		return plan.Int64Value(v)
	case float64:
		return plan.Float64Value(v)
	case string:
		return plan.StringValue(v)
	case bool:
		return plan.BoolValue(v)
	}
	return plan.NullValue(t)
}

// TestOracleAgainstHostExecutor checks a few plans three ways: optimized on
// the host, unoptimized on the host, and dfopt's eager chain, bit for bit,
// errors included. The data is a dfopt plan.Table, which both the host and
// the eager chain read.
func TestOracleAgainstHostExecutor(t *testing.T) {
	schema := plan.MustSchema(
		plan.Field{Name: "id", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "qty", Type: plan.Int64, Nullable: true},
		plan.Field{Name: "price", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "who", Type: plan.String, Nullable: true},
	)
	i, f, s, null := plan.Int64Value, plan.Float64Value, plan.StringValue, plan.NullValue
	tbl, err := plan.NewTable("orders", schema, [][]plan.Value{
		{i(1), i(2), i(3), i(4), i(5)},
		{i(3), i(0), null(plan.Int64), i(math.MaxInt64), i(-7)},
		{f(9.5), f(math.Copysign(0, -1)), f(math.NaN()), f(0), f(math.Inf(1))},
		{s("ada"), s(""), null(plan.String), s("bob"), s("ada")},
	})
	if err != nil {
		t.Fatal(err)
	}
	orders := plan.Scan(tbl)
	col, lit := plan.Col, plan.Lit
	for _, c := range []oracle.Case{
		{Name: "pushdown through a total with_columns",
			Plan: orders.WithColumns(col("who").Alias("w")).Filter(col("qty").Gt(lit(0))).Select(col("id"), col("w")).Node()},
		{Name: "sort by a float column with -0.0 and NaN, head",
			Plan: orders.Sort(plan.Desc(col("price"))).Head(4).Node()},
		{Name: "overflow in a computed column the filter would have removed",
			Plan: orders.WithColumns(col("qty").Add(lit(1)).Alias("next")).Filter(col("qty").Lt(lit(100))).Node()},
		{Name: "divide by zero",
			Plan: orders.Select(col("id"), col("id").Div(col("qty")).Alias("r")).Node()},
		{Name: "projection pruning and fusion",
			Plan: orders.WithColumns(col("price").Mul(lit(2.0)).Alias("p2")).Select(col("p2")).Node()},
	} {
		c.Executor = hostExecutor{}
		r := oracle.Check(context.Background(), c)
		if !r.Agree() {
			t.Errorf("%s", r)
			continue
		}
		t.Log(r.Summary())
	}
}
