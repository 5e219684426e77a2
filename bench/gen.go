package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	dfparquet "github.com/dfopt/dfopt/exec/parquet"
)

// Default sizes of the generated data: the published figures
// (docs/performance.md) are for these.
const (
	DefaultRows     = 10_000_000
	DefaultRowGroup = 1_000_000
)

// GenOptions configure Generate. Zero values take the defaults.
type GenOptions struct {
	// Rows is the row count of table t; 0 means DefaultRows.
	Rows int64
	// RowGroup is the row count of t's Parquet row groups (the last may be
	// shorter); 0 means DefaultRowGroup.
	RowGroup int64
	// Workers is the number of goroutines that build row groups; 0 means
	// GOMAXPROCS. The output does not depend on it.
	Workers int
	// Mem allocates the Arrow buffers; nil means memory.DefaultAllocator.
	Mem memory.Allocator
}

// GenResult describes the files Generate wrote.
type GenResult struct {
	TPath, DPath   string
	TRows, DRows   int64
	TRowGroups     int
	TBytes, DBytes int64
}

// File names Generate writes into its directory. The plan files in
// bench/queries read them as ../data/t.parquet and ../data/d.parquet.
const (
	TFile = "t.parquet"
	DFile = "d.parquet"
)

// TSchema is the Arrow schema of table t, in column order. Only b is
// nullable.
func TSchema() *arrow.Schema {
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}
	for j := 0; j < NumFloatColumns; j++ {
		fields = append(fields, arrow.Field{Name: "f" + strconv.Itoa(j), Type: arrow.PrimitiveTypes.Float64})
	}
	return arrow.NewSchema(fields, nil)
}

// DSchema is the Arrow schema of table d (both columns non-nullable).
func DSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String},
	}, nil)
}

// Generate writes dir/t.parquet and dir/d.parquet (creating dir). Each file
// is written under a temporary name and renamed into place when complete,
// so an interrupted run never leaves a truncated file under the final name.
func Generate(ctx context.Context, dir string, opts GenOptions) (GenResult, error) {
	if opts.Rows == 0 {
		opts.Rows = DefaultRows
	}
	if opts.RowGroup == 0 {
		opts.RowGroup = DefaultRowGroup
	}
	if opts.Rows < 0 || opts.Rows > 1<<32 {
		return GenResult{}, fmt.Errorf("gen-bench: rows %d out of range [0, 2^32] (row indices are hashed as uint32)", opts.Rows)
	}
	if opts.RowGroup < 0 {
		return GenResult{}, fmt.Errorf("gen-bench: row group size %d must be positive", opts.RowGroup)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return GenResult{}, fmt.Errorf("gen-bench: %w", err)
	}
	res := GenResult{TPath: filepath.Join(dir, TFile), DPath: filepath.Join(dir, DFile), TRows: opts.Rows, DRows: DRows}
	groups := int((opts.Rows + opts.RowGroup - 1) / opts.RowGroup)
	res.TRowGroups = groups
	var err error
	res.TBytes, err = writeParquetFile(res.TPath, TSchema(), opts.RowGroup, opts.Mem, func(w *pqarrow.FileWriter) error {
		return writeT(ctx, w, opts, groups)
	})
	if err != nil {
		return GenResult{}, err
	}
	res.DBytes, err = writeParquetFile(res.DPath, DSchema(), DRows, opts.Mem, func(w *pqarrow.FileWriter) error {
		rec := buildD(opts.Mem)
		defer rec.Release()
		return w.Write(rec)
	})
	if err != nil {
		return GenResult{}, err
	}
	return res, nil
}

// writeParquetFile creates path through a temporary file, lets body write
// the batches, and renames the finished file into place. It returns the
// file's size.
func writeParquetFile(path string, schema *arrow.Schema, rowGroup int64, mem memory.Allocator,
	body func(*pqarrow.FileWriter) error) (size int64, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, fmt.Errorf("gen-bench: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file private; the data is not.
	if err = tmp.Chmod(0o644); err != nil {
		return 0, fmt.Errorf("gen-bench: %w", err)
	}
	props := parquet.NewWriterProperties(
		parquet.WithMaxRowGroupLength(rowGroup),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithStats(true),
		parquet.WithAllocator(mem))
	w, err := pqarrow.NewFileWriter(schema, tmp, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		return 0, fmt.Errorf("gen-bench: %s: %w", path, err)
	}
	if err = body(w); err != nil {
		w.Close()
		return 0, fmt.Errorf("gen-bench: %s: %w", path, err)
	}
	// Close writes the footer and closes the file.
	if err = w.Close(); err != nil {
		return 0, fmt.Errorf("gen-bench: %s: %w", path, err)
	}
	// arrow-go writes no page checksums; the scan verifies them.
	if err = dfparquet.AddPageChecksums(tmp.Name()); err != nil {
		return 0, fmt.Errorf("gen-bench: %s: %w", path, err)
	}
	st, err := os.Stat(tmp.Name())
	if err != nil {
		return 0, fmt.Errorf("gen-bench: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return 0, fmt.Errorf("gen-bench: %w", err)
	}
	return st.Size(), nil
}

// writeT builds t's row groups on opts.Workers goroutines and writes them in
// order, one Write (so one row group) per batch. At most Workers+1 row
// groups are alive at once: a slot is taken before a group is handed to a
// worker and given back once the writer has written it.
func writeT(ctx context.Context, w *pqarrow.FileWriter, opts GenOptions, groups int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan arrow.RecordBatch, groups)
	for g := range results {
		results[g] = make(chan arrow.RecordBatch, 1)
	}
	slots := make(chan struct{}, opts.Workers+1)
	work := make(chan int)
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				start := int64(g) * opts.RowGroup
				end := min(start+opts.RowGroup, opts.Rows)
				results[g] <- buildT(opts.Mem, start, end)
			}
		}()
	}
	go func() {
		defer close(work)
		for g := 0; g < groups; g++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case work <- g:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for g := 0; g < groups && err == nil; g++ {
		if err = ctx.Err(); err != nil {
			break
		}
		select {
		case rec := <-results[g]:
			err = w.Write(rec)
			rec.Release()
			<-slots
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	cancel()
	wg.Wait()
	// Release whatever the workers finished after a failure.
	for _, ch := range results {
		select {
		case rec := <-ch:
			rec.Release()
		default:
		}
	}
	return err
}

// buildT builds rows [start, end) of table t as one batch.
func buildT(mem memory.Allocator, start, end int64) arrow.RecordBatch {
	n := int(end - start)
	id := make([]int64, n)
	k := make([]int64, n)
	a := make([]int64, n)
	b := make([]float64, n)
	bValid := make([]bool, n)
	sIdx := make([]int, n)
	f := make([][]float64, NumFloatColumns)
	for j := range f {
		f[j] = make([]float64, n)
	}
	sBytes := 0
	for r := 0; r < n; r++ {
		i := start + int64(r)
		hi := H32(uint32(i))
		id[r] = i
		k[r] = (i * 7919) % 1000
		a[r] = colA(hi)
		v, null := colB(hi)
		b[r], bValid[r] = v, !null
		sIdx[r] = colS(hi)
		sBytes += len(sValues[sIdx[r]])
		for j := range f {
			f[j][r] = colF(hi, j)
		}
	}
	rb := array.NewRecordBuilder(mem, TSchema())
	defer rb.Release()
	rb.Field(0).(*array.Int64Builder).AppendValues(id, nil)
	rb.Field(1).(*array.Int64Builder).AppendValues(k, nil)
	rb.Field(2).(*array.Int64Builder).AppendValues(a, nil)
	rb.Field(3).(*array.Float64Builder).AppendValues(b, bValid)
	sb := rb.Field(4).(*array.StringBuilder)
	sb.Reserve(n)
	sb.ReserveData(sBytes)
	for _, x := range sIdx {
		sb.Append(sValues[x])
	}
	for j := range f {
		rb.Field(5+j).(*array.Float64Builder).AppendValues(f[j], nil)
	}
	return rb.NewRecordBatch()
}

// buildD builds table d.
func buildD(mem memory.Allocator) arrow.RecordBatch {
	rb := array.NewRecordBuilder(mem, DSchema())
	defer rb.Release()
	kb := rb.Field(0).(*array.Int64Builder)
	nb := rb.Field(1).(*array.StringBuilder)
	for k := 0; k < DRows; k++ {
		kb.Append(int64(k))
		nb.Append(nameValues[k])
	}
	return rb.NewRecordBatch()
}
