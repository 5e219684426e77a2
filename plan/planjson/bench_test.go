package planjson

import (
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// chainDoc is a document whose plan is a chain of n filters and projects
// over one scan (docs/design.md §11's 10,000-node chain).
func chainDoc(tb testing.TB, n int) *Document {
	tb.Helper()
	tab, err := plan.NewTable("t", plan.MustSchema(plan.Field{Name: "a", Type: plan.Int64, Nullable: true}),
		[][]plan.Value{{plan.Int64Value(1), plan.Int64Value(2)}})
	if err != nil {
		tb.Fatal(err)
	}
	f := plan.Scan(tab)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			f = f.Filter(plan.Col("a").Gt(plan.Lit(int64(i))))
		} else {
			f = f.Select(plan.Col("a"))
		}
	}
	return &Document{Tables: map[string]*TableSpec{"t": {Inline: tab}}, Plan: f.Node()}
}

// wideDoc is a document with one table of n rows in four columns.
func wideDoc(tb testing.TB, n int) *Document {
	tb.Helper()
	schema := plan.MustSchema(plan.Field{Name: "i", Type: plan.Int64, Nullable: true}, plan.Field{Name: "f", Type: plan.Float64, Nullable: true},
		plan.Field{Name: "s", Type: plan.String, Nullable: true}, plan.Field{Name: "b", Type: plan.Bool, Nullable: true})
	cols := make([][]plan.Value, 4)
	for r := 0; r < n; r++ {
		cols[0] = append(cols[0], plan.Int64Value(int64(r)*7919))
		cols[1] = append(cols[1], plan.Float64Value(float64(r)/3))
		cols[2] = append(cols[2], plan.StringValue("row"))
		cols[3] = append(cols[3], plan.BoolValue(r%2 == 0))
	}
	tab, err := plan.NewTable("t", schema, cols)
	if err != nil {
		tb.Fatal(err)
	}
	return &Document{Tables: map[string]*TableSpec{"t": {Inline: tab}}, Plan: plan.Scan(tab).Node()}
}

// TestDeepChainIsLinear: a 10,000-node chain encodes to output linear in
// its size (indentation is capped, so depth does not square the output)
// and decodes back.
func TestDeepChainIsLinear(t *testing.T) {
	const n = 10000
	doc := chainDoc(t, n)
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 400*n {
		t.Fatalf("a %d-node chain encodes to %d bytes: not linear", n, len(out))
	}
	doc2, err := Decode(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Size(doc2.Plan) != n+1 {
		t.Fatalf("decoded %d nodes, want %d", plan.Size(doc2.Plan), n+1)
	}
	if d := compareDocs(doc, doc2); d != "" {
		t.Fatal(d)
	}
}

func benchEncode(b *testing.B, doc *Document) {
	out, err := Encode(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Encode(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecode(b *testing.B, doc *Document) {
	out, err := Encode(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(out, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeChain10k(b *testing.B)  { benchEncode(b, chainDoc(b, 10000)) }
func BenchmarkDecodeChain10k(b *testing.B)  { benchDecode(b, chainDoc(b, 10000)) }
func BenchmarkEncodeTable100k(b *testing.B) { benchEncode(b, wideDoc(b, 100000)) }
func BenchmarkDecodeTable100k(b *testing.B) { benchDecode(b, wideDoc(b, 100000)) }
