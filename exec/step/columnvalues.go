package step

import "github.com/apache/arrow-go/v18/arrow"

// ColumnValues returns the named column of f in compact form, one value per
// row (a new reference the caller releases): how the executor reads a
// join's left key column to build a runtime key filter for its right scan
// (exec's keyfilter.go) without evaluating an expression.
func (e *Env) ColumnValues(f *Frame, name string) (arrow.Array, error) {
	c, err := e.col(f, name)
	if err != nil {
		return nil, err
	}
	return e.value(c)
}
