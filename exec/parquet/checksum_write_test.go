package parquet

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/plan"
)

// checksumTable has every type, nulls, NaN and -0, and strings repeated
// enough to be dictionary-encoded.
func checksumTable(t *testing.T, rows int) *plan.Table {
	cols := make([][]plan.Value, 5)
	for r := 0; r < rows; r++ {
		i := plan.Int64Value(int64(r*r - 7))
		if r%7 == 3 {
			i = plan.NullValue(plan.Int64)
		}
		f := plan.Float64Value(float64(r) / 3)
		switch r % 11 {
		case 1:
			f = plan.Float64Value(math.NaN())
		case 2:
			f = plan.Float64Value(math.Copysign(0, -1))
		}
		cols[0] = append(cols[0], i)
		cols[1] = append(cols[1], f)
		cols[2] = append(cols[2], plan.StringValue([]string{"ACME", "BOLT", "", "héllo"}[r%4]))
		cols[3] = append(cols[3], plan.BoolValue(r%3 == 0))
		cols[4] = append(cols[4], plan.Int32Value(int32(-r)))
	}
	return mustTable(t, "t", []plan.Field{{Name: "i", Type: plan.Int64, Nullable: true}, {Name: "f", Type: plan.Float64, Nullable: true},
		{Name: "s", Type: plan.String, Nullable: true}, {Name: "b", Type: plan.Bool}, {Name: "n", Type: plan.Int32}}, cols...)
}

// scanAll collects every row of the Parquet file at path.
func scanAll(t *testing.T, path string) ([][]plan.Value, error) {
	t.Helper()
	src, err := OpenFile("t", path)
	if err != nil {
		return nil, err
	}
	res, err := exec.Collect(t.Context(), plan.Scan(src).Node(), exec.Options{Mem: checked(t), Parallelism: 2})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return res.Rows()
}

// pageCRCs counts the pages of the file and those whose header has a crc.
func pageCRCs(t *testing.T, path string) (pages, withCRC int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	md := rdr.MetaData()
	for g := 0; g < md.NumRowGroups(); g++ {
		for c := 0; c < md.Schema.NumColumns(); c++ {
			cc, err := md.RowGroup(g).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
				start = cc.DictionaryPageOffset()
			}
			for pos := start; pos < start+cc.TotalCompressedSize(); {
				h, hlen, err := readPageHeader(f, pos, start+cc.TotalCompressedSize())
				if err != nil {
					t.Fatalf("row group %d column %d page at %d: %v", g, c, pos, err)
				}
				pages++
				if h.hasCRC {
					withCRC++
				}
				pos += hlen + int64(h.compressedSize)
			}
		}
	}
	return pages, withCRC
}

// AddPageChecksums gives every page of a file arrow-go wrote a crc (data
// and dictionary pages, compressed, over several row groups), the file
// reads back to the same rows, and a corrupted page is then caught.
func TestAddPageChecksums(t *testing.T) {
	tbl := checksumTable(t, 3000)
	rec, err := kernel.TableRecord(memory.DefaultAllocator, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	writeParquetRaw(t, path, rec, 1000, parquet.WithDataPageSize(512), parquet.WithCompression(compress.Codecs.Snappy))
	before, err := scanAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if pages, crcs := pageCRCs(t, path); crcs != 0 || pages < 20 {
		t.Fatalf("arrow-go wrote %d pages, %d with a crc; the test wants many pages and no crc", pages, crcs)
	}
	if err := AddPageChecksums(path); err != nil {
		t.Fatal(err)
	}
	pages, crcs := pageCRCs(t, path)
	if crcs != pages {
		t.Fatalf("%d of %d pages have a crc", crcs, pages)
	}
	after, err := scanAll(t, path)
	if err != nil {
		t.Fatalf("the rewritten file does not read: %v", err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d rows, want %d", len(after), len(before))
	}
	for r := range before {
		if !sameValues(after[r], before[r]) {
			t.Fatalf("row %d: %v, want %v", r, after[r], before[r])
		}
	}

	// arrow-go's own reader reads the rewritten file too.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	read, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatalf("pqarrow cannot read the rewritten file: %v", err)
	}
	if read.NumRows() != int64(len(before)) {
		t.Errorf("pqarrow reads %d rows, want %d", read.NumRows(), len(before))
	}
	read.Release()

	// Flip one byte of a page body in the second row group: its crc
	// catches it.
	cc, err := rdr.MetaData().RowGroup(1).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	_, hlen, err := readPageHeader(f, cc.DataPageOffset(), cc.DataPageOffset()+cc.TotalCompressedSize())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[cc.DataPageOffset()+hlen+2] ^= 0x10
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scanAll(t, bad); !errors.Is(err, errChecksum) {
		t.Errorf("scan of a corrupted file: %v; want a checksum mismatch", err)
	}
}

// A layout the rewrite cannot shift (a page index) is refused, and the file
// is left as it was.
func TestAddPageChecksumsRefusesPageIndex(t *testing.T) {
	rec, err := kernel.TableRecord(memory.DefaultAllocator, checksumTable(t, 100))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeParquetRaw(t, path, rec, 50, parquet.WithPageIndexEnabled(true))
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := AddPageChecksums(path); err == nil {
		t.Fatal("a file with a page index was rewritten")
	}
	now, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(now, orig) {
		t.Errorf("the refused file changed (%v)", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("a temporary file was left: %v", entries)
	}
}

// The rewrite never panics on a hostile file: it writes a file or returns
// an error.
func FuzzRewriteWithChecksums(f *testing.F) {
	data, _ := crcParquet([]crcPage{{values: []int64{1, 2}}, {values: []int64{3}, crc: true}})
	f.Add(data)
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		if err := rewriteWithChecksums(bytes.NewReader(b), int64(len(b)), &out); err == nil && out.Len() < 12 {
			t.Fatalf("rewrote %d bytes into %d", len(b), out.Len())
		}
	})
}
