package main

// Running dfopt's differential oracle against the host's own executor. This
// is a test file: the oracle compares the host with dfopt's eager chain,
// which is built on Arrow, so the oracle enters the host's test binary only;
// the embedding itself (the package without its tests) imports neither
// Arrow nor dfopt's executor. docs/embedding.md shows this code.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dfopt/dfopt/eager"
	"github.com/dfopt/dfopt/legality"
	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/proptest"
	"github.com/dfopt/dfopt/reference"
	"github.com/dfopt/dfopt/rules"
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

// ordersTable is the test data: every edge value the oracle cares about
// (null, -0.0, NaN, Inf, MaxInt64, negative ints, empty strings).
func ordersTable(t *testing.T) *plan.Table {
	t.Helper()
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
	return tbl
}

// TestOracleAgainstHostExecutor checks a few plans three ways: optimized on
// the host, unoptimized on the host, and dfopt's eager chain, bit for bit,
// errors included. The data is a dfopt plan.Table, which both the host and
// the eager chain read.
func TestOracleAgainstHostExecutor(t *testing.T) {
	orders := plan.Scan(ordersTable(t))
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

// bucketArrow implements the host's Bucket operator over Arrow batches for
// dfopt's eager chain, the oracle's reference way: the host's executor runs
// its own Bucket, and the oracle compares the two.
func bucketArrow(col string, width int64) eager.ExtensionFunc {
	return func(_ context.Context, _ *plan.ExtensionNode, in []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
		rec := in[0]
		idx := rec.Schema().FieldIndices(col)
		if len(idx) != 1 {
			return nil, fmt.Errorf("bucket: no column %q", col)
		}
		src, ok := rec.Column(idx[0]).(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("bucket: column %q is not int64", col)
		}
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := 0; i < src.Len(); i++ {
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			b.Append(FloorDiv(src.Value(i), width))
		}
		bucket := b.NewArray()
		defer bucket.Release()
		fields := append(rec.Schema().Fields(), arrow.Field{Name: "bucket", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
		cols := append(append([]arrow.Array(nil), rec.Columns()...), bucket)
		return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
	}
}

// bucketReference is Bucket for the oracle's reference way, over plain
// values: the input's columns, then bucket = FloorDiv(col, width), null
// where col is null.
func bucketReference(col string, width int64) reference.ExtensionFunc {
	return func(_ context.Context, n *plan.ExtensionNode, in []*reference.Result) (*reference.Result, error) {
		src := in[0].Column(col)
		if src == nil && in[0].Rows > 0 {
			return nil, fmt.Errorf("bucket: no column %q", col)
		}
		bucket := make([]plan.Value, in[0].Rows)
		for i, v := range src {
			if v.IsNull() {
				bucket[i] = plan.NullValue(plan.Int64)
			} else {
				bucket[i] = plan.Int64Value(FloorDiv(v.Int(), width))
			}
		}
		cols := append(append([][]plan.Value(nil), in[0].Columns...), bucket)
		return &reference.Result{Schema: n.Schema(), Rows: in[0].Rows, Columns: cols}, nil
	}
}

// TestOracleHostOperator runs the oracle on plans holding the host's own
// Bucket operator: oracle.Case.Extensions gives the eager way its Arrow
// implementation and Case.ReferenceExtensions the reference way its
// implementation over values, so all four ways run it.
func TestOracleHostOperator(t *testing.T) {
	orders := plan.Scan(ordersTable(t))
	col, lit := plan.Col, plan.Lit
	bucket := bucketDef("qty", 3)
	exts := eager.BuiltinExtensions()
	if err := exts.Register(bucket.Name, bucketArrow("qty", 3)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []oracle.Case{
		{Name: "pruning below Bucket keeps the column it reads",
			Plan: orders.Extension(bucket).Select(col("id"), col("bucket")).Node()},
		{Name: "a partial filter stays above Bucket",
			Plan: orders.Extension(bucket).Filter(col("bucket").Lt(lit(int64(1)))).Node()},
		{Name: "Bucket under a sort and a head",
			Plan: orders.Extension(bucket).Sort(plan.Desc(col("bucket"))).Head(3).Node()},
	} {
		c.Executor, c.Extensions = hostExecutor{}, exts
		c.ReferenceExtensions = map[string]reference.ExtensionFunc{bucket.Name: bucketReference("qty", 3)}
		r := oracle.Check(context.Background(), c)
		if !r.Agree() {
			t.Errorf("%s", r)
			continue
		}
		if r.Results[oracle.Eager].Err != nil {
			t.Errorf("%s: the eager way failed: %v", c.Name, r.Results[oracle.Eager].Err)
		}
		if ref := r.Results[oracle.Reference]; !ref.Ran || ref.Err != nil {
			t.Errorf("%s: the reference way did not run Bucket: skipped=%q err=%v", c.Name, ref.Skipped, ref.Err)
		}
		t.Log(r.Summary())
	}
}

// hostOperators registers Bucket over columns id and qty with widths 1 to
// 3, the operators hostCases draws, for the eager way (Arrow) and the
// reference way (plain values).
func hostOperators(t *testing.T) (*eager.Extensions, map[string]reference.ExtensionFunc) {
	t.Helper()
	exts := eager.BuiltinExtensions()
	refs := map[string]reference.ExtensionFunc{}
	for _, col := range []string{"id", "qty"} {
		for w := int64(1); w <= 3; w++ {
			d := bucketDef(col, w)
			if err := exts.Register(d.Name, bucketArrow(col, w)); err != nil {
				t.Fatal(err)
			}
			refs[d.Name] = bucketReference(col, w)
		}
	}
	return exts, refs
}

// hostCases generates plans over orders holding a Bucket (over id or qty,
// width 1 to 3) and a consumer of its column: the plans the host's rule
// decides, for the oracle's campaigns.
func hostCases(orders *plan.Table) func(seed int64) proptest.Case {
	col, lit := plan.Col, plan.Lit
	return func(seed int64) proptest.Case {
		r := rand.New(rand.NewSource(seed))
		f := plan.Scan(orders)
		if r.Intn(2) == 0 {
			f = f.Filter(col("id").Gt(lit(int64(r.Intn(4)))))
		}
		f = f.Extension(bucketDef([]string{"id", "qty"}[r.Intn(2)], 1+r.Int63n(3)))
		switch r.Intn(5) {
		case 0:
			f = f.Select(col("id"), col("bucket"))
		case 1:
			f = f.Filter(col("bucket").Lt(lit(int64(r.Intn(3)))))
		case 2:
			f = f.Sort(plan.Desc(col("bucket"))).Head(3)
		case 3:
			f = f.Select(col("id"))
		default:
			f = f.WithColumns(col("bucket").Mul(lit(int64(2))).Alias("b2"))
		}
		return proptest.Case{Seed: seed, Plan: f.Node(), Tables: []*plan.Table{orders}}
	}
}

// hostFlags are the host's flags: dfopt's rules and its own, Verify on.
func hostFlags(t *testing.T) rules.Flags {
	t.Helper()
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	f := reg.DefaultFlags()
	f.Verify = true
	return f
}

// TestOracleHostRule: the oracle checks the host's own rule as it checks a
// built-in one: four ways agree on a plan it rewrites, and the report
// counts it among the rules that fired and rewrote.
func TestOracleHostRule(t *testing.T) {
	orders := ordersTable(t)
	exts, refs := hostOperators(t)
	flags := hostFlags(t)
	p := plan.Scan(orders).Extension(bucketDef("qty", 1)).Select(plan.Col("id"), plan.Col("bucket")).Node()
	r := oracle.Check(context.Background(), oracle.Case{Name: "a width-1 Bucket folded", Plan: p, Flags: &flags,
		Executor: hostExecutor{}, Extensions: exts, ReferenceExtensions: refs})
	if !r.Agree() {
		t.Fatalf("%s", r)
	}
	if !slices.Contains(r.Fired(), ruleIdentityBucket) || !slices.Contains(r.Rewrote(), ruleIdentityBucket) {
		t.Errorf("fired %v, rewrote %v: the host rule is missing", r.Fired(), r.Rewrote())
	}
	if ref := r.Results[oracle.Reference]; !ref.Ran || ref.Err != nil {
		t.Errorf("the reference way did not run: skipped=%q err=%v", ref.Skipped, ref.Err)
	}
}

// TestCampaignCoversHostRule: a campaign over the host's plans counts its
// rule's fires and its cell's outcomes like the built-in ones', with no
// divergence and the host cell exercised both ways.
func TestCampaignCoversHostRule(t *testing.T) {
	orders := ordersTable(t)
	exts, refs := hostOperators(t)
	flags := hostFlags(t)
	c := oracle.Campaign{Seed: 1, N: 200, Workers: 2, Flags: &flags, Executor: hostExecutor{}, Generate: hostCases(orders),
		Extensions: exts, ReferenceExtensions: refs, MaxShrink: -1}
	st, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Divergences != 0 {
		t.Fatalf("%d divergences: %v", st.Divergences, st.ClassList())
	}
	cs := st.Cells[cellBucketWidthOne]
	if st.Fires[ruleIdentityBucket] == 0 || cs == nil || cs.AllowedPlans == 0 || cs.RefusedPlans == 0 {
		t.Errorf("the host rule fired in %d plans; its cell: %+v", st.Fires[ruleIdentityBucket], cs)
	}
	for _, u := range st.Unexercised() {
		if u.Cell == cellBucketWidthOne {
			t.Errorf("the host cell is unexercised: %s", u)
		}
	}
	if !strings.Contains(st.CellTable(), string(cellBucketWidthOne)) || !strings.Contains(st.RewriteSummary(), ruleIdentityBucket+"=") {
		t.Errorf("the campaign's tables leave the host rule out:\n%s\n%s", st.CellTable(), st.RewriteSummary())
	}
	t.Logf("%s\n%s", st.RewriteSummary(), st.CellTable())
}

// TestMutationKillsHostCell: the mutation campaign flips the host's cell
// as it flips a built-in one, and the oracle kills the mutant (folding a
// Bucket of width 2 or 3 changes its values).
func TestMutationKillsHostCell(t *testing.T) {
	orders := ordersTable(t)
	exts, refs := hostOperators(t)
	flags := hostFlags(t)
	m := oracle.Mutation{Seed: 1, N: 200, Workers: 2, Cells: []legality.CellID{cellBucketWidthOne}, Flags: &flags,
		Executor: hostExecutor{}, Generate: hostCases(orders), Extensions: exts, ReferenceExtensions: refs}
	rep, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || !rep.Results[0].Killed || rep.RealDivergences != 0 {
		t.Fatalf("the host cell's mutant was not killed:\n%s", rep.Table())
	}
	if res := rep.Results[0]; res.Rule != ruleIdentityBucket || res.From != legality.CrossesIf || res.To != legality.Crosses {
		t.Errorf("result %+v", res)
	}
	t.Log(rep.Table())
}

// TestBisectNamesHostRule: bisection treats the host's rule as a built-in
// one: under the flipped ib.width_one, it names identity_bucket, its first
// bad application and its cell.
func TestBisectNamesHostRule(t *testing.T) {
	orders := ordersTable(t)
	exts, refs := hostOperators(t)
	flags := hostFlags(t)
	mutant, err := flags.Rules().Table().Flipped(cellBucketWidthOne)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Scan(orders).Extension(bucketDef("qty", 3)).Select(plan.Col("id"), plan.Col("bucket")).Node()
	c := oracle.Case{Name: "a width-3 Bucket folded by the mutant", Plan: p, Flags: &flags, Executor: hostExecutor{},
		Extensions: exts, ReferenceExtensions: refs}
	res, err := oracle.Bisect(context.Background(), c, oracle.BisectOptions{Table: mutant, ShrinkCalls: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Rules, ruleIdentityBucket) || res.First == nil || res.First.Rule != ruleIdentityBucket || res.Cell != cellBucketWidthOne {
		t.Errorf("bisect: %s", res.Culprit())
	}
	t.Log(res.Culprit())
}
