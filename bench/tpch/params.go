package tpch

// Param is one substitution parameter of a TPC-H query.
type Param struct {
	Name  string
	Value string
	// Derived says how the value follows from the others ("date + 3
	// months"); empty for a value written in go-tpc's query text.
	Derived string
}

// GoTPCParams are the substitution parameters of the 22 queries as go-tpc
// v1.0.7 writes them in its tpch/query.go, keyed "q1" ... "q22". go-tpc's
// answer files (tpch/output/qN.out) were produced with these values, not
// with the TPC-H validation values (Q1 108 days, not 90; Q2 size 30, STEEL,
// ASIA, not 15, BRASS, EUROPE ...), so a plan file checked against those
// answers must use these. Derived values spell the literal a plan needs:
// the exclusive upper bound of a date range ("end"), Q1's cut-off date, and
// Q6's discount bounds written as decimals (0.05, 0.07: a float literal
// 0.06 - 0.01 is not the double nearest 0.05, and would drop the rows at
// the bound). Q11's fraction is for SF1; at scale factor SF it is
// fraction / SF.
var GoTPCParams = map[string][]Param{
	"q1":  {{"delta", "108", ""}, {"cutoff", "1998-08-15", "1998-12-01 - delta days (l_shipdate <= cutoff)"}},
	"q2":  {{"size", "30", ""}, {"type", "STEEL", ""}, {"region", "ASIA", ""}},
	"q3":  {{"segment", "AUTOMOBILE", ""}, {"date", "1995-03-13", ""}},
	"q4":  {{"date", "1995-01-01", ""}, {"end", "1995-04-01", "date + 3 months"}},
	"q5":  {{"region", "MIDDLE EAST", ""}, {"date", "1994-01-01", ""}, {"end", "1995-01-01", "date + 1 year"}},
	"q6":  {{"date", "1994-01-01", ""}, {"end", "1995-01-01", "date + 1 year"}, {"discount", "0.06", ""}, {"dlo", "0.05", "discount - 0.01"}, {"dhi", "0.07", "discount + 0.01"}, {"quantity", "24", ""}},
	"q7":  {{"nation1", "JAPAN", ""}, {"nation2", "INDIA", ""}},
	"q8":  {{"nation", "INDIA", ""}, {"region", "ASIA", ""}, {"type", "SMALL PLATED COPPER", ""}},
	"q9":  {{"color", "dim", ""}},
	"q10": {{"date", "1993-08-01", ""}, {"end", "1993-11-01", "date + 3 months"}},
	"q11": {{"nation", "MOZAMBIQUE", ""}, {"fraction", "0.0001", ""}},
	"q12": {{"shipmode1", "RAIL", ""}, {"shipmode2", "FOB", ""}, {"date", "1997-01-01", ""}, {"end", "1998-01-01", "date + 1 year"}},
	"q13": {{"word1", "pending", ""}, {"word2", "deposits", ""}},
	"q14": {{"date", "1996-12-01", ""}, {"end", "1997-01-01", "date + 1 month"}},
	"q15": {{"date", "1997-07-01", ""}, {"end", "1997-10-01", "date + 3 months"}},
	"q16": {{"brand", "Brand#34", ""}, {"type", "LARGE BRUSHED", ""}, {"sizes", "48, 19, 12, 4, 41, 7, 21, 39", ""}},
	"q17": {{"brand", "Brand#44", ""}, {"container", "WRAP PKG", ""}},
	"q18": {{"quantity", "314", ""}},
	"q19": {{"quantity1", "4", ""}, {"quantity2", "18", ""}, {"quantity3", "29", ""}, {"brand1", "Brand#52", ""}, {"brand2", "Brand#11", ""}, {"brand3", "Brand#51", ""}},
	"q20": {{"color", "green", ""}, {"date", "1993-01-01", ""}, {"end", "1994-01-01", "date + 1 year"}, {"nation", "ALGERIA", ""}},
	"q21": {{"nation", "EGYPT", ""}},
	"q22": {{"codes", "'20', '40', '22', '30', '39', '42', '21'", ""}},
}

// ParamValue is the value of a query's parameter, or "" when the query has
// no parameter of that name.
func ParamValue(query, name string) string {
	for _, p := range GoTPCParams[query] {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}
