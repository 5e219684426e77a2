package bench

import (
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
)

// stubSource stands for a Parquet table with the generator's schema, so the
// query files decode without data.
type stubSource struct {
	name   string
	schema plan.Schema
}

func (s *stubSource) Name() string        { return s.name }
func (s *stubSource) Schema() plan.Schema { return s.schema }

// planSchemaOf is the plan schema of a generated Parquet file.
func planSchemaOf(t *testing.T, file string) plan.Schema {
	switch file {
	case TFile:
		return planSchema(t, TSchema())
	case DFile:
		return planSchema(t, DSchema())
	}
	t.Fatalf("unexpected parquet file %s", file)
	return plan.Schema{}
}

// TestQueryFilesMatchSpec decodes each plan file in bench/queries and
// compares it (plan.Equal) with the query built from its specification with
// the plan builder, so the files cannot drift from docs/performance.md. It
// also checks that every file resolves and reads ../data.
func TestQueryFilesMatchSpec(t *testing.T) {
	c, l := plan.Col, plan.Lit
	specs := map[string]func(tb, d plan.Frame) plan.Frame{
		"q1": func(tb, _ plan.Frame) plan.Frame {
			return tb.Filter(c("a").Gt(l(int64(900000)))).Select(c("id"), c("a"))
		},
		"q1s": func(tb, _ plan.Frame) plan.Frame {
			return tb.Filter(c("a").Gt(l(int64(990000)))).Select(c("id"), c("a"))
		},
		"q2": func(tb, _ plan.Frame) plan.Frame {
			return tb.WithColumns(c("a").Mul(l(int64(2))).Add(l(int64(1))).Alias("c")).
				Filter(c("k").Lt(l(int64(10)))).Select(c("id"), c("c"))
		},
		"q3": func(tb, _ plan.Frame) plan.Frame {
			return tb.Sort(plan.Desc(c("a"))).Head(100)
		},
		"q7": func(tb, _ plan.Frame) plan.Frame {
			return tb.Select(c("id"), c("k"), c("a")).Head(100)
		},
		"q4": func(tb, _ plan.Frame) plan.Frame {
			return tb.GroupBy(c("k")).Agg(c("a").Sum().Alias("sum_a"), c("b").Mean().Alias("mean_b"), plan.Len().Alias("cnt"))
		},
		"q5": func(tb, d plan.Frame) plan.Frame {
			return tb.Join(d, plan.InnerJoin, []plan.E{c("k")}, []plan.E{c("k")}).
				Filter(c("name").Eq(l("n7"))).Select(c("id"), c("name"), c("a"))
		},
		"q8": func(tb, d plan.Frame) plan.Frame {
			return tb.Join(d, plan.InnerJoin, []plan.E{c("k")}, []plan.E{c("k")}).
				Filter(c("k").Lt(l(int64(100))), c("a").Gt(l(int64(900000))), c("name").Ne(l("n7"))).
				Select(c("id"), c("k"), c("name"), c("a"))
		},
		"q8p": func(tb, d plan.Frame) plan.Frame {
			return tb.Filter(c("k").Lt(l(int64(100))), c("a").Gt(l(int64(900000)))).
				Join(d.Filter(c("k").Lt(l(int64(100))), c("name").Ne(l("n7"))), plan.InnerJoin, []plan.E{c("k")}, []plan.E{c("k")}).
				Select(c("id"), c("k"), c("name"), c("a"))
		},
		"q9": func(tb, d plan.Frame) plan.Frame {
			return tb.JoinWhere(d, c("k").Eq(c("k_right")), c("name").Eq(l("n7"))).
				Select(c("id"), c("name"), c("a"))
		},
		"q6": func(tb, _ plan.Frame) plan.Frame {
			return tb.WithColumns(c("a").Mul(l(int64(3))).Alias("x1")).
				Filter(c("k").Lt(l(int64(500)))).
				WithColumns(c("x1").Add(c("b")).Alias("x2")).
				Filter(c("s").Ne(l("s3"))).
				WithColumns(c("f0").Mul(l(2.0)).Alias("x3")).
				Filter(c("a").Gt(l(int64(-500000)))).
				WithColumns(c("x2").Mul(l(0.5)).Alias("x4")).
				Filter(c("id").Mod(l(int64(3))).Eq(l(int64(0)))).
				WithColumns(c("f1").Add(c("f2")).Alias("x5")).
				Filter(c("x4").Gt(l(0.0))).
				Select(c("id"), c("k"), c("x4"))
		},
	}
	files := append(queryFiles(t), sqlQueryFiles(t)...)
	if len(files) != len(specs) {
		t.Errorf("%d query files, %d specifications", len(files), len(specs))
	}
	for _, f := range files {
		name := QueryName(f)
		t.Run(name, func(t *testing.T) {
			spec, ok := specs[name]
			if !ok {
				t.Fatalf("no specification for %s", f)
			}
			doc, err := planjson.DecodeFile(f, planjson.Options{OpenParquet: func(tname, path string) (plan.Source, error) {
				if filepath.Base(filepath.Dir(path)) != "data" {
					t.Errorf("table %s reads %s, want ../data/...", tname, path)
				}
				return &stubSource{name: tname, schema: planSchemaOf(t, filepath.Base(path))}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			scan := func(name string) plan.Frame {
				if ts, ok := doc.Tables[name]; ok {
					return plan.Scan(ts.Source())
				}
				return plan.Scan(&stubSource{name: name})
			}
			want := spec(scan("t"), scan("d")).Node()
			if !plan.Equal(doc.Plan, want) {
				t.Errorf("%s differs from its specification:\nfile:\n%s\nspec:\n%s", f, plan.Explain(doc.Plan), plan.Explain(want))
			}
			if _, err := plan.Resolve(doc.Plan); err != nil {
				t.Errorf("%s does not resolve: %v", f, err)
			}
		})
	}
}
