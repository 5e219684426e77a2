package tpch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pingcap/go-tpc/tpch/dbgen"

	dfparquet "github.com/dfopt/dfopt/exec/parquet"
)

// DefaultRowGroup is the row count of the Parquet row groups Generate
// writes when GenOptions.RowGroup is 0: 128Ki rows, so SF1's lineitem has
// 46 row groups a scan can split and skip by their statistics.
const DefaultRowGroup = 128 * 1024

// GenOptions configure Generate.
type GenOptions struct {
	// Scale is the scale factor; 0 means SF1.
	Scale Scale
	// RowGroup is the row count of every row group but a table's last;
	// 0 means DefaultRowGroup.
	RowGroup int64
	// Progress receives one line a table and a few lines while orders and
	// lineitem are generated; nil discards them. (dbgen itself prints a
	// "generating ..." and a "generate ... done" line a table to os.Stdout.)
	Progress io.Writer
	// Mem allocates the Arrow buffers; nil means memory.DefaultAllocator.
	Mem memory.Allocator
}

// TableResult describes one written file.
type TableResult struct {
	Name      string
	Path      string
	Rows      int64
	RowGroups int
	Bytes     int64
}

// GenResult describes the files Generate wrote, in the order of Tables.
type GenResult struct {
	Tables []TableResult
}

// Rows is the total row count of the written tables.
func (r GenResult) Rows() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Rows
	}
	return n
}

// genMu serializes Generate: dbgen keeps its state (seeds, scale, loaders)
// in package variables.
var genMu sync.Mutex

// generated is set (under genMu) when a Generate call has initialized
// dbgen. go-tpc's dbgen can be initialized once per process: InitDbGen
// reloads its distributions by appending to them, so a second run in the
// same process draws different rows. Generate refuses a second run rather
// than write data that is not dbgen's.
var generated bool

// ErrAlreadyGenerated is returned by a second Generate in one process (see
// Generate); run it in a new process (dfopt gen-tpch does).
var ErrAlreadyGenerated = errors.New("tpch: go-tpc's dbgen generates once per process (InitDbGen appends to its distributions on every call, so a second run would not give dbgen's rows); run it in a new process")

// errStop is what a loader returns to end a table early (fractional scale
// factors); dbgen wraps it into its own error, so Generate recognizes the
// stop by generator.stopped.
var errStop = errors.New("tpch: enough rows")

// Generate writes the eight TPC-H tables at opts.Scale into dir (created if
// missing) as <table>.parquet, and checks their row counts.
//
// The rows are dbgen's: for an integer scale factor exactly what go-tpc's
// dbgen generates at that scale. dbgen's Go port takes only an integer
// scale, so a fractional scale factor follows the official dbgen's rule for
// one (each scaled table keeps (int)(1000 × SF) × base / 1000 rows): the
// tables are SF1's first rows, and the foreign keys drawn from a scaled
// range (o_custkey, l_partkey, l_suppkey, ps_suppkey) are mapped into the
// smaller ranges, with l_extendedprice and o_totalprice recomputed from the
// mapped part. Every reference then resolves, as at SF1; the values are
// not byte-identical to the official dbgen's at that scale.
//
// dbgen allows one run per process: a second Generate returns
// ErrAlreadyGenerated (errors before generation starts, such as bad options
// or an unwritable directory, do not count).
//
// Each file is written under a temporary name, given page checksums
// (dfparquet.AddPageChecksums) and renamed into place, so an interrupted run
// leaves no truncated file under a final name. The output depends only on
// the options (not on timing or GOMAXPROCS).
func Generate(ctx context.Context, dir string, opts GenOptions) (GenResult, error) {
	if opts.Scale == 0 {
		opts.Scale = 1000
	}
	if opts.Scale < MinScale || opts.Scale > MaxScale || (!opts.Scale.Fractional() && opts.Scale%1000 != 0) {
		return GenResult{}, fmt.Errorf("tpch: scale factor %s is not a multiple of 0.001 below 1 or an integer from 1 to %d", opts.Scale, MaxScale/1000)
	}
	if opts.RowGroup == 0 {
		opts.RowGroup = DefaultRowGroup
	}
	if opts.RowGroup < 1 {
		return GenResult{}, fmt.Errorf("tpch: row group size %d must be positive", opts.RowGroup)
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return GenResult{}, fmt.Errorf("tpch: cannot create the output directory %s: %w", dir, err)
	}
	genMu.Lock()
	defer genMu.Unlock()
	if generated {
		return GenResult{}, ErrAlreadyGenerated
	}

	g := &generator{ctx: ctx, opts: opts, dates: map[string]int32{}, writers: map[string]*tableWriter{}}
	defer g.abort()
	for _, t := range Tables {
		w, err := newTableWriter(dir, t, opts)
		if err != nil {
			return GenResult{}, err
		}
		g.writers[t] = w
	}
	g.nPart = opts.Scale.rows(basePart)
	g.nSupp = opts.Scale.rows(baseSupplier)
	g.nCust = opts.Scale.rows(baseCustomer)
	g.nOrders = opts.Scale.rows(baseOrders)
	g.retail = make([]int64, 0, g.nPart)

	generated = true
	dbgen.InitDbGen(opts.Scale.dbgenScale())
	// The order of go-tpc's own loader: parts come before orders, whose
	// mapped lines need the parts' retail prices at a fractional scale.
	steps := []struct {
		table dbgen.Table
		names []string
		limit int64
	}{
		{dbgen.TNation, []string{"nation"}, 0},
		{dbgen.TRegion, []string{"region"}, 0},
		{dbgen.TCust, []string{"customer"}, g.nCust},
		{dbgen.TSupp, []string{"supplier"}, g.nSupp},
		{dbgen.TPartPsupp, []string{"part", "partsupp"}, g.nPart},
		{dbgen.TOrderLine, []string{"orders", "lineitem"}, g.nOrders},
	}
	for _, st := range steps {
		g.limit, g.loaded, g.stopped = 0, 0, false
		if opts.Scale.Fractional() {
			g.limit = st.limit
		}
		start := time.Now()
		err := dbgen.DbGen(g.loaders(), []dbgen.Table{st.table})
		if err != nil && !g.stopped {
			if g.err != nil {
				err = g.err
			}
			return GenResult{}, fmt.Errorf("tpch: generating %v: %w", st.names, err)
		}
		if g.err != nil {
			return GenResult{}, fmt.Errorf("tpch: generating %v: %w", st.names, g.err)
		}
		for _, name := range st.names {
			if err := g.writers[name].close(); err != nil {
				return GenResult{}, err
			}
			w := g.writers[name]
			fmt.Fprintf(opts.Progress, "%-8s %10d rows %4d row groups %11d bytes seconds=%.1f\n",
				name, w.rows, w.groups, w.bytes, time.Since(start).Seconds())
		}
	}
	var res GenResult
	var bad []error
	for _, t := range Tables {
		w := g.writers[t]
		res.Tables = append(res.Tables, TableResult{Name: t, Path: w.path, Rows: w.rows, RowGroups: w.groups, Bytes: w.bytes})
		if lo, hi := ExpectedRowsRange(t, opts.Scale); w.rows < lo || w.rows > hi {
			want := fmt.Sprint(lo)
			if lo != hi {
				want = fmt.Sprintf("%d to %d", lo, hi)
			}
			bad = append(bad, fmt.Errorf("%s has %d rows, expected %s at SF %s", t, w.rows, want, opts.Scale))
		}
	}
	if len(bad) > 0 {
		return res, fmt.Errorf("tpch: row count check failed: %w", errors.Join(bad...))
	}
	return res, nil
}

// generator holds one run's state: the writers, the dbgen loaders' limit
// and the data a fractional scale factor needs to map foreign keys.
type generator struct {
	ctx     context.Context
	opts    GenOptions
	writers map[string]*tableWriter
	dates   map[string]int32
	err     error // the first writer or date error; ends the run

	limit, loaded int64 // rows (parts, orders...) the current step keeps (0: all dbgen makes), and has loaded
	stopped       bool  // a loader returned errStop

	nPart, nSupp, nCust, nOrders int64
	retail                       []int64 // p_retailprice in cents of parts 1..nPart
}

// loaders maps every dbgen table to its loader. dbgen generates part and
// partsupp (and orders and lineitem) together and hands the same item to
// both tables' loaders, so the first loader writes both and the second does
// nothing.
func (g *generator) loaders() map[dbgen.Table]dbgen.Loader {
	return map[dbgen.Table]dbgen.Loader{
		dbgen.TNation: loaderFunc(g.nation),
		dbgen.TRegion: loaderFunc(g.region),
		dbgen.TCust:   loaderFunc(g.customer),
		dbgen.TSupp:   loaderFunc(g.supplier),
		dbgen.TPart:   loaderFunc(g.part),
		dbgen.TPsupp:  loaderFunc(func(any) error { return nil }),
		dbgen.TOrder:  loaderFunc(g.order),
		dbgen.TLine:   loaderFunc(func(any) error { return nil }),
	}
}

// loaderFunc adapts a function to dbgen.Loader; Flush does nothing because
// the table writers are closed by Generate after each step.
type loaderFunc func(item any) error

func (f loaderFunc) Load(item any) error { return f(item) }
func (f loaderFunc) Flush() error        { return nil }

// next counts one loaded row and says whether to go on: errStop after the
// step's limit (or the writers' first error, or a cancelled context).
func (g *generator) next() error {
	g.loaded++
	if g.err == nil {
		g.err = g.ctx.Err()
	}
	if g.err != nil {
		return g.err
	}
	if g.limit > 0 && g.loaded >= g.limit {
		g.stopped = true
		return errStop
	}
	return nil
}

func (g *generator) nation(item any) error {
	n := item.(*dbgen.Nation)
	w := g.writers["nation"]
	w.int(0, int64(n.Code))
	w.str(1, n.Text)
	w.int(2, int64(n.Join))
	w.str(3, n.Comment)
	g.row(w)
	return g.next()
}

func (g *generator) region(item any) error {
	r := item.(*dbgen.Region)
	w := g.writers["region"]
	w.int(0, int64(r.Code))
	w.str(1, r.Text)
	w.str(2, r.Comment)
	g.row(w)
	return g.next()
}

func (g *generator) customer(item any) error {
	c := item.(*dbgen.Cust)
	w := g.writers["customer"]
	w.int(0, int64(c.CustKey))
	w.str(1, c.Name)
	w.str(2, c.Address)
	w.int(3, int64(c.NationCode))
	w.str(4, c.Phone)
	w.money(5, int64(c.Acctbal))
	w.str(6, c.MktSegment)
	w.str(7, c.Comment)
	g.row(w)
	return g.next()
}

func (g *generator) supplier(item any) error {
	s := item.(*dbgen.Supp)
	w := g.writers["supplier"]
	w.int(0, int64(s.SuppKey))
	w.str(1, s.Name)
	w.str(2, s.Address)
	w.int(3, int64(s.NationCode))
	w.str(4, s.Phone)
	w.money(5, int64(s.Acctbal))
	w.str(6, s.Comment)
	g.row(w)
	return g.next()
}

func (g *generator) part(item any) error {
	p := item.(*dbgen.Part)
	w := g.writers["part"]
	w.int(0, int64(p.PartKey))
	w.str(1, p.Name)
	w.str(2, p.Mfgr)
	w.str(3, p.Brand)
	w.str(4, p.Type)
	w.int(5, int64(p.Size))
	w.str(6, p.Container)
	w.money(7, int64(p.RetailPrice))
	w.str(8, p.Comment)
	g.row(w)
	if g.opts.Scale.Fractional() {
		g.retail = append(g.retail, int64(p.RetailPrice))
	}
	ps := g.writers["partsupp"]
	for i, s := range p.S {
		supp := int64(s.SuppKey)
		if g.opts.Scale.Fractional() {
			supp = partSuppBridge(int64(s.PartKey), int64(i), g.nSupp)
		}
		ps.int(0, int64(s.PartKey))
		ps.int(1, supp)
		ps.int(2, int64(s.Qty))
		ps.money(3, int64(s.SCost))
		ps.str(4, s.Comment)
		g.row(ps)
	}
	return g.next()
}

func (g *generator) order(item any) error {
	o := item.(*dbgen.Order)
	cust, total := int64(o.CustKey), int64(o.TotalPrice)
	frac := g.opts.Scale.Fractional()
	if frac {
		cust = g.mapCustomer(cust)
		total = 0
	}
	li := g.writers["lineitem"]
	for i := range o.Lines {
		l := &o.Lines[i]
		part, supp, eprice := int64(l.PartKey), int64(l.SuppKey), int64(l.EPrice)
		if frac {
			part, supp = g.mapPartSupp(part, supp)
			eprice = g.retail[part-1] * int64(l.Quantity)
			// dbgen's o_totalprice: the lines' prices after discount and
			// tax, in cents, truncated at each step.
			total += ((eprice * (100 - int64(l.Discount))) / 100) * (100 + int64(l.Tax)) / 100
		}
		li.int(0, int64(l.OKey))
		li.int(1, part)
		li.int(2, supp)
		li.int(3, int64(l.LCnt))
		li.f64(4, float64(l.Quantity))
		li.money(5, eprice)
		li.money(6, int64(l.Discount))
		li.money(7, int64(l.Tax))
		li.str(8, string(l.RFlag))
		li.str(9, string(l.LStatus))
		li.date(10, g.date(l.SDate))
		li.date(11, g.date(l.CDate))
		li.date(12, g.date(l.RDate))
		li.str(13, l.ShipInstruct)
		li.str(14, l.ShipMode)
		li.str(15, l.Comment)
		g.row(li)
	}
	w := g.writers["orders"]
	w.int(0, int64(o.OKey))
	w.int(1, cust)
	w.str(2, string(o.Status))
	w.money(3, total)
	w.date(4, g.date(o.Date))
	w.str(5, o.OrderPriority)
	w.str(6, o.Clerk)
	w.int(7, o.ShipPriority)
	w.str(8, o.Comment)
	g.row(w)
	err := g.next()
	if q := g.nOrders / 4; q > 0 && g.loaded < g.nOrders && g.loaded%q == 0 {
		fmt.Fprintf(g.opts.Progress, "orders   %10d of %d generated, lineitem %d rows so far\n", g.loaded, g.nOrders, li.rows+li.n)
	}
	return err
}

// row ends the current row of w.
func (g *generator) row(w *tableWriter) { w.endRow() }

// partSuppBridge is dbgen's PART_SUPP_BRIDGE: the supplier key of part p's
// s-th supplier (0 to 3) among nSupp suppliers.
func partSuppBridge(p, s, nSupp int64) int64 {
	return (p+s*(nSupp/suppPerPart+(p-1)/nSupp))%nSupp + 1
}

// mapPartSupp maps a lineitem's part and supplier keys drawn at SF1 into a
// fractional scale's ranges: the part key keeps its relative position, and
// the supplier stays the line's part's s-th supplier (s recovered from the
// SF1 key), as dbgen draws them at that scale.
func (g *generator) mapPartSupp(part, supp int64) (int64, int64) {
	s := int64(0)
	for i := int64(0); i < suppPerPart; i++ {
		if partSuppBridge(part, i, baseSupplier) == supp {
			s = i
			break
		}
	}
	p := (part-1)*g.nPart/basePart + 1
	return p, partSuppBridge(p, s, g.nSupp)
}

// mapCustomer maps an order's customer key drawn at SF1 into a fractional
// scale's range, then skips every third customer as dbgen does (a third of
// the customers have no orders).
func (g *generator) mapCustomer(c int64) int64 {
	c = (c-1)*g.nCust/baseCustomer + 1
	delta := int64(1)
	for c%3 == 0 && g.nCust > 2 {
		c = min(c+delta, g.nCust)
		delta = -delta
	}
	return c
}

// date converts dbgen's YYYY-MM-DD text to days since 1970-01-01; dbgen
// uses a few thousand distinct dates, so they are cached.
func (g *generator) date(s string) int32 {
	if d, ok := g.dates[s]; ok {
		return d
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		if g.err == nil {
			g.err = fmt.Errorf("dbgen date %q: %w", s, err)
		}
		return 0
	}
	d := int32(arrow.Date32FromTime(t))
	g.dates[s] = d
	return d
}

// abort removes the temporary files of writers that were not closed.
func (g *generator) abort() {
	for _, w := range g.writers {
		w.abort()
	}
}

// tableWriter builds one table's row groups and writes them, on its own
// goroutine, to a temporary Parquet file.
type tableWriter struct {
	name, path string
	rowGroup   int64
	rb         *array.RecordBuilder
	cols       []array.Builder
	n          int64 // rows in the current row group
	rows       int64 // rows handed to the writer
	groups     int
	bytes      int64

	tmp     *os.File
	fw      *pqarrow.FileWriter
	batches chan arrow.RecordBatch
	done    chan error
	closed  bool
}

func newTableWriter(dir, name string, opts GenOptions) (*tableWriter, error) {
	schema, err := Schema(name)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name+".parquet")
	tmp, err := os.CreateTemp(dir, "."+name+".parquet.tmp*")
	if err != nil {
		return nil, fmt.Errorf("tpch: %w", err)
	}
	// CreateTemp makes the file private; the data is not.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("tpch: %w", err)
	}
	props := parquet.NewWriterProperties(
		parquet.WithMaxRowGroupLength(opts.RowGroup),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithStats(true),
		parquet.WithAllocator(opts.Mem))
	fw, err := pqarrow.NewFileWriter(schema, tmp, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(opts.Mem)))
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("tpch: %s: %w", path, err)
	}
	w := &tableWriter{
		name: name, path: path, rowGroup: opts.RowGroup,
		rb: array.NewRecordBuilder(opts.Mem, schema), tmp: tmp, fw: fw,
		batches: make(chan arrow.RecordBatch, 1), done: make(chan error, 1),
	}
	w.cols = w.rb.Fields()
	go w.write()
	return w, nil
}

// write writes the batches it receives, one row group each, and reports
// the first error when the channel closes (later batches are dropped).
func (w *tableWriter) write() {
	var err error
	for rec := range w.batches {
		if err == nil {
			err = w.fw.Write(rec)
		}
		rec.Release()
	}
	w.done <- err
}

func (w *tableWriter) int(i int, v int64)   { w.cols[i].(*array.Int64Builder).Append(v) }
func (w *tableWriter) f64(i int, v float64) { w.cols[i].(*array.Float64Builder).Append(v) }
func (w *tableWriter) str(i int, v string)  { w.cols[i].(*array.StringBuilder).Append(v) }
func (w *tableWriter) date(i int, d int32)  { w.cols[i].(*array.Date32Builder).Append(arrow.Date32(d)) }

// money appends an amount dbgen keeps in cents as the float64 nearest to
// its decimal value (what parsing dbgen's two-decimal text gives).
func (w *tableWriter) money(i int, cents int64) { w.f64(i, float64(cents)/100) }

// endRow counts a finished row and hands a full row group to the writer.
func (w *tableWriter) endRow() {
	w.n++
	if w.n == w.rowGroup {
		w.flush()
	}
}

func (w *tableWriter) flush() {
	if w.n == 0 {
		return
	}
	rec := w.rb.NewRecordBatch()
	w.rows += w.n
	w.groups++
	w.n = 0
	w.batches <- rec // the writer drains batches until close, even after an error
}

// close writes the last row group and the footer, adds page checksums and
// renames the file into place.
func (w *tableWriter) close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.flush()
	close(w.batches)
	werr := <-w.done
	w.rb.Release()
	cerr := w.fw.Close() // writes the footer and closes the file
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(w.tmp.Name())
		return fmt.Errorf("tpch: %s: %w", w.path, err)
	}
	// arrow-go writes no page checksums; the scan verifies them.
	if err := dfparquet.AddPageChecksums(w.tmp.Name()); err != nil {
		os.Remove(w.tmp.Name())
		return fmt.Errorf("tpch: %s: %w", w.path, err)
	}
	st, err := os.Stat(w.tmp.Name())
	if err == nil {
		err = os.Rename(w.tmp.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.tmp.Name())
		return fmt.Errorf("tpch: %s: %w", w.path, err)
	}
	w.bytes = st.Size()
	return nil
}

// abort stops a writer that was not closed and removes its temporary file.
func (w *tableWriter) abort() {
	if w == nil || w.closed {
		return
	}
	w.closed = true
	close(w.batches)
	<-w.done
	w.rb.Release()
	w.fw.Close()
	os.Remove(w.tmp.Name())
}
