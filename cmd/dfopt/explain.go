package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dfopt/dfopt/plan"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

func init() {
	register("explain", command{
		synopsis: "print a plan file's plan, optimized (or --raw), with --why the trace",
		run:      runExplain,
	})
}

func runExplain(env *environment, args []string) int {
	fs := newFlagSet("explain", "explain FILE [--raw] [--why] [--format text|dot|json] [--tier bounded|standard]", env.stderr)
	raw := fs.Bool("raw", false, "print the plan as written, not optimized")
	why := fs.Bool("why", false, "print every rewrite and refusal with the legality cell that decided it")
	format := fs.String("format", "text", "output format: text, dot or json")
	tier := tierFlag(fs)
	file, doc, status := loadOneFile(env, fs, args, format, "text", "dot", "json")
	if doc == nil {
		return status
	}
	if err := checkTier(*tier); err != nil {
		return fail(env, "explain", exitBadArgs, err)
	}
	flags, err := fileFlags(doc, *tier)
	if err != nil {
		return fail(env, "explain", exitBadArgs, fmt.Errorf("%s: %w", file, err))
	}
	if *raw && *format == "text" {
		fmt.Fprint(env.stdout, plan.Explain(doc.Plan))
		fmt.Fprintf(env.stderr, "explain: ok file=%s nodes=%d raw=true\n", file, plan.Size(doc.Plan))
		return exitOK
	}
	res, err := rules.Optimize(doc.Plan, flags)
	if err != nil {
		return fail(env, "explain", exitFailed, fmt.Errorf("%s: %w", file, err))
	}
	switch *format {
	case "text":
		if *raw {
			break
		}
		text := rules.ExplainText(res, *why)
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		fmt.Fprint(env.stdout, text)
	case "dot":
		fmt.Fprint(env.stdout, rules.ExplainDOT(doc.Plan, res))
	case "json":
		out, err := explainJSON(doc.Plan, res)
		if err != nil {
			return fail(env, "explain", exitFailed, fmt.Errorf("%s: %w", file, err))
		}
		fmt.Fprintln(env.stdout, string(out))
	}
	summary := fmt.Sprintf("explain: ok file=%s nodes=%d optimized_nodes=%d %s", file,
		plan.Size(doc.Plan), plan.Size(res.Plan), res.Counters)
	if *format == "text" {
		fmt.Fprintln(env.stdout, summary)
	} else {
		fmt.Fprintln(env.stderr, summary)
	}
	return exitOK
}

// explainJSON is the machine-readable explain of docs/design.md §10: both plans in
// the dfopt-plan/1 node syntax, the counters and the trace.
func explainJSON(before plan.Node, res rules.Result) ([]byte, error) {
	rawPlan, err := planjson.EncodePlan(before)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	optimized, err := planjson.EncodePlan(res.Plan)
	if err != nil {
		return nil, fmt.Errorf("encode optimized plan: %w", err)
	}
	trace := res.Trace
	if trace == nil {
		trace = rules.Trace{}
	}
	counters, err := json.Marshal(res.Counters)
	if err != nil {
		return nil, fmt.Errorf("encode counters: %w", err)
	}
	entries, err := json.Marshal(trace)
	if err != nil {
		return nil, fmt.Errorf("encode trace: %w", err)
	}
	// The plans nest as deep as the plan does: encoding/json, which stops
	// at 10,000 levels, must not parse them again, so the document is
	// assembled here and indented by the plan-file printer.
	var b bytes.Buffer
	b.WriteString(`{"tier": "` + res.Tier.String() + `", "plan": `)
	b.Write(rawPlan)
	b.WriteString(`, "optimized": `)
	b.Write(optimized)
	b.WriteString(`, "counters": `)
	b.Write(counters)
	b.WriteString(`, "trace": `)
	b.Write(entries)
	b.WriteString("}")
	out, err := planjson.Indent(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("explain json: %w", err)
	}
	return bytes.TrimRight(out, "\n"), nil
}
