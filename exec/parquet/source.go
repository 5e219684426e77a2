package parquet

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/exec/kernel"
	"github.com/dfopt/dfopt/exec/ops"
	"github.com/dfopt/dfopt/exec/step"
	"github.com/dfopt/dfopt/plan"
)

// Source reads a Parquet file. It decodes only the columns a scan
// asks for, straight from the column chunks into one contiguous Arrow array
// per column (row groups and columns in parallel with
// exec.ScanRequest.Parallelism; see readRowGroups), and it uses the pushed
// conjuncts it classifies
// Inexact (simple column-versus-literal comparisons) to skip row groups whose
// statistics prove that no row can satisfy them. The file's schema is read
// once, by OpenFile; every scan checks that the file still has it.
type Source struct {
	name   string
	path   string
	schema plan.Schema
	// rows is the file's row count in its footer when it was opened: the
	// row estimate (plan.RowCountEstimator).
	rows int64
	// facts are the columns' facts from the row-group statistics when the
	// file was opened (ColumnFacts).
	facts map[string]plan.ColumnFacts
	// leaves lists each column's Parquet leaf columns, in order: one for
	// a scalar column, one per element or field for a list or struct.
	leaves [][]int
	// nested is whether some column is a list or struct; such a file is
	// decoded by arrow-go's reader (readNested) instead of the page decoder.
	nested bool

	rowGroupsRead    atomic.Int64
	rowGroupsSkipped atomic.Int64
	rowGroupsUnread  atomic.Int64
	rowsDropped      atomic.Int64
	chunksSkipped    atomic.Int64

	// verified holds the column chunks whose page checksums matched, for
	// the file as it was at stamp; a file with another stamp is verified
	// afresh.
	verifyMu sync.Mutex
	stamp    fileStamp
	verified map[chunkID]bool
}

// fileStamp identifies a version of a file: its size and modification
// time.
type fileStamp struct {
	size  int64
	mtime int64
}

// Stats counts, over the source's lifetime, the row groups its scans
// read, the row groups they skipped thanks to statistics, and the row
// groups they left unread because a max-rows hint was met by the groups
// before them (exec.ScanRequest.MaxRows); and, of the row groups read, the
// rows the pushed conjuncts tested row by row refuted (RowsDropped) and the
// column chunks never decoded because no row of their group survived those
// tests (ChunksSkipped; late.go).
type Stats struct {
	RowGroupsRead, RowGroupsSkipped, RowGroupsUnread int64
	RowsDropped, ChunksSkipped                       int64
}

// Open opens a Parquet file as a plan source named name (see
// OpenFile; the concrete type is *Source).
func Open(name, path string) (plan.Source, error) {
	s, err := OpenFile(name, path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenFile reads the footer of the file at path and returns a source
// with the file's schema. Every column must have a dfopt type (bool, int32,
// int64, float64, string); errors are *plan.Error of kind source_error naming
// the source and the file.
func OpenFile(name, path string) (*Source, error) {
	rdr, fr, err := openParquet(path, memory.DefaultAllocator)
	if err != nil {
		return nil, step.SourceError(name, err, "cannot open parquet file %q", path)
	}
	defer rdr.Close()
	as, err := fr.Schema()
	if err != nil {
		return nil, step.SourceError(name, err, "parquet file %q: cannot read its schema", path)
	}
	as = withDurations(as)
	ps, err := kernel.PlanSchema(as)
	if err != nil {
		return nil, step.SourceError(name, err, "parquet file %q: unsupported schema", path)
	}
	leaves, err := leafColumns(rdr, ps)
	if err != nil {
		return nil, step.SourceError(name, err, "parquet file %q: unsupported schema", path)
	}
	nested := false
	for _, f := range ps.Fields() {
		nested = nested || f.Type.IsNested()
	}
	return &Source{name: name, path: path, schema: ps, rows: rdr.NumRows(), facts: parquetFacts(rdr, ps, leaves),
		leaves: leaves, nested: nested}, nil
}

// leafColumns maps each column of schema to its Parquet leaf columns, by
// the name of each leaf's root field.
func leafColumns(rdr *file.Reader, schema plan.Schema) ([][]int, error) {
	ps := rdr.MetaData().Schema
	out := make([][]int, schema.Len())
	for i := 0; i < ps.NumColumns(); i++ {
		j := schema.Index(ps.ColumnRoot(i).Name())
		if j < 0 {
			return nil, fmt.Errorf("leaf column %d belongs to no column of the schema", i)
		}
		out[j] = append(out[j], i)
	}
	for j, l := range out {
		if len(l) == 0 {
			return nil, fmt.Errorf("column %q has no leaf column", schema.Field(j).Name)
		}
	}
	return out, nil
}

// openParquet opens the file and pqarrow's view of it (the Arrow schema).
// Only a regular file is read: a named pipe would block the open (or the
// footer read) forever, and a directory or device is no Parquet file.
func openParquet(path string, mem memory.Allocator) (*file.Reader, *pqarrow.FileReader, error) {
	rdr, fr, _, err := openParquetFile(path, mem)
	return rdr, fr, err
}

// openParquetFile is openParquet that also returns the open file (closed
// with the reader), which the page decoder reads column chunks from.
func openParquetFile(path string, mem memory.Allocator) (*file.Reader, *pqarrow.FileReader, *os.File, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, nil, notRegular(path, st.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	// The file may have been replaced between the two looks.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(path, st.Mode())
		}
		return nil, nil, nil, err
	}
	rdr, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		rdr.Close()
		return nil, nil, nil, err
	}
	return rdr, fr, f, nil
}

// notRegular is the error for a path that is not a regular file, naming
// what it is instead.
func notRegular(path string, mode os.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case mode.IsDir():
		what = "a directory, not a regular file"
	case mode&os.ModeDevice != 0:
		what = "a device, not a regular file"
	case mode&os.ModeSocket != 0:
		what = "a socket, not a regular file"
	}
	return fmt.Errorf("%s is %s: only regular files are read as Parquet", path, what)
}

// Name returns the source's name.
func (s *Source) Name() string { return s.name }

// EstimatedRows reports the row count the file's footer held when it was
// opened (plan.RowCountEstimator): exact unless the file changed since,
// which the scan itself detects; the standard tier's build_side rule reads
// it.
func (s *Source) EstimatedRows() (int64, bool) { return s.rows, s.rows >= 0 }

// Path returns the file's path.
func (s *Source) Path() string { return s.path }

// Schema returns the schema read when the source was opened.
func (s *Source) Schema() plan.Schema { return s.schema }

// SupportsProjection reports true: only the requested columns are decoded.
func (s *Source) SupportsProjection() bool { return true }

// Stats returns the row-group counters.
func (s *Source) Stats() Stats {
	return Stats{RowGroupsRead: s.rowGroupsRead.Load(), RowGroupsSkipped: s.rowGroupsSkipped.Load(),
		RowGroupsUnread: s.rowGroupsUnread.Load(), RowsDropped: s.rowsDropped.Load(), ChunksSkipped: s.chunksSkipped.Load()}
}

// ClassifyPredicates answers Inexact for the conjuncts the source can test
// against row-group statistics (comparisons of a column and a literal,
// is_in of a column, starts_with of a string column and a literal, an or
// of such tests of one column: see rgTest) and Unsupported otherwise.
// It never answers Exact: skipping a row group still leaves non-matching
// rows in the groups that are read.
func (s *Source) ClassifyPredicates(conjuncts []plan.Expr) []plan.PredicateSupport {
	out := make([]plan.PredicateSupport, len(conjuncts))
	for i, c := range conjuncts {
		if _, ok := parseTest(c, s.schema); ok {
			out[i] = plan.Inexact
		}
	}
	return out
}

// UsesKeyFilters reports that scans of the file use runtime key filters
// (exec.KeyFilterSource): the late-materialized read tests the key column
// first and decodes the others only for the rows that can match.
func (s *Source) UsesKeyFilters() bool { return true }

// Scan reads the requested columns of the row groups that the pushed
// conjuncts do not rule out. It fails with a clear error when the file is
// gone, unreadable, or no longer has the schema it had when opened.
func (s *Source) Scan(ctx context.Context, req exec.ScanRequest) (array.RecordReader, error) {
	mem := req.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rdr, fr, f, err := openParquetFile(s.path, mem)
	if err != nil {
		return nil, fmt.Errorf("cannot open parquet file %q: %w", s.path, err)
	}
	defer rdr.Close()
	as, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: cannot read its schema: %w", s.path, err)
	}
	if err := sameParquetSchema(s.schema, withDurations(as)); err != nil {
		return nil, fmt.Errorf("parquet file %q no longer matches the schema it was opened with: %w", s.path, err)
	}
	idx, err := req.ColumnIndices(s.schema)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	groups, err := s.selectRowGroups(rdr, req.Predicates, req)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	fields := make([]arrow.Field, len(idx))
	for i, j := range idx {
		f := s.schema.Field(j)
		dt, _ := kernel.ArrowType(f.Type)
		fields[i] = arrow.Field{Name: f.Name, Type: dt, Nullable: f.Nullable}
	}
	schema := arrow.NewSchema(fields, nil)
	if len(idx) == 0 || len(groups) == 0 {
		// No column to decode (the row count comes from the metadata), or
		// no row group left: build the answer without reading data.
		var rows int64
		if len(idx) == 0 {
			for _, g := range groups {
				rows += rdr.MetaData().RowGroup(g).NumRows()
			}
		}
		var batches []arrow.RecordBatch
		if len(idx) == 0 && rows > 0 {
			batches = []arrow.RecordBatch{array.NewRecordBatch(schema, nil, rows)}
		}
		rr, err := array.NewRecordReader(schema, batches)
		for _, b := range batches {
			b.Release()
		}
		if err != nil {
			return nil, err
		}
		return rr, nil
	}
	var leaves []int
	for _, j := range idx {
		leaves = append(leaves, s.leaves[j]...)
	}
	if err := s.verifyChecksums(rdr, groups, leaves, ops.Parallel{Workers: req.Parallelism}); err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	if s.nested {
		rec, err := s.readNested(ctx, fr, schema, leaves, groups, mem)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
		}
		rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			return nil, err
		}
		return rr, nil
	}
	cols, err := pqColumns(rdr, s.schema, idx)
	if err != nil {
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	for i := range cols {
		cols[i].src = f
	}
	par := ops.Parallel{Workers: req.Parallelism}
	var rec arrow.RecordBatch
	late := false
	if filt := rowTests(req.Predicates, req.KeyFilters, s.schema, cols); filt != nil && !req.HasMaxRows && len(req.Guards) == 0 {
		// Late materialization (late.go): the tested columns first, the
		// others only for the rows that pass. Not under a max-rows hint,
		// whose row count is of the unfiltered rows (the optimizer never
		// gives both), nor given guards (exec.ScanRequest.Guards): the
		// executor's guards must meet every row of the groups read.
		var counts lateCounts
		rec, counts, late, err = readLate(ctx, rdr, schema, cols, groups, filt, mem, par)
		s.rowsDropped.Add(counts.rowsDropped)
		s.chunksSkipped.Add(counts.chunksSkipped)
	}
	if !late {
		rec, err = readRowGroups(ctx, rdr, schema, cols, groups, mem, par)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("parquet file %q: %w", s.path, err)
	}
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		return nil, err
	}
	return rr, nil
}

// verifyChecksums checks the page checksums of the column chunks a scan
// is about to decode (checksum.go), through a second handle on the
// file (arrow-go's reader does not expose its own). Each chunk is verified
// once while the file keeps its size and modification time; a file that
// changed is verified again, chunk by chunk.
func (s *Source) verifyChecksums(rdr *file.Reader, groups, leaves []int, par ops.Parallel) error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return notRegular(s.path, st.Mode())
	}
	stamp := fileStamp{size: st.Size(), mtime: st.ModTime().UnixNano()}
	s.verifyMu.Lock()
	if s.stamp != stamp || s.verified == nil {
		s.stamp, s.verified = stamp, map[chunkID]bool{}
	}
	var todo []chunkID
	for _, g := range groups {
		for _, leaf := range leaves {
			if id := (chunkID{g, leaf}); !s.verified[id] {
				todo = append(todo, id)
			}
		}
	}
	s.verifyMu.Unlock()
	errs, err := verifyPageChecksums(f, st.Size(), rdr.MetaData(), todo, par)
	if err != nil {
		return err
	}
	s.verifyMu.Lock()
	defer s.verifyMu.Unlock()
	for i, id := range todo {
		if errs[i] != nil {
			return errs[i]
		}
		if s.stamp == stamp {
			s.verified[id] = true
		}
	}
	return nil
}

// sameParquetSchema compares the declared schema with the file's by name,
// type and nullability (the file's fields carry PARQUET:field_id metadata,
// which is ignored).
func sameParquetSchema(want plan.Schema, got *arrow.Schema) error {
	have := map[string]arrow.Field{}
	for _, f := range got.Fields() {
		have[f.Name] = f
	}
	for i := 0; i < want.Len(); i++ {
		w := want.Field(i)
		f, ok := have[w.Name]
		if !ok {
			return fmt.Errorf("column %q is missing", w.Name)
		}
		t, err := kernel.PlanType(f.Type)
		if err != nil {
			return fmt.Errorf("column %q: %w", w.Name, err)
		}
		if t != w.Type {
			return fmt.Errorf("column %q is now %s, was %s", w.Name, t, w.Type)
		}
		if f.Nullable != w.Nullable {
			return fmt.Errorf("column %q changed nullability (nullable=%v, was %v)", w.Name, f.Nullable, w.Nullable)
		}
		if j := got.FieldIndices(w.Name); len(j) != 1 || j[0] != i {
			return fmt.Errorf("column %q moved or is duplicated", w.Name)
		}
	}
	if got.NumFields() != want.Len() {
		return fmt.Errorf("the file has %d columns, was %d", got.NumFields(), want.Len())
	}
	return nil
}

// selectRowGroups returns the row groups no pushed conjunct rules out, in
// file order, and counts the read and skipped groups. Given guards
// (exec.ScanRequest.Guards), it skips a group only when, besides, the
// group's statistics prove every guard total over its values
// (guardsTotalIn): a guard that may raise there must meet its rows. Under a max-rows hint
// (exec.ScanRequest.MaxRows) it stops once the groups selected hold that many
// rows: the groups after them are neither read nor counted as skipped
// (Stats.RowGroupsUnread counts them).
func (s *Source) selectRowGroups(rdr *file.Reader, pushed []plan.PushedPredicate, req exec.ScanRequest) ([]int, error) {
	var tests []rgTest
	for _, p := range pushed {
		if c, ok := parseTest(p.Expr, s.schema); ok {
			tests = append(tests, c)
		}
	}
	md := rdr.MetaData()
	groups := make([]int, 0, md.NumRowGroups())
	var selected int64
	for g := 0; g < md.NumRowGroups(); g++ {
		if req.HasMaxRows && selected >= req.MaxRows {
			s.rowGroupsUnread.Add(int64(md.NumRowGroups() - g))
			break
		}
		rg := md.RowGroup(g)
		skip := false
		groupTests := tests
		if len(tests) > 0 && len(req.Guards) > 0 && !s.guardsTotalIn(md, g, req.Guards) {
			// A guard may raise on a row of this group: it is read, so
			// the executor's guards meet every such row.
			groupTests = nil
		}
		for _, c := range groupTests {
			cc, err := rg.ColumnChunk(s.leaves[c.column][0])
			if err != nil {
				return nil, err
			}
			if c.excludes(cc, rg.NumRows()) {
				skip = true
				break
			}
		}
		if skip {
			s.rowGroupsSkipped.Add(1)
			continue
		}
		s.rowGroupsRead.Add(1)
		groups = append(groups, g)
		selected += rg.NumRows()
	}
	return groups, nil
}

// HonoursGuards reports that the source honours exec.ScanRequest.Guards
// (exec.GuardedSource): it applies no conjunct to rows, and skips a row
// group by its statistics only when they also prove that no guard raises
// on its rows.
func (s *Source) HonoursGuards() bool { return true }

// EvaluatesScanGuards reports that scans of the file evaluate
// plan.ScanNode.Guards: dfopt's executor scans it
// (plan.ScanGuardEvaluator).
func (s *Source) EvaluatesScanGuards() bool { return true }

// guardsTotalIn reports whether the statistics of row group g prove every
// guard total over the group's values (plan.Prove over the group's
// min/max: `a * 2 + 1` cannot overflow when a's bounds are small, `a / b`
// cannot raise when b's exclude 0 and -1). A column without statistics,
// or a guard Prove cannot show total, answers false: the group is read.
func (s *Source) guardsTotalIn(md *metadata.FileMetaData, g int, guards []plan.Expr) bool {
	facts := func(column string) plan.Interval {
		j := s.schema.Index(column)
		if j < 0 || len(s.leaves[j]) != 1 {
			return plan.Interval{}
		}
		t := s.schema.Field(j).Type
		if t != plan.Int32 && t != plan.Int64 && t != plan.Float64 {
			return plan.Interval{}
		}
		f, ok := groupsFacts(md, g, g+1, s.leaves[j][0], t)
		if !ok {
			return plan.Interval{}
		}
		return plan.FactInterval(f, t)
	}
	for _, e := range guards {
		if pr := plan.Prove(e, s.schema, facts); !pr.Total {
			return false
		}
	}
	return true
}
