// Package tpch generates the TPC-H tables as Parquet files and checks query
// results against the SF1 answers that ship with go-tpc.
//
// The data comes from github.com/pingcap/go-tpc/tpch/dbgen, a Go port of
// the official TPC-H dbgen 2.4.0; this package only converts its rows to
// Arrow and writes them (Generate). The answers harness (ReadAnswer,
// Compare) reads go-tpc's tpch/output/qN.out files, and Params holds the
// substitution parameters those answers were produced with.
package tpch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Tables are the eight TPC-H tables in the order Generate reports them.
// Each is written as <name>.parquet.
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// The column types: keys and integers int64, money, quantities, discounts
// and taxes float64, dates date32 (Parquet DATE), everything else a string.
var (
	tInt  = arrow.PrimitiveTypes.Int64
	tF64  = arrow.PrimitiveTypes.Float64
	tDate = arrow.FixedWidthTypes.Date32
	tStr  = arrow.BinaryTypes.String
)

type column struct {
	name string
	typ  arrow.DataType
}

// columns lists every table's columns in TPC-H order with the standard
// TPC-H names.
var columns = map[string][]column{
	"region": {{"r_regionkey", tInt}, {"r_name", tStr}, {"r_comment", tStr}},
	"nation": {{"n_nationkey", tInt}, {"n_name", tStr}, {"n_regionkey", tInt}, {"n_comment", tStr}},
	"supplier": {{"s_suppkey", tInt}, {"s_name", tStr}, {"s_address", tStr}, {"s_nationkey", tInt},
		{"s_phone", tStr}, {"s_acctbal", tF64}, {"s_comment", tStr}},
	"customer": {{"c_custkey", tInt}, {"c_name", tStr}, {"c_address", tStr}, {"c_nationkey", tInt},
		{"c_phone", tStr}, {"c_acctbal", tF64}, {"c_mktsegment", tStr}, {"c_comment", tStr}},
	"part": {{"p_partkey", tInt}, {"p_name", tStr}, {"p_mfgr", tStr}, {"p_brand", tStr}, {"p_type", tStr},
		{"p_size", tInt}, {"p_container", tStr}, {"p_retailprice", tF64}, {"p_comment", tStr}},
	"partsupp": {{"ps_partkey", tInt}, {"ps_suppkey", tInt}, {"ps_availqty", tInt}, {"ps_supplycost", tF64},
		{"ps_comment", tStr}},
	"orders": {{"o_orderkey", tInt}, {"o_custkey", tInt}, {"o_orderstatus", tStr}, {"o_totalprice", tF64},
		{"o_orderdate", tDate}, {"o_orderpriority", tStr}, {"o_clerk", tStr}, {"o_shippriority", tInt},
		{"o_comment", tStr}},
	"lineitem": {{"l_orderkey", tInt}, {"l_partkey", tInt}, {"l_suppkey", tInt}, {"l_linenumber", tInt},
		{"l_quantity", tF64}, {"l_extendedprice", tF64}, {"l_discount", tF64}, {"l_tax", tF64},
		{"l_returnflag", tStr}, {"l_linestatus", tStr}, {"l_shipdate", tDate}, {"l_commitdate", tDate},
		{"l_receiptdate", tDate}, {"l_shipinstruct", tStr}, {"l_shipmode", tStr}, {"l_comment", tStr}},
}

// Schema is the Arrow schema of a TPC-H table (every column non-nullable),
// or an error naming the table when it is not one of Tables.
func Schema(table string) (*arrow.Schema, error) {
	cols, ok := columns[table]
	if !ok {
		return nil, fmt.Errorf("tpch: unknown table %q (one of %v)", table, Tables)
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ}
	}
	return arrow.NewSchema(fields, nil), nil
}
