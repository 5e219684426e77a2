package gen

// Config bounds what Generate produces. The zero value means "the defaults"
// field by field (see DefaultConfig), so Config{MaxRows: 16} is a valid
// configuration.
type Config struct {
	// MaxRows bounds the rows of each generated table (0: 64; at most 200;
	// negative: empty tables only).
	// Row counts are skewed small: about 8% of tables are empty and about a
	// fifth have one to three rows.
	MaxRows int
	// MaxTables bounds the number of source tables (0: 3; 1 to 3).
	MaxTables int
	// MaxColumns bounds the columns of each table (0: 8; 1 to 8).
	MaxColumns int
	// MaxDepth bounds the plan depth: the number of nodes above a scan on
	// the longest path (0: 10; at most 16; negative: bare scans, plus the
	// broken node of an ill-typed case).
	MaxDepth int
	// MaxNodes bounds the number of operators above the scans (0: 24;
	// negative: none). It
	// is a soft bound: once that many exist, every further input is a scan,
	// but a template under way still adds its last few nodes.
	MaxNodes int
	// MaxExprDepth bounds the nesting of generated expressions (0: 3; at
	// most 6; negative: leaves only, where a template allows).
	MaxExprDepth int
	// MaxJoinRows bounds the worst-case row count of a join's output; a join
	// whose inputs could produce more gets a limit on its larger input
	// (0: 4096). It keeps nested joins from exploding the oracle's run time.
	MaxJoinRows int
	// IllTypedShare is the probability that a case is deliberately
	// ill-typed (0: 0.05; a negative value disables ill-typed cases).
	IllTypedShare float64
	// TwinShare is the probability that the shared-subtree template puts
	// beside its subtree S a twin of S: the same plan over twin tables,
	// which have the names and schemas of S's tables but values of their
	// own. S and its twin have one fingerprint and are different plans,
	// the fingerprint collision cell ss.structural exists for (two host
	// tables of one name). 0 (the default) and negative values: no twins.
	// A plan file cannot hold two tables of one name, so a twin case cannot
	// be written as one; the mutation campaign turns twins on.
	TwinShare float64
}

// DefaultConfig returns the campaign defaults: up to 64 rows, 3 tables, 8
// columns, depth 10, 24 operators, expressions nested 3 deep, 5% ill-typed.
func DefaultConfig() Config {
	return Config{MaxRows: 64, MaxTables: 3, MaxColumns: 8, MaxDepth: 10, MaxNodes: 24,
		MaxExprDepth: 3, MaxJoinRows: 4096, IllTypedShare: 0.05}
}

// Normalized replaces zero fields by the defaults and clamps the rest, so
// that no configuration can make the generator misbehave. A negative
// MaxRows, MaxDepth, MaxNodes, MaxExprDepth or IllTypedShare means "none"
// (empty tables, scan-only plans, leaf expressions, no ill-typed cases) and
// is kept as -1, so that normalizing twice changes nothing: a case's
// normalized Config replays it.
func (c Config) Normalized() Config {
	d := DefaultConfig()
	pick := func(v, def, lo, hi int) int {
		switch {
		case v == 0:
			return def
		case v < 0 && lo < 0:
			return -1
		case v < lo:
			return lo
		case v > hi:
			return hi
		}
		return v
	}
	c.MaxRows = pick(c.MaxRows, d.MaxRows, -1, 200)
	c.MaxTables = pick(c.MaxTables, d.MaxTables, 1, 3)
	c.MaxColumns = pick(c.MaxColumns, d.MaxColumns, 1, 8)
	c.MaxDepth = pick(c.MaxDepth, d.MaxDepth, -1, 16)
	c.MaxNodes = pick(c.MaxNodes, d.MaxNodes, -1, 200)
	c.MaxExprDepth = pick(c.MaxExprDepth, d.MaxExprDepth, -1, 6)
	c.MaxJoinRows = pick(c.MaxJoinRows, d.MaxJoinRows, 1, 1<<20)
	switch {
	case c.IllTypedShare == 0:
		c.IllTypedShare = d.IllTypedShare
	case c.IllTypedShare < 0 || c.IllTypedShare != c.IllTypedShare: // negative or NaN
		c.IllTypedShare = -1
	case c.IllTypedShare > 1:
		c.IllTypedShare = 1
	}
	switch {
	case c.TwinShare < 0 || c.TwinShare != c.TwinShare: // negative or NaN
		c.TwinShare = 0
	case c.TwinShare > 1:
		c.TwinShare = 1
	}
	return c
}

// nonneg maps the "none" sentinel -1 of a normalized field to 0.
func nonneg(v int) int {
	if v < 0 {
		return 0
	}
	return v
}
