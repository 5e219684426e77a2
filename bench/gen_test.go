package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// TestGenerateMatchesFormulas reads every generated row back and compares
// it with RowT, and d with its formula.
func TestGenerateMatchesFormulas(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	const rows, group = 25_001, 10_000
	res, err := Generate(context.Background(), dir, GenOptions{Rows: rows, RowGroup: group, Workers: 3, Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	if res.TRows != rows || res.TRowGroups != 3 || res.DRows != DRows {
		t.Fatalf("result %+v", res)
	}
	rec, err := ReadParquet(context.Background(), res.TPath, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumRows() != rows || rec.NumCols() != 17 {
		t.Fatalf("t has %d rows, %d columns", rec.NumRows(), rec.NumCols())
	}
	for i, f := range rec.Schema().Fields() {
		want := TSchema().Field(i)
		if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) || f.Nullable != want.Nullable {
			t.Errorf("field %d = %v, want %v", i, f, want)
		}
	}
	id := rec.Column(0).(*array.Int64)
	k := rec.Column(1).(*array.Int64)
	a := rec.Column(2).(*array.Int64)
	b := rec.Column(3).(*array.Float64)
	s := rec.Column(4).(*array.String)
	for i := 0; i < rows; i++ {
		r := RowT(int64(i))
		ok := id.Value(i) == r.ID && k.Value(i) == r.K && a.Value(i) == r.A && s.Value(i) == r.S &&
			b.IsNull(i) == r.BNull && (r.BNull || b.Value(i) == r.B)
		for j := 0; j < NumFloatColumns; j++ {
			ok = ok && rec.Column(5+j).(*array.Float64).Value(i) == r.F[j]
		}
		if !ok {
			t.Fatalf("row %d differs from RowT: %+v", i, r)
		}
	}
	if b.NullN() == 0 {
		t.Error("b has no nulls")
	}

	d, err := ReadParquet(context.Background(), res.DPath, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if d.NumRows() != DRows || d.Schema().Field(0).Nullable || d.Schema().Field(1).Nullable {
		t.Fatalf("d: %d rows, schema %v", d.NumRows(), d.Schema())
	}
	for i := 0; i < DRows; i++ {
		if d.Column(0).(*array.Int64).Value(i) != int64(i) || d.Column(1).(*array.String).Value(i) != "n"+strconv.Itoa(i) {
			t.Fatalf("d row %d wrong", i)
		}
	}
}

// TestGenerateLayout checks the Parquet layout: row groups of the requested
// size, snappy, statistics with the right min/max, required vs optional.
func TestGenerateLayout(t *testing.T) {
	dir := t.TempDir()
	res, err := Generate(context.Background(), dir, GenOptions{Rows: 2500, RowGroup: 1000})
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := file.OpenParquetFile(res.TPath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	md := rdr.MetaData()
	if md.NumRowGroups() != 3 {
		t.Fatalf("%d row groups, want 3", md.NumRowGroups())
	}
	for g, want := range []int64{1000, 1000, 500} {
		rg := md.RowGroup(g)
		if rg.NumRows() != want {
			t.Errorf("row group %d has %d rows, want %d", g, rg.NumRows(), want)
		}
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if cc.Compression() != compress.Codecs.Snappy {
				t.Errorf("row group %d column %d: compression %v", g, c, cc.Compression())
			}
			if ok, _ := cc.StatsSet(); !ok {
				t.Errorf("row group %d column %d: no statistics", g, c)
			}
		}
		cc, _ := rg.ColumnChunk(0)
		st, err := cc.Statistics()
		if err != nil {
			t.Fatal(err)
		}
		ist := st.(*metadata.Int64Statistics)
		if ist.Min() != int64(g)*1000 || ist.Max() != int64(g)*1000+want-1 {
			t.Errorf("row group %d: id min/max %d/%d", g, ist.Min(), ist.Max())
		}
	}
	sch := md.Schema
	for c := 0; c < sch.NumColumns(); c++ {
		col := sch.Column(c)
		optional := col.MaxDefinitionLevel() > 0
		if optional != (col.Name() == "b") {
			t.Errorf("column %s: optional = %v", col.Name(), optional)
		}
	}
}

// TestGenerateDeterministic: the bytes do not depend on the number of
// workers, and a second run gives the same files.
func TestGenerateDeterministic(t *testing.T) {
	var files [][]byte
	for _, workers := range []int{1, 4, 4} {
		dir := t.TempDir()
		if _, err := Generate(context.Background(), dir, GenOptions{Rows: 30_000, RowGroup: 7_000, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, TFile))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("directory holds %d entries, want t.parquet and d.parquet only", len(entries))
		}
	}
	for i := 1; i < len(files); i++ {
		if !bytes.Equal(files[0], files[i]) {
			t.Errorf("run %d wrote different bytes (%d vs %d)", i, len(files[i]), len(files[0]))
		}
	}
}

// TestGenerateErrors covers bad sizes, an unwritable directory and
// cancellation (which must leave no file behind).
func TestGenerateErrors(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []GenOptions{{Rows: -1}, {Rows: 1<<32 + 1}, {Rows: 10, RowGroup: -5}} {
		if _, err := Generate(context.Background(), dir, opts); err == nil {
			t.Errorf("Generate(%+v) succeeded", opts)
		}
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(context.Background(), filepath.Join(blocker, "sub"), GenOptions{Rows: 10}); err == nil {
		t.Error("Generate under a regular file succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "cancelled")
	if _, err := Generate(ctx, out, GenOptions{Rows: 100_000, RowGroup: 1000}); err == nil {
		t.Error("cancelled Generate succeeded")
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 0 {
		t.Errorf("cancelled Generate left %d files", len(entries))
	}
}
