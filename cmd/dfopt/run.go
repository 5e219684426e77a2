package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/rules"
)

func init() {
	register("run", command{
		synopsis: "collect a plan file and print the result (table, csv or json)",
		run:      runRun,
	})
}

func runRun(env *environment, args []string) int {
	fs := newFlagSet("run", "run FILE [--no-opt] [--format table|csv|json]", env.stderr)
	noOpt := fs.Bool("no-opt", false, "collect the plan as written, without optimizing it")
	format := fs.String("format", "table", "output format: table, csv or json")
	file, doc, status := loadOneFile(env, fs, args, format, "table", "csv", "json")
	if doc == nil {
		return status
	}
	root := doc.Plan
	var counters rules.Counters
	if !*noOpt {
		flags, err := rules.FlagsFromMap(doc.Flags)
		if err != nil {
			return fail(env, "run", exitBadArgs, fmt.Errorf("%s: flags: %w", file, err))
		}
		res, err := rules.Optimize(root, flags)
		if err == nil {
			root, counters = res.Plan, res.Counters
		} else if _, isPlanErr := plan.AsError(err); !isPlanErr {
			return fail(env, "run", exitFailed, fmt.Errorf("%s: optimize: %w", file, err))
		}
		// A plan that does not resolve fails the collect below with the
		// same error, reported like any other failed collect.
	}
	result, err := exec.Collect(context.Background(), root, exec.Options{})
	if err != nil {
		return reportFailedRun(env, file, *format, root, counters, err)
	}
	defer result.Release()
	switch *format {
	case "table":
		err = exec.FormatTable(env.stdout, result)
	case "csv":
		err = exec.FormatCSV(env.stdout, result)
	case "json":
		err = writeRunJSON(env.stdout, result, counters)
	}
	if err != nil {
		return fail(env, "run", exitFailed, fmt.Errorf("%s: write result: %w", file, err))
	}
	summary := fmt.Sprintf("run: ok file=%s rows=%d columns=%d memo_hits=%d %s", file,
		result.NumRows(), result.Schema.Len(), result.MemoHits, counters)
	if *format == "table" {
		fmt.Fprintln(env.stdout, summary)
	} else {
		fmt.Fprintln(env.stderr, summary)
	}
	return exitOK
}

// reportFailedRun prints a failed collect: as the JSON error object with
// --format json, else as one line on stderr; it exits 1 either way.
func reportFailedRun(env *environment, file, format string, root plan.Node, counters rules.Counters, err error) int {
	pe, ok := plan.AsError(err)
	if format == "json" {
		obj := runJSON{Schema: []schemaJSON{}, Counters: counters}
		if resolved, rErr := plan.Resolve(root); rErr == nil {
			obj.Schema = schemaOf(resolved.Schema())
		}
		e := errorJSON{Kind: "internal", Row: nil, Message: err.Error()}
		if ok {
			e.Kind, e.Expr = string(pe.Kind), pe.Expr
			if pe.Row >= 0 {
				row := pe.Row
				e.Row = &row
			}
		}
		obj.Error = &e
		out, mErr := json.Marshal(obj)
		if mErr != nil {
			return fail(env, "run", exitFailed, mErr)
		}
		fmt.Fprintln(env.stdout, string(out))
	}
	kind := "internal"
	if ok {
		kind = string(pe.Kind)
	}
	fmt.Fprintf(env.stderr, "dfopt run: %s: %v\n", file, err)
	fmt.Fprintf(env.stderr, "run: failed file=%s error=%s\n", file, kind)
	return exitFailed
}

// The JSON shape of `dfopt run --format json` (DESIGN §10).
type runJSON struct {
	Schema   []schemaJSON        `json:"schema"`
	Rows     [][]json.RawMessage `json:"rows"`
	Error    *errorJSON          `json:"error"`
	Counters rules.Counters      `json:"counters"`
}

type schemaJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

type errorJSON struct {
	Kind    string `json:"kind"`
	Expr    string `json:"expr"`
	Row     *int64 `json:"row"`
	Message string `json:"message"`
}

func writeRunJSON(w io.Writer, r *exec.Result, counters rules.Counters) error {
	obj := runJSON{Schema: schemaOf(r.Schema), Rows: [][]json.RawMessage{}, Counters: counters}
	rows, err := r.Rows()
	if err != nil {
		return err
	}
	for _, row := range rows {
		out := make([]json.RawMessage, len(row))
		for i, v := range row {
			out[i] = jsonValue(v)
		}
		obj.Rows = append(obj.Rows, out)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

func schemaOf(s plan.Schema) []schemaJSON {
	out := make([]schemaJSON, s.Len())
	for i := range out {
		f := s.Field(i)
		out[i] = schemaJSON{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable}
	}
	return out
}

// jsonValue renders one value as in plan files: integers as JSON integers,
// float specials as the strings "NaN", "Inf", "-Inf" and "-0", null as null.
func jsonValue(v plan.Value) json.RawMessage {
	if v.IsNull() {
		return json.RawMessage("null")
	}
	switch v.Type() {
	case plan.Int32, plan.Int64:
		return json.RawMessage(strconv.FormatInt(v.Int(), 10))
	case plan.Float64:
		// The special values (NaN, ±Inf, -0) are strings, as in plan files;
		// every other float is a JSON number.
		f := v.Float()
		text := exec.FormatFloatShortest(f)
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 && math.Signbit(f) {
			return json.RawMessage(strconv.Quote(text))
		}
		return json.RawMessage(text)
	case plan.Bool:
		return json.RawMessage(strconv.FormatBool(v.Bool()))
	case plan.String:
		b, _ := json.Marshal(v.Str())
		return b
	}
	return json.RawMessage("null")
}
