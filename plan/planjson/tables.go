package planjson

import (
	"fmt"
	"path/filepath"

	"github.com/dfopt/dfopt/plan"
)

func (d *decoder) decodeTables(v *jvalue, p *path) (map[string]*TableSpec, *Error) {
	if v.kind != jObject {
		return nil, errAt(v, p, "expected an object of table names to tables, got %s", v.kind)
	}
	if v.dup != nil {
		return nil, &Error{Path: p.field(v.dup.key).String(), Offset: v.dup.off, Msg: fmt.Sprintf("table %q defined twice", v.dup.key)}
	}
	tables := make(map[string]*TableSpec, len(v.obj))
	for _, m := range v.obj {
		tp := p.field(m.key)
		if m.key == "" {
			return nil, &Error{Path: p.String(), Offset: m.off, Msg: "a table name must not be empty"}
		}
		spec, err := d.decodeTable(m.key, m.val, tp)
		if err != nil {
			return nil, err
		}
		tables[m.key] = spec
	}
	return tables, nil
}

func (d *decoder) decodeTable(name string, v *jvalue, p *path) (*TableSpec, *Error) {
	if err := checkFields(v, p, "a table", []string{"columns", "parquet", "pushdown", "zone_rows"}); err != nil {
		return nil, err
	}
	cols, pq := v.get("columns"), v.get("parquet")
	zr := v.get("zone_rows")
	if pd := v.get("pushdown"); pd != nil && cols != nil {
		spec, err := inlineTable(name, cols, p.field("columns"))
		if err != nil {
			return nil, err
		}
		support, policy, err := decodeSupport(pd, p.field("pushdown"))
		if err != nil {
			return nil, err
		}
		if zr != nil && policy != zoneMap {
			return nil, errAt(zr, p.field("zone_rows"), `"zone_rows" applies to the "zone_map" pushdown policy only`)
		}
		switch policy {
		case exactAll:
			spec.Inline = spec.Inline.WithExactAllPushdown()
		case zoneMap:
			rows := int64(defaultZoneRows)
			if zr != nil {
				n, err := integer(zr, p.field("zone_rows"))
				if err != nil {
					return nil, err
				}
				if n < 1 || n > maxZoneRows {
					return nil, errAt(zr, p.field("zone_rows"), "zone_rows must be between 1 and %d, got %d", maxZoneRows, n)
				}
				rows = n
			}
			spec.Inline = spec.Inline.WithZoneMaps(int(rows))
		default:
			spec.Inline = spec.Inline.WithPushdown(support)
		}
		return spec, nil
	} else if zr != nil {
		return nil, errAt(zr, p.field("zone_rows"), `"zone_rows" needs "pushdown": "zone_map" on an inline table`)
	} else if pd != nil {
		return nil, errAt(pd, p.field("pushdown"), `"pushdown" applies to inline tables only (a Parquet file classifies its own conjuncts)`)
	}
	switch {
	case cols != nil && pq != nil:
		return nil, errAt(v, p, `a table is either inline ("columns") or a Parquet file ("parquet"), not both`)
	case pq != nil:
		return d.parquetTable(name, pq, p.field("parquet"))
	case cols == nil:
		return nil, errAt(v, p, `a table needs "columns" (inline values) or "parquet" (a file path)`)
	}
	return inlineTable(name, cols, p.field("columns"))
}

func (d *decoder) parquetTable(name string, v *jvalue, p *path) (*TableSpec, *Error) {
	written, err := str(v, p)
	if err != nil {
		return nil, err
	}
	if written == "" {
		return nil, errAt(v, p, "the Parquet path is empty")
	}
	resolved := written
	if !filepath.IsAbs(written) && d.opts.BaseDir != "" {
		resolved = filepath.Join(d.opts.BaseDir, written)
	}
	if d.opts.OpenParquet == nil {
		return nil, errAt(v, p, "table %q is a Parquet file (%q) but no Parquet reader was given: Options.OpenParquet is nil (the executor supplies one)", name, written)
	}
	src, oerr := openParquet(d.opts.OpenParquet, name, resolved)
	if oerr != nil {
		e := errAt(v, p, "table %q: open Parquet file %q", name, resolved)
		e.Err = oerr
		return nil, e
	}
	if src == nil {
		return nil, errAt(v, p, "table %q: the Parquet reader returned no source for %q", name, resolved)
	}
	return &TableSpec{Parquet: written, ParquetPath: resolved, ParquetSource: src}, nil
}

// openParquet calls the host's reader, turning a panic into an error: the
// decoder promises never to panic, whatever the host does.
func openParquet(open func(name, path string) (plan.Source, error), name, path string) (src plan.Source, err error) {
	defer func() {
		if r := recover(); r != nil {
			src, err = nil, fmt.Errorf("the Parquet reader panicked: %v", r)
		}
	}()
	return open(name, path)
}

var columnFields = []string{"name", "type", "values", "nullable"}

func inlineTable(name string, v *jvalue, p *path) (*TableSpec, *Error) {
	items, err := array(v, p)
	if err != nil {
		return nil, err
	}
	fields := make([]plan.Field, len(items))
	columns := make([][]plan.Value, len(items))
	seen := make(map[string]int, len(items))
	for i, it := range items {
		cp := p.index(i)
		if err := checkFields(it, cp, "a column", columnFields, "name", "type", "values"); err != nil {
			return nil, err
		}
		nv := it.get("name")
		cname, err := str(nv, cp.field("name"))
		if err != nil {
			return nil, err
		}
		if cname == "" {
			return nil, errAt(nv, cp.field("name"), "a column name must not be empty")
		}
		if j, dup := seen[cname]; dup {
			return nil, errAt(nv, cp.field("name"), "duplicate column name %q (also columns[%d])", cname, j)
		}
		seen[cname] = i
		typ, err := parseType(it.get("type"), cp.field("type"))
		if err != nil {
			return nil, err
		}
		nullable := true
		if nb := it.get("nullable"); nb != nil {
			if nullable, err = boolean(nb, cp.field("nullable")); err != nil {
				return nil, err
			}
		}
		fields[i] = plan.Field{Name: cname, Type: typ, Nullable: nullable}
		vp := cp.field("values")
		raw, err := array(it.get("values"), vp)
		if err != nil {
			return nil, err
		}
		if i > 0 && len(raw) != len(columns[0]) {
			return nil, errAt(it.get("values"), vp, "column %q has %d values but column %q has %d (ragged table)",
				cname, len(raw), fields[0].Name, len(columns[0]))
		}
		col := make([]plan.Value, len(raw))
		for r, rv := range raw {
			val, msg := decodeValue(rv, typ)
			if msg != "" {
				return nil, errAt(rv, vp.index(r), "%s", msg)
			}
			if val.IsNull() && !nullable {
				return nil, errAt(rv, vp.index(r), "null in the non-nullable column %q", cname)
			}
			col[r] = val
		}
		columns[i] = col
	}
	schema, serr := plan.NewSchema(fields...)
	if serr != nil {
		e := errAt(v, p, "invalid schema")
		e.Err = serr
		return nil, e
	}
	t, terr := plan.NewTable(name, schema, columns)
	if terr != nil {
		e := errAt(v, p, "invalid table")
		e.Err = terr
		return nil, e
	}
	return &TableSpec{Inline: t}, nil
}

// decodeSupport reads an inline table's "pushdown" policy: "exact",
// "inexact" or "unsupported" (see plan.Table.WithPushdown; policy ""), or
// one of the test policies "exact_all" (plan.Table.WithExactAllPushdown) and
// "zone_map" (plan.Table.WithZoneMaps), returned as policy.
func decodeSupport(v *jvalue, p *path) (s plan.PredicateSupport, policy string, e *Error) {
	text, err := str(v, p)
	if err != nil {
		return 0, "", err
	}
	switch text {
	case "exact":
		return plan.Exact, "", nil
	case "inexact":
		return plan.Inexact, "", nil
	case "unsupported":
		return plan.Unsupported, "", nil
	case exactAll:
		return plan.Exact, exactAll, nil
	case zoneMap:
		return plan.Inexact, zoneMap, nil
	}
	return 0, "", errAt(v, p, `unknown pushdown support %q (want "exact", "inexact", "unsupported", "exact_all" or "zone_map")`, text)
}

// The test policies of inline tables: exactAll classifies every conjunct
// Exact (plan.Table.WithExactAllPushdown); zoneMap skips row groups of
// "zone_rows" rows (defaultZoneRows when absent, at most maxZoneRows) by
// column-literal comparisons and takes every other conjunct Exact
// (plan.Table.WithZoneMaps).
const (
	exactAll        = "exact_all"
	zoneMap         = "zone_map"
	defaultZoneRows = 2
	maxZoneRows     = 1 << 30
)
