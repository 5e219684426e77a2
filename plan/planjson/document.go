package planjson

import (
	"github.com/dfopt/dfopt/plan"
)

// FormatVersion is the value of the "format" field this package reads and
// writes. A file with any other value is rejected: a future dfopt-plan/2
// must not be half-read by an old build.
const FormatVersion = "dfopt-plan/1"

// Document is a decoded plan file.
type Document struct {
	// Description is the optional free-text "description" field: what the
	// file demonstrates or where a regression case came from.
	Description string
	// Tables maps each table name to its definition. Scans in Plan
	// reference the table's Source (by identity).
	Tables map[string]*TableSpec
	// Plan is the unresolved plan tree, built from the plan package's types.
	Plan plan.Node
	// Flags holds the "flags" object with names kept exactly as written;
	// checking them against the rule names is the rules package's job. It is
	// nil when the file has no "flags" field.
	Flags map[string]bool
	// Tier is the optional "tier" field, the optimizer's preset the file is
	// checked under ("bounded" or "standard"; "" means the default,
	// standard), as written: checking the name is the rules package's job.
	Tier string
	// Expect is the optional "expect" object; nil when absent.
	Expect *Expect
}

// TableSpec is one entry of "tables": either an inline table of values or a
// reference to a Parquet file.
type TableSpec struct {
	// Inline is the table for {"columns": [...]}; nil for a Parquet table.
	Inline *plan.Table
	// Parquet is the path exactly as written in {"parquet": PATH}; Encode
	// writes it back unchanged.
	Parquet string
	// ParquetPath is Parquet resolved against Options.BaseDir (unchanged when
	// Parquet is absolute or BaseDir is empty): the path that was opened.
	ParquetPath string
	// ParquetSource is what Options.OpenParquet returned for the file.
	ParquetSource plan.Source
}

// Source returns the plan.Source scans of this table read: the inline table
// or the opened Parquet source.
func (t *TableSpec) Source() plan.Source {
	if t == nil {
		return nil
	}
	if t.Inline != nil {
		return t.Inline
	}
	return t.ParquetSource
}

// Expect is the "expect" object: what checking the file must observe.
type Expect struct {
	// Counters must match the optimizer's counters exactly; nil when the
	// file has no "counters" field. Names are kept as written.
	Counters map[string]int64
	// Error is nil when the file has no "error" field (the outcome is not
	// checked). Otherwise it points to the expected error kind, or to the
	// empty kind for "error": null, which expects success.
	Error *plan.ErrorKind
}

// ExpectsSuccess reports whether the file says "error": null.
func (e *Expect) ExpectsSuccess() bool { return e != nil && e.Error != nil && *e.Error == "" }

// Options configures Decode.
type Options struct {
	// BaseDir is the directory relative Parquet paths are resolved against
	// (DecodeFile sets it to the file's directory).
	BaseDir string
	// UDFs resolves {"udf": NAME}; nil means plan.BuiltinUDFs() (one
	// registry shared by every Decode call, so that decoded plans compare
	// equal under plan.Equal, which compares UDFs by identity).
	UDFs *plan.UDFRegistry
	// Extensions resolves {"op": "extension", "name": NAME}; nil means
	// testops.Registry().
	Extensions *plan.ExtensionRegistry
	// OpenParquet opens a Parquet table: name is the table's name, path the
	// resolved path. The executor supplies it (it reads the file's schema);
	// without it a Parquet table is an error.
	OpenParquet func(name, path string) (plan.Source, error)
}
