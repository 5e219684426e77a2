package planjson

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/dfopt/dfopt/plan"
)

// The property runs a fixed seed by default, so a failure reproduces; set
// DFOPT_SEED (or -planjson.seed) to explore, DFOPT_PROP_CASES (or
// -planjson.cases) to change the number of cases.
var (
	propSeed  = flag.Int64("planjson.seed", envInt("DFOPT_SEED", 20261130), "seed of the round-trip property")
	propCases = flag.Int("planjson.cases", int(envInt("DFOPT_PROP_CASES", 10000)), "cases of the round-trip property")
)

func envInt(name string, def int64) int64 {
	if s := os.Getenv(name); s != "" {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return v
		}
	}
	return def
}

// genCase is one generated document and the registries it was built with
// (UDFs and extensions compare by identity, so decoding must use the same).
type genCase struct {
	doc  *Document
	opts Options
}

// String shows the case as the file it encodes to, for the failure report.
func (c *genCase) String() string {
	out, err := Encode(c.doc)
	if err != nil {
		return fmt.Sprintf("<unencodable: %v>\n%s", err, plan.Explain(c.doc.Plan))
	}
	return string(out)
}

func genDocCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		g := &docGen{r: p.Rng, udfs: plan.BuiltinUDFs(), exts: testExtensions()}
		c := &genCase{doc: g.document(), opts: Options{UDFs: g.udfs, Extensions: g.exts,
			OpenParquet: func(name, _ string) (plan.Source, error) { return &fakeSource{name: name}, nil }}}
		return gopter.NewGenResult(c, gopter.NoShrinker)
	}
}

// roundTripStats counts what the generated cases covered, so that the test
// fails if the generator stops producing the interesting shapes.
type roundTripStats struct {
	cases, resolved, windows int
	kinds                    map[plan.Kind]int
}

// checkRoundTrip is the property: Encode succeeds, Decode(Encode(doc)) is
// the same document (compareDocs), the encoding is a fixed point, and a plan
// that resolves survives the trip in its resolved (optimizer-shaped) form
// too, synthesized windows included.
func checkRoundTrip(c *genCase, st *roundTripStats) string {
	st.cases++
	plan.WalkNodes(c.doc.Plan, func(n plan.Node) bool { st.kinds[n.Kind()]++; return true })
	out, err := Encode(c.doc)
	if err != nil {
		return "encode: " + err.Error()
	}
	doc2, err := Decode(out, c.opts)
	if err != nil {
		return "decode: " + err.Error()
	}
	if d := compareDocs(c.doc, doc2); d != "" {
		return "round trip: " + d
	}
	out2, err := Encode(doc2)
	if err != nil {
		return "re-encode: " + err.Error()
	}
	if !bytes.Equal(out, out2) {
		return "the encoding is not a fixed point:\n" + string(out2)
	}
	r1, err := plan.Resolve(c.doc.Plan)
	if err != nil {
		return "" // ill-typed plans round-trip unresolved (checked above)
	}
	st.resolved++
	hasWindow := false
	plan.WalkNodes(r1, func(n plan.Node) bool { hasWindow = hasWindow || n.Kind() == plan.KindWindow; return !hasWindow })
	if hasWindow {
		st.windows++
	}
	rdoc := *c.doc
	rdoc.Plan = r1
	rout, err := Encode(&rdoc)
	if err != nil {
		return "encode resolved: " + err.Error()
	}
	rdoc2, err := Decode(rout, c.opts)
	if err != nil {
		return "decode resolved: " + err.Error() + "\n" + string(rout)
	}
	back, err := rebaseScans(rdoc2.Plan, rdoc2.Tables, c.doc.Tables)
	if err != nil {
		return err.Error()
	}
	r2, err := plan.Resolve(back)
	if err != nil {
		return "the decoded resolved plan does not resolve: " + err.Error() + "\n" + string(rout)
	}
	if w, g := canonNaN(r1), canonNaN(r2); !plan.Equal(w, g) {
		return fmt.Sprintf("resolved plan changed:\n%s\n---\n%s\n%s", plan.Explain(w), plan.Explain(g), rout)
	}
	return ""
}

func TestRoundTripProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(*propSeed)
	params.MinSuccessfulTests = *propCases
	params.Workers = 1 // more workers share one RNG and break seed reproducibility
	st := &roundTripStats{kinds: map[plan.Kind]int{}}
	props := gopter.NewProperties(params)
	props.Property("Decode(Encode(doc)) == doc", prop.ForAll(func(c *genCase) string {
		msg := checkRoundTrip(c, st)
		if msg != "" {
			msg += fmt.Sprintf("\n(seed %d; rerun with DFOPT_SEED=%d)", *propSeed, *propSeed)
		}
		return msg
	}, genDocCase()))
	props.TestingRun(t)
	t.Logf("seed %d: %d cases, %d resolved, %d with synthesized windows; node kinds %v",
		*propSeed, st.cases, st.resolved, st.windows, st.kinds)
	// The generator must keep producing every node kind, resolvable plans
	// and windows; otherwise the property silently tests less.
	if st.cases >= 1000 {
		for _, k := range plan.Kinds() {
			if st.kinds[k] == 0 {
				t.Errorf("no %s node in %d cases", k, st.cases)
			}
		}
		if st.resolved*10 < st.cases || st.windows*50 < st.cases {
			t.Errorf("only %d of %d cases resolved and %d had windows", st.resolved, st.cases, st.windows)
		}
	}
}
