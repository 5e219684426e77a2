package planjson

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/dfopt/dfopt/plan"
)

// Encode writes doc as a dfopt-plan/1 file: keys in a fixed order, tables,
// flags and counters sorted by name, small values on one line. Decoding the
// result gives back an equal document — values bit for bit — except that
// NaN payloads are not kept: every NaN is written "NaN" and reads back as
// math.NaN(). Plans produced by the optimizer encode too: a synthesized
// window is folded back into the over() expressions of the project or
// with_columns above it when that is exact (else written as an explicit
// "window" node), and a scan's projection and pushed predicates are written
// as the scan fields "columns" and "pushed".
//
// Encode fails on what the format cannot carry: a scan whose source is not
// one of doc.Tables, strings that are not valid UTF-8, the invalid type, an
// undeclared UDF or extension, a nil node or expression.
func Encode(doc *Document) ([]byte, error) {
	if doc == nil {
		return nil, fmt.Errorf("planjson: encode: nil document")
	}
	top := &jvalue{kind: jObject}
	add := func(key string, v *jvalue) { top.obj = append(top.obj, jmember{key: key, val: v}) }
	add("format", &jvalue{kind: jString, s: FormatVersion})
	if doc.Description != "" {
		if !utf8.ValidString(doc.Description) {
			return nil, fmt.Errorf("planjson: encode description: not valid UTF-8")
		}
		add("description", &jvalue{kind: jString, s: doc.Description})
	}
	tables, err := encodeTables(doc.Tables)
	if err != nil {
		return nil, err
	}
	add("tables", tables)
	enc := &encoder{tableName: func(src plan.Source) (string, bool) {
		for name, spec := range doc.Tables {
			if sameSource(spec.Source(), src) {
				return name, true
			}
		}
		return "", false
	}}
	pv, err := enc.node(doc.Plan, root("plan"))
	if err != nil {
		return nil, err
	}
	add("plan", pv)
	if doc.Tier != "" {
		add("tier", &jvalue{kind: jString, s: doc.Tier})
	}
	if doc.Flags != nil {
		flags := &jvalue{kind: jObject}
		for _, name := range slices.Sorted(maps.Keys(doc.Flags)) {
			if !utf8.ValidString(name) {
				return nil, fmt.Errorf("planjson: encode flags: flag name %q is not valid UTF-8", name)
			}
			flags.obj = append(flags.obj, jmember{key: name, val: &jvalue{kind: jBool, b: doc.Flags[name]}})
		}
		add("flags", flags)
	}
	if doc.Expect != nil {
		ev, err := encodeExpect(doc.Expect)
		if err != nil {
			return nil, err
		}
		add("expect", ev)
	}
	return printDocument(top), nil
}

// EncodePlan writes one plan tree in the dfopt-plan/1 node syntax (what
// "dfopt explain --format json" prints), naming each scan's table by its
// source's Name().
func EncodePlan(n plan.Node) ([]byte, error) {
	enc := &encoder{tableName: func(src plan.Source) (string, bool) {
		name, err := sourceName(src)
		return name, err == nil
	}}
	v, err := enc.node(n, root("plan"))
	if err != nil {
		return nil, err
	}
	return printDocument(v), nil
}

// NewDocument wraps a plan whose scans read inline *plan.Table sources into
// a Document with those tables, ready to Encode (the oracle writes its
// minimized cases this way). Two different tables with one name, or a
// source that is not a *plan.Table, are errors.
func NewDocument(root plan.Node) (*Document, error) { return NewDocumentWith(root, nil) }

// NewDocumentWith is NewDocument for plans that also scan other sources:
// spec, when not nil, is asked first for each scanned source and may
// describe it (a Parquet file, whose TableSpec names its path); a source it
// does not describe must be a *plan.Table. Tables are named by their
// sources' names.
func NewDocumentWith(root plan.Node, spec func(plan.Source) (*TableSpec, bool)) (*Document, error) {
	doc := &Document{Tables: map[string]*TableSpec{}, Plan: root}
	var err error
	plan.WalkNodes(root, func(n plan.Node) bool {
		s, ok := n.(*plan.ScanNode)
		if !ok || err != nil {
			return err == nil
		}
		var ts *TableSpec
		described := false
		if spec != nil {
			ts, described = spec(s.Source)
		}
		if !described {
			t, isTable := s.Source.(*plan.Table)
			if !isTable || t == nil {
				err = fmt.Errorf("planjson: new document: scan %s does not read an inline *plan.Table", s.Label())
				return false
			}
			ts = &TableSpec{Inline: t}
		}
		name, nerr := sourceName(s.Source)
		if nerr != nil {
			err = fmt.Errorf("planjson: new document: scan %s: %w", s.Label(), nerr)
			return false
		}
		if prev, dup := doc.Tables[name]; dup && !sameSource(prev.Source(), ts.Source()) {
			err = fmt.Errorf("planjson: new document: two different tables are named %q", name)
			return false
		}
		doc.Tables[name] = ts
		return true
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// sameSource compares sources by identity, as plan.Equal does, without
// panicking on a host type that is not comparable.
func sameSource(a, b plan.Source) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func sourceName(src plan.Source) (name string, err error) {
	if src == nil {
		return "", fmt.Errorf("no source")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the source's Name panicked: %v", r)
		}
	}()
	return src.Name(), nil
}

func encodeError(p *path, format string, args ...any) error {
	return fmt.Errorf("planjson: encode %s: %s", p, fmt.Sprintf(format, args...))
}

func checkName(p *path, what, name string) error {
	if !utf8.ValidString(name) {
		return encodeError(p, "%s %q is not valid UTF-8, which JSON cannot carry", what, name)
	}
	return nil
}

func encodeTables(tables map[string]*TableSpec) (*jvalue, error) {
	out := &jvalue{kind: jObject}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		p := root("tables").field(name)
		if err := checkName(p, "table name", name); err != nil {
			return nil, err
		}
		if name == "" {
			return nil, encodeError(p, "a table name must not be empty")
		}
		spec := tables[name]
		var tv *jvalue
		switch {
		case spec == nil:
			return nil, encodeError(p, "nil table")
		case spec.Inline != nil:
			var err error
			if tv, err = encodeInline(spec.Inline, p); err != nil {
				return nil, err
			}
		case spec.Parquet != "":
			if err := checkName(p.field("parquet"), "path", spec.Parquet); err != nil {
				return nil, err
			}
			tv = &jvalue{kind: jObject, obj: []jmember{{key: "parquet", val: &jvalue{kind: jString, s: spec.Parquet}}}}
		default:
			return nil, encodeError(p, "a table needs Inline or Parquet")
		}
		out.obj = append(out.obj, jmember{key: name, val: tv})
	}
	return out, nil
}

func encodeInline(t *plan.Table, p *path) (*jvalue, error) {
	cols := &jvalue{kind: jArray}
	schema := t.Schema()
	for i := 0; i < schema.Len(); i++ {
		f := schema.Field(i)
		cp := p.field("columns").index(i)
		if err := checkName(cp.field("name"), "column name", f.Name); err != nil {
			return nil, err
		}
		if _, ok := plan.ParseType(f.Type.String()); !ok {
			return nil, encodeError(cp.field("type"), "type %s cannot be written", f.Type)
		}
		col := &jvalue{kind: jObject}
		col.obj = append(col.obj,
			jmember{key: "name", val: &jvalue{kind: jString, s: f.Name}},
			jmember{key: "type", val: &jvalue{kind: jString, s: f.Type.String()}})
		if !f.Nullable {
			col.obj = append(col.obj, jmember{key: "nullable", val: &jvalue{kind: jBool}})
		}
		values := &jvalue{kind: jArray, arr: make([]*jvalue, 0, t.Rows())}
		for r, v := range t.Column(i) {
			jv, err := encodeValue(v)
			if err != nil {
				return nil, encodeError(cp.field("values").index(r), "%v", err)
			}
			values.arr = append(values.arr, jv)
		}
		col.obj = append(col.obj, jmember{key: "values", val: values})
		cols.arr = append(cols.arr, col)
	}
	obj := []jmember{{key: "columns", val: cols}}
	switch {
	case t.ExactAllPushdown():
		obj = append(obj, jmember{key: "pushdown", val: &jvalue{kind: jString, s: exactAll}})
	case t.ZoneRows() > 0:
		obj = append(obj, jmember{key: "pushdown", val: &jvalue{kind: jString, s: zoneMap}},
			jmember{key: "zone_rows", val: &jvalue{kind: jNumber, s: strconv.Itoa(t.ZoneRows())}})
	case t.Pushdown() != plan.Unsupported:
		obj = append(obj, jmember{key: "pushdown", val: &jvalue{kind: jString, s: t.Pushdown().String()}})
	}
	return &jvalue{kind: jObject, obj: obj}, nil
}

func encodeExpect(e *Expect) (*jvalue, error) {
	out := &jvalue{kind: jObject}
	if e.Counters != nil {
		c := &jvalue{kind: jObject}
		for _, name := range slices.Sorted(maps.Keys(e.Counters)) {
			if err := checkName(root("expect").field("counters"), "counter name", name); err != nil {
				return nil, err
			}
			c.obj = append(c.obj, jmember{key: name, val: encodeInt(e.Counters[name])})
		}
		out.obj = append(out.obj, jmember{key: "counters", val: c})
	}
	if e.Error != nil {
		ev := &jvalue{kind: jNull}
		if *e.Error != "" {
			if !slices.Contains(plan.ErrorKinds(), *e.Error) {
				return nil, encodeError(root("expect").field("error"), "unknown error kind %q", string(*e.Error))
			}
			ev = &jvalue{kind: jString, s: string(*e.Error)}
		}
		out.obj = append(out.obj, jmember{key: "error", val: ev})
	}
	return out, nil
}
