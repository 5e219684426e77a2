package format

import (
	"bytes"
	"math"
	"testing"

	"github.com/dfopt/dfopt/plan"
)

// TestTemporalFormats checks that every format writes dates, datetimes and
// durations as ISO 8601 text (docs/semantics.md, Temporal types), nulls as
// each format writes nulls.
func TestTemporalFormats(t *testing.T) {
	r := collect(t, []plan.Field{{Name: "d", Type: plan.Date, Nullable: true}, {Name: "m", Type: plan.Datetime, Nullable: true},
		{Name: "u", Type: plan.Duration, Nullable: true}},
		[]plan.Value{plan.DateValue(11016), null(plan.Date), plan.DateValue(math.MinInt32)},
		[]plan.Value{plan.DatetimeValue(1709208000000001), plan.DatetimeValue(-1), null(plan.Datetime)},
		[]plan.Value{null(plan.Duration), plan.DurationValue(-90061000001), plan.DurationValue(0)})
	var b bytes.Buffer
	if err := CSV(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "d,m,u\n2000-02-29,2024-02-29T12:00:00.000001,\n,1969-12-31T23:59:59.999999,-P1DT1H1M1.000001S\n-5877641-06-23,,PT0S\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := JSON(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"2000-02-29"`, `"2024-02-29T12:00:00.000001"`, `"-P1DT1H1M1.000001S"`, `"PT0S"`, `null`} {
		if !bytes.Contains(b.Bytes(), []byte(frag)) {
			t.Errorf("json lacks %s:\n%s", frag, b.String())
		}
	}
	b.Reset()
	if err := Table(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{"2000-02-29", "1969-12-31T23:59:59.999999", "-5877641-06-23", "PT0S", "null"} {
		if !bytes.Contains(b.Bytes(), []byte(frag)) {
			t.Errorf("table lacks %s:\n%s", frag, b.String())
		}
	}
}
