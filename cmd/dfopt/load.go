package main

import (
	"fmt"

	"github.com/dfopt/dfopt/exec"
	"github.com/dfopt/dfopt/plan/planjson"
)

// loadFile decodes a plan file, opening its Parquet tables through the
// executor. Errors name the file and the JSON path at fault.
func loadFile(path string) (*planjson.Document, error) {
	doc, err := planjson.DecodeFile(path, planjson.Options{OpenParquet: exec.OpenParquet})
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	return doc, nil
}
