package plan

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// wideFields returns n int64 fields c0, c1, ...
func wideFields(n int) []Field {
	fs := make([]Field, n)
	for i := range fs {
		fs[i] = Field{Name: "c" + strconv.Itoa(i), Type: Int64}
	}
	return fs
}

// TestNewSchemaRejectsAtEveryWidth: a narrow schema (no name index) and a
// wide one (a map) report the same first offender with the same message,
// whatever comes after it.
func TestNewSchemaRejectsAtEveryWidth(t *testing.T) {
	for _, width := range []int{2, smallSchema, smallSchema + 1, 3 * smallSchema} {
		for _, tc := range []struct {
			name string
			edit func(fs []Field) []Field
			msg  string
		}{
			{"duplicate before an empty name", func(fs []Field) []Field {
				fs[len(fs)-1].Name = "c0"
				return append(fs, Field{Type: Int64})
			}, `duplicate column name "c0" (fields 0 and ` + strconv.Itoa(width-1) + `)`},
			{"empty name before a duplicate", func(fs []Field) []Field {
				fs[len(fs)-1].Name = ""
				return append(fs, Field{Name: "c0", Type: Int64})
			}, "field " + strconv.Itoa(width-1) + " has an empty name"},
			{"invalid type before a duplicate", func(fs []Field) []Field {
				fs[len(fs)-1].Type = Invalid
				return append(fs, Field{Name: "c0", Type: Int64})
			}, `field "c` + strconv.Itoa(width-1) + `" has an invalid type`},
			{"the first duplicate pair", func(fs []Field) []Field {
				return append(fs, Field{Name: "c1", Type: Int64}, Field{Name: "c0", Type: Int64})
			}, `duplicate column name "c1" (fields 1 and ` + strconv.Itoa(width) + `)`},
		} {
			t.Run(strconv.Itoa(width)+"/"+tc.name, func(t *testing.T) {
				_, err := NewSchema(tc.edit(wideFields(width))...)
				if err == nil || err.Error() != "schema: "+tc.msg {
					t.Fatalf("NewSchema error = %v, want schema: %s", err, tc.msg)
				}
			})
		}
	}
}

// TestSchemaIndexAtEveryWidth: Index and Lookup find every name and miss
// others, with and without a name index.
func TestSchemaIndexAtEveryWidth(t *testing.T) {
	for width := 0; width <= 2*smallSchema+1; width++ {
		s := MustSchema(wideFields(width)...)
		if (s.index != nil) != (width > smallSchema) {
			t.Errorf("width %d: index present = %v", width, s.index != nil)
		}
		for i := 0; i < width; i++ {
			name := "c" + strconv.Itoa(i)
			if got := s.Index(name); got != i {
				t.Errorf("width %d: Index(%s) = %d", width, name, got)
			}
			if f, ok := s.Lookup(name); !ok || f.Name != name {
				t.Errorf("width %d: Lookup(%s) = %v, %v", width, name, f, ok)
			}
		}
		if s.Index("c"+strconv.Itoa(width)) != -1 || s.Index("") != -1 {
			t.Errorf("width %d: found a missing name", width)
		}
	}
}

// withReference is what resolveWithColumns computed before schemas shared
// structure: the input's fields copied, each added field replacing in place
// or appended, and a new schema built from scratch.
func withReference(t *testing.T, s Schema, add []Field) Schema {
	t.Helper()
	out := s.Fields()
	for _, f := range add {
		if i := Schema.Index(MustSchema(out...), f.Name); i >= 0 {
			out[i] = f
		} else {
			out = append(out, f)
		}
	}
	return MustSchema(out...)
}

// TestSchemaWith: Schema.with (a with_columns' output) equals building the
// schema from scratch, shares what it can, and never writes into its input.
func TestSchemaWith(t *testing.T) {
	i64, f64 := func(n string) Field { return Field{Name: n, Type: Int64} }, func(n string) Field { return Field{Name: n, Type: Float64} }
	for _, width := range []int{3, smallSchema - 1, smallSchema, 20} {
		for _, tc := range []struct {
			name string
			add  []Field
			// same: the input schema comes back; index: the input's name
			// index is shared.
			same, index bool
		}{
			{name: "nothing", add: nil, same: true, index: true},
			{name: "equal replacement", add: []Field{i64("c1"), i64("c0")}, same: true, index: true},
			{name: "type change", add: []Field{f64("c2")}, index: true},
			{name: "nullability change", add: []Field{{Name: "c0", Type: Int64, Nullable: true}, i64("c1")}, index: true},
			{name: "append", add: []Field{i64("x")}},
			{name: "append and replace", add: []Field{f64("y"), i64("c2"), f64("c1"), i64("x")}},
			{name: "append past the small width", add: []Field{i64("x0"), i64("x1"), i64("x2"), i64("x3"), i64("x4"), i64("x5"), i64("x6"), i64("x7"), i64("x8")}},
		} {
			t.Run(strconv.Itoa(width)+"/"+tc.name, func(t *testing.T) {
				s := MustSchema(wideFields(width)...)
				before := s.Fields()
				got := s.with(tc.add)
				want := withReference(t, s, tc.add)
				if !got.Equal(want) {
					t.Fatalf("with = %s, want %s", got, want)
				}
				for i := 0; i < want.Len(); i++ {
					if got.Index(want.Field(i).Name) != i {
						t.Errorf("Index(%s) = %d, want %d", want.Field(i).Name, got.Index(want.Field(i).Name), i)
					}
				}
				if got.Index("nope") != -1 {
					t.Error("found a missing name")
				}
				if (got.index != nil) != (got.Len() > smallSchema) {
					t.Errorf("index present = %v at width %d", got.index != nil, got.Len())
				}
				if !reflect.DeepEqual(s.Fields(), before) {
					t.Errorf("with wrote into its input: %v, was %v", s.Fields(), before)
				}
				sameFields := got.Len() > 0 && &got.fields[0] == &s.fields[0]
				if sameFields != tc.same {
					t.Errorf("shares the input's fields = %v, want %v", sameFields, tc.same)
				}
				if s.index != nil {
					sharedIndex := reflect.ValueOf(got.index).UnsafePointer() == reflect.ValueOf(s.index).UnsafePointer()
					if sharedIndex != tc.index {
						t.Errorf("shares the input's name index = %v, want %v", sharedIndex, tc.index)
					}
				}
			})
		}
	}
}

// TestWithColumnsSchemaErrors: resolving a with_columns still reports a
// name produced twice by its own expressions, at either width.
func TestWithColumnsSchemaErrors(t *testing.T) {
	for _, width := range []int{2, 3 * smallSchema} {
		tbl, err := NewTable("w", MustSchema(wideFields(width)...), make([][]Value, width))
		if err != nil {
			t.Fatal(err)
		}
		n := Scan(tbl).WithColumns(Col("c0").Alias("x"), Col("c1").Alias("c0"), Col("c1").Alias("x")).Node()
		_, err = Resolve(n)
		pe, ok := AsError(err)
		if !ok || pe.Kind != DuplicateColumn || pe.Path != "plan.exprs[2]" ||
			!strings.Contains(pe.Msg, "output column \"x\" is produced twice (by `c0 as x` and `c1 as x`)") {
			t.Errorf("width %d: error = %v", width, err)
		}
	}
}

// TestSchemaAppendSharing: a chain of schemas each appending a column
// shares one backing array (amortized O(1) per link), a second extension of
// the same schema copies instead of overwriting the first's columns, and
// every schema of every branch keeps answering for exactly its own names —
// also when goroutines extend the same schemas concurrently (run with
// -race).
func TestSchemaAppendSharing(t *testing.T) {
	base := MustSchema(wideFields(20)...)
	chain := []Schema{base}
	for i := 0; i < 1000; i++ {
		chain = append(chain, chain[len(chain)-1].with([]Field{{Name: "x" + strconv.Itoa(i), Type: Int64}}))
	}
	shared := 0
	for i := 2; i < len(chain); i++ {
		if &chain[i].fields[0] == &chain[i-1].fields[0] {
			shared++
		}
	}
	if shared < 990 {
		t.Errorf("only %d of 999 appends shared the backing array", shared)
	}
	// A sibling of chain[500]: it must not see chain[501]'s column, nor
	// change it.
	sib := chain[500].with([]Field{{Name: "sibling", Type: String}})
	if sib.Index("x500") >= 0 || sib.Index("sibling") != 520 || chain[501].Index("x500") != 520 || chain[501].Index("sibling") >= 0 {
		t.Fatalf("sibling %d/%d, chain %d/%d", sib.Index("x500"), sib.Index("sibling"), chain[501].Index("x500"), chain[501].Index("sibling"))
	}
	if chain[1000].Field(520).Name != "x500" {
		t.Fatalf("the sibling overwrote the chain: field 520 is %s", chain[1000].Field(520).Name)
	}
	for i, s := range chain {
		if s.Len() != 20+i || (i > 0 && s.Index("x"+strconv.Itoa(i-1)) != 19+i) || s.Index("x"+strconv.Itoa(i)) >= 0 {
			t.Fatalf("schema %d answers wrongly", i)
		}
	}
	// Concurrent extensions of shared schemas.
	var wg sync.WaitGroup
	results := make([][]Schema, 8)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := chain[100+g%3]
			for k := 0; k < 200; k++ {
				s = s.with([]Field{{Name: "g" + strconv.Itoa(g) + "_" + strconv.Itoa(k), Type: Bool}})
				results[g] = append(results[g], s)
			}
		}()
	}
	wg.Wait()
	for g, rs := range results {
		for k, s := range rs {
			if s.Index("g"+strconv.Itoa(g)+"_"+strconv.Itoa(k)) != 120+g%3+k || s.Index("g"+strconv.Itoa((g+1)%8)+"_0") >= 0 {
				t.Fatalf("goroutine %d schema %d answers wrongly", g, k)
			}
		}
	}
}

// TestSchemaWithMixedAdd: a with_columns that restates an existing column
// unchanged and appends a new one appends only the new one, in place or
// not.
func TestSchemaWithMixedAdd(t *testing.T) {
	for _, width := range []int{3, 20} {
		s := MustSchema(wideFields(width)...).with([]Field{{Name: "x", Type: Int64}}) // holds the tail
		got := s.with([]Field{s.Field(0), {Name: "y", Type: Bool}})
		if got.Len() != width+2 || got.Field(width+1).Name != "y" || got.Index("y") != width+1 || got.Index("c0") != 0 {
			t.Errorf("width %d: %s", width, got)
		}
	}
}
