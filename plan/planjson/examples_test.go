package planjson

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// examplesDir holds the plan files a newcomer runs first; every one must
// decode, resolve, and survive a round trip through Encode.
const examplesDir = "../../examples"

func exampleFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d example files in %s, want at least 5", len(files), examplesDir)
	}
	return files
}

func TestExamplesDecodeAndResolve(t *testing.T) {
	for _, file := range exampleFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			doc, err := DecodeFile(file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Description == "" {
				t.Errorf("example has no description")
			}
			if doc.Expect == nil || doc.Expect.Error == nil {
				t.Errorf("example states no expected outcome (expect.error)")
			}
			if _, err := plan.Resolve(doc.Plan); err != nil {
				t.Fatalf("resolve: %v", err)
			}
			// Encode, decode, encode: a fixed point, and the same plan.
			out, err := Encode(doc)
			if err != nil {
				t.Fatal(err)
			}
			doc2, err := Decode(out, Options{})
			if err != nil {
				t.Fatalf("decode of the encoding: %v\n%s", err, out)
			}
			if diff := compareDocs(doc, doc2); diff != "" {
				t.Fatalf("round trip changed the document: %s", diff)
			}
			out2, err := Encode(doc2)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, out2) {
				t.Fatalf("encoding is not a fixed point:\n%s\n---\n%s", out, out2)
			}
		})
	}
}
