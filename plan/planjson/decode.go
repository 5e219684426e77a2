package planjson

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/testops"
)

// Decode reads a dfopt-plan/1 document. The plan it returns is unresolved:
// Decode checks what the format itself can express (JSON syntax, the format
// version, known ops, functions, types, join kinds, extension and UDF names,
// required and unknown fields, value encodings, table shapes, scans of
// declared tables) and leaves to plan.Resolve what a plan can express but
// not run (unknown columns, type errors, arities, unequal join key counts),
// so that a file can carry an ill-typed plan whose resolve error the oracle
// compares. Every error is an *Error naming the JSON path; Decode never
// panics, whatever the input.
func Decode(data []byte, opts Options) (*Document, error) {
	d := newDecoder(opts)
	doc, err := d.document(data)
	if err != nil {
		err.locate(data)
		return nil, err
	}
	return doc, nil
}

// DecodeFile reads and decodes the plan file at path. Relative Parquet
// paths are resolved against the file's directory (opts.BaseDir is
// replaced), and errors name the file ("plans/x.json:3:14: plan.input: ...").
func DecodeFile(path string, opts Options) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	opts.BaseDir = filepath.Dir(path)
	doc, err := Decode(data, opts)
	if pe, ok := err.(*Error); ok {
		pe.File = path
	}
	return doc, err
}

type decoder struct {
	opts   Options
	udfs   *plan.UDFRegistry
	exts   *plan.ExtensionRegistry
	tables map[string]*TableSpec
}

// The default registries are built once and shared, so that plans decoded
// by separate Decode calls refer to the same *plan.UDF values and compare
// equal under plan.Equal (which compares UDFs by identity). They are never
// handed out, so nothing can register into them.
var (
	defaultUDFs       = sync.OnceValue(plan.BuiltinUDFs)
	defaultExtensions = sync.OnceValue(testops.Registry)
)

func newDecoder(opts Options) *decoder {
	d := &decoder{opts: opts, udfs: opts.UDFs, exts: opts.Extensions}
	if d.udfs == nil {
		d.udfs = defaultUDFs()
	}
	if d.exts == nil {
		d.exts = defaultExtensions()
	}
	return d
}

var documentFields = []string{"format", "description", "tables", "plan", "tier", "flags", "expect"}

func (d *decoder) document(data []byte) (*Document, *Error) {
	top, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if top.kind != jObject {
		return nil, errAt(top, nil, "a plan file is a JSON object, got %s", top.kind)
	}
	// The version is checked first: a file of another version is reported
	// as such, not as a list of unknown fields.
	if fv := top.get("format"); fv != nil {
		if fv.kind != jString || fv.s != FormatVersion {
			shown := fv.kind.String()
			if fv.kind == jString {
				shown = fmt.Sprintf("%q", fv.s)
			}
			return nil, errAt(fv, root("format"), "unsupported format %s; this build reads %q", shown, FormatVersion)
		}
	}
	if err := checkFields(top, nil, "the plan file", documentFields, "format", "tables", "plan"); err != nil {
		return nil, err
	}
	doc := &Document{}
	if v := top.get("description"); v != nil {
		s, err := str(v, root("description"))
		if err != nil {
			return nil, err
		}
		doc.Description = s
	}
	tables, err := d.decodeTables(top.get("tables"), root("tables"))
	if err != nil {
		return nil, err
	}
	doc.Tables, d.tables = tables, tables
	if doc.Plan, err = d.node(top.get("plan"), root("plan")); err != nil {
		return nil, err
	}
	if v := top.get("tier"); v != nil {
		if doc.Tier, err = str(v, root("tier")); err != nil {
			return nil, err
		}
	}
	if v := top.get("flags"); v != nil {
		if doc.Flags, err = decodeFlags(v, root("flags")); err != nil {
			return nil, err
		}
	}
	if v := top.get("expect"); v != nil {
		if doc.Expect, err = decodeExpect(v, root("expect")); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// checkFields rejects a non-object, a duplicated key, a missing required
// field and, with a suggestion, any field not in allowed: a typo in a plan
// file must never be silently ignored.
func checkFields(v *jvalue, p *path, what string, allowed []string, required ...string) *Error {
	if v.kind != jObject {
		return errAt(v, p, "expected %s (an object), got %s", what, v.kind)
	}
	if v.dup != nil {
		return &Error{Path: p.field(v.dup.key).String(), Offset: v.dup.off, Msg: fmt.Sprintf("duplicate key %q in %s", v.dup.key, what)}
	}
	for _, m := range v.obj {
		if !slices.Contains(allowed, m.key) {
			return &Error{Path: pathString(p), Offset: m.off, Msg: fmt.Sprintf("unknown field %q in %s (allowed: %s)%s",
				m.key, what, list(allowed), suggest(m.key, allowed))}
		}
	}
	for _, r := range required {
		if v.get(r) == nil {
			return errAt(v, p, "missing required field %q in %s", r, what)
		}
	}
	return nil
}

func pathString(p *path) string {
	if p == nil {
		return ""
	}
	return p.String()
}

func str(v *jvalue, p *path) (string, *Error) {
	if v.kind != jString {
		return "", errAt(v, p, "expected a string, got %s", v.kind)
	}
	return v.s, nil
}

func boolean(v *jvalue, p *path) (bool, *Error) {
	if v.kind != jBool {
		return false, errAt(v, p, "expected a bool (true or false), got %s", v.kind)
	}
	return v.b, nil
}

func array(v *jvalue, p *path) ([]*jvalue, *Error) {
	if v.kind != jArray {
		return nil, errAt(v, p, "expected an array, got %s", v.kind)
	}
	return v.arr, nil
}

func integer(v *jvalue, p *path) (int64, *Error) {
	n, msg := decodeInt(v, plan.Int64)
	if msg != "" {
		return 0, errAt(v, p, "%s", msg)
	}
	return n, nil
}

func stringList(v *jvalue, p *path) ([]string, *Error) {
	items, err := array(v, p)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = str(it, p.index(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func parseType(v *jvalue, p *path) (plan.Type, *Error) {
	s, err := str(v, p)
	if err != nil {
		return plan.Invalid, err
	}
	t, ok := plan.ParseType(s)
	if !ok && strings.HasPrefix(s, "datetime") {
		return plan.Invalid, errAt(v, p, "type %q: a datetime carries no time zone and always counts microseconds; write \"datetime\" (docs/semantics.md, Temporal types)", echo(s))
	}
	if !ok && (strings.HasPrefix(s, "list") || strings.HasPrefix(s, "struct")) {
		_, perr := plan.ParseNestedType(s)
		return plan.Invalid, errAt(v, p, "%v (docs/semantics.md, Lists and structs)", perr)
	}
	if !ok {
		names := typeNames()
		return plan.Invalid, errAt(v, p, "unknown type %q (known: %s)%s", s, list(names), suggest(s, names))
	}
	return t, nil
}

func typeNames() []string {
	var names []string
	for _, t := range plan.Types() {
		names = append(names, t.String())
	}
	return names
}

func decodeFlags(v *jvalue, p *path) (map[string]bool, *Error) {
	if v.kind != jObject {
		return nil, errAt(v, p, "expected an object of rule names to true/false, got %s", v.kind)
	}
	if v.dup != nil {
		return nil, &Error{Path: p.field(v.dup.key).String(), Offset: v.dup.off, Msg: fmt.Sprintf("flag %q given twice", v.dup.key)}
	}
	flags := make(map[string]bool, len(v.obj))
	for _, m := range v.obj {
		b, err := boolean(m.val, p.field(m.key))
		if err != nil {
			return nil, err
		}
		flags[m.key] = b
	}
	return flags, nil
}

func decodeExpect(v *jvalue, p *path) (*Expect, *Error) {
	if err := checkFields(v, p, "expect", []string{"counters", "error"}); err != nil {
		return nil, err
	}
	e := &Expect{}
	if c := v.get("counters"); c != nil {
		cp := p.field("counters")
		if c.kind != jObject {
			return nil, errAt(c, cp, "expected an object of counter names to integers, got %s", c.kind)
		}
		if c.dup != nil {
			return nil, &Error{Path: cp.field(c.dup.key).String(), Offset: c.dup.off, Msg: fmt.Sprintf("counter %q given twice", c.dup.key)}
		}
		e.Counters = make(map[string]int64, len(c.obj))
		for _, m := range c.obj {
			n, err := integer(m.val, cp.field(m.key))
			if err != nil {
				return nil, err
			}
			e.Counters[m.key] = n
		}
	}
	if ev := v.get("error"); ev != nil {
		kind := plan.ErrorKind("")
		if ev.kind != jNull {
			s, err := str(ev, p.field("error"))
			if err != nil {
				return nil, errAt(ev, p.field("error"), "expected an error kind or null, got %s", ev.kind)
			}
			var names []string
			for _, k := range plan.ErrorKinds() {
				names = append(names, string(k))
				if string(k) == s {
					kind = k
				}
			}
			if kind == "" {
				return nil, errAt(ev, p.field("error"), "unknown error kind %q (known: %s)%s", s, list(names), suggest(s, names))
			}
		}
		e.Error = &kind
	}
	return e, nil
}
