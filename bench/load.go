package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec"
	dfparquet "github.com/dfopt/dfopt/exec/parquet"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// Query is one loaded benchmark query: a decoded plan file and the flags it
// runs with.
type Query struct {
	// Name is the file's base name without ".json" (q1.json → "q1").
	Name string
	// File is the path the query was loaded from.
	File string
	// Plan is the unresolved plan as decoded; its scans read the suite's
	// sources (Parquet, or in-memory Arrow with Options.Memory).
	Plan plan.Node
	// Flags are the optimizer flags: the defaults, then the file's "flags",
	// then Options.Flags.
	Flags rules.Flags
	// NoOpt collects Plan as written, without rules.Optimize.
	NoOpt bool
	// MemoryLimit, when above 0, bounds each collect's memory
	// (exec.Options.MemoryLimit): a plan that needs more fails with
	// resource_exhausted instead of exhausting the machine (dfopt bench
	// -worth sets it for the plans a rule's flag off leaves unoptimized).
	MemoryLimit int64
}

// Suite is a set of loaded queries and the tables they share. In memory
// mode each Parquet file is read once, however many queries and tables
// name it. Close releases the tables.
type Suite struct {
	Queries []*Query
	// LoadTime is the time spent reading Parquet files into memory
	// (zero without Options.Memory).
	LoadTime time.Duration

	mem     memory.Allocator
	loaded  map[string]arrow.RecordBatch // absolute path → whole file (memory mode)
	sources []*exec.ArrowSource
}

// Load decodes the plan files. With opts.DataDir, every Parquet table is
// opened from that directory under its file's base name instead. Without opts.Memory their Parquet tables are
// opened as exec Parquet sources (every collect decodes the file again);
// with it each file is read whole into one Arrow batch now and served from
// memory (exec.NewArrowSource). Unknown flag names are an error.
func Load(ctx context.Context, files []string, opts Options) (*Suite, error) {
	s := &Suite{mem: opts.Mem, loaded: map[string]arrow.RecordBatch{}}
	if s.mem == nil {
		s.mem = memory.DefaultAllocator
	}
	open := dfparquet.Open
	if opts.Memory {
		open = func(name, path string) (plan.Source, error) { return s.openInMemory(ctx, name, path) }
	}
	popts := planjson.Options{OpenParquet: open}
	if opts.DataDir != "" {
		popts.OpenParquet = func(name, path string) (plan.Source, error) {
			return open(name, filepath.Join(opts.DataDir, filepath.Base(path)))
		}
	}
	for _, f := range files {
		doc, err := planjson.DecodeFile(f, popts)
		if err != nil {
			s.Close()
			return nil, err
		}
		merged := map[string]bool{}
		for k, v := range doc.Flags {
			merged[k] = v
		}
		for k, v := range opts.Flags {
			merged[k] = v
		}
		flags, err := rules.FlagsFromMap(merged)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: flags: %w", f, err)
		}
		s.Queries = append(s.Queries, &Query{Name: QueryName(f), File: f, Plan: doc.Plan, Flags: flags, NoOpt: opts.NoOpt})
	}
	return s, nil
}

// QueryName is the name a query file is reported under: its base name
// without the ".json" extension.
func QueryName(file string) string {
	return strings.TrimSuffix(filepath.Base(file), ".json")
}

// openInMemory returns an in-memory source over the whole file at path,
// reading it on first use.
func (s *Suite) openInMemory(ctx context.Context, name, path string) (plan.Source, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	rec, ok := s.loaded[abs]
	if !ok {
		start := time.Now()
		rec, err = ReadParquet(ctx, abs, s.mem)
		if err != nil {
			return nil, err
		}
		s.LoadTime += time.Since(start)
		s.loaded[abs] = rec
	}
	src, err := exec.NewArrowSource(name, rec)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", path, err)
	}
	s.sources = append(s.sources, src)
	return src, nil
}

// Close releases the in-memory tables.
func (s *Suite) Close() {
	for _, src := range s.sources {
		src.Release()
	}
	s.sources = nil
	for _, rec := range s.loaded {
		rec.Release()
	}
	s.loaded = map[string]arrow.RecordBatch{}
}

// ReadParquet reads a whole Parquet file into one Arrow batch, each column
// one contiguous array (row groups concatenated), the way an in-memory
// engine holds a table. The caller releases it. It reads through arrow-go's
// pqarrow, not exec's own page decoder, on purpose: the generator's tests
// then check the files with a reader dfopt did not write.
func ReadParquet(ctx context.Context, path string, mem memory.Allocator) (arrow.RecordBatch, error) {
	rdr, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return nil, fmt.Errorf("cannot open parquet file %q: %w", path, err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, mem)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", path, err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", path, err)
	}
	defer tbl.Release()
	cols := make([]arrow.Array, tbl.NumCols())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	fields := make([]arrow.Field, tbl.NumCols())
	for i := range cols {
		f := tbl.Schema().Field(i)
		fields[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable}
		chunks := tbl.Column(i).Data().Chunks()
		switch len(chunks) {
		case 1:
			chunks[0].Retain()
			cols[i] = chunks[0]
		case 0:
			b := array.NewBuilder(mem, f.Type)
			cols[i] = b.NewArray()
			b.Release()
		default:
			c, err := array.Concatenate(chunks, mem)
			if err != nil {
				release()
				return nil, fmt.Errorf("parquet file %q: column %q: %w", path, f.Name, err)
			}
			cols[i] = c
		}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, tbl.NumRows())
	release()
	return rec, nil
}
