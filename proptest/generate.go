package proptest

import "github.com/dfopt/dfopt/proptest/internal/gen"

// The ways a plan is made ill-typed (Case.Corruption). Each makes
// plan.Resolve fail, so the three ways of the oracle must report the same
// resolution error.
const (
	CorruptUnknownColumn    = gen.CorruptUnknownColumn    // a reference to a column the input lacks
	CorruptTypeError        = gen.CorruptTypeError        // an operator applied to the wrong types
	CorruptAggregateOutside = gen.CorruptAggregateOutside // an aggregate in a row context
	CorruptDuplicateName    = gen.CorruptDuplicateName    // two outputs of one node share a name
	CorruptWindowOutside    = gen.CorruptWindowOutside    // over() outside project and with_columns
)

// Corruptions lists every corruption, for coverage reports.
func Corruptions() []string { return gen.Corruptions() }

// Generate builds the case of one seed. It draws only from a math/rand
// source seeded with seed, so the same seed and configuration always give
// the same case (compare with Equal), and Generate(c.Seed, c.Config)
// replays c. About cfg.IllTypedShare of the cases are ill-typed on purpose
// (Case.IllTyped); the rest resolve.
func Generate(seed int64, cfg Config) Case {
	r := gen.Generate(seed, cfg)
	return Case{Seed: seed, Config: r.Config, Tables: r.Tables, Plan: r.Plan, IllTyped: r.IllTyped, Corruption: r.Corruption}
}

// CaseSeed returns the seed of case index of a campaign: the index-th output
// of a splitmix64 stream seeded with campaignSeed. Plan i of a campaign
// replays alone with Generate(CaseSeed(campaignSeed, i), cfg), independent
// of the order or the number of workers that ran the campaign.
func CaseSeed(campaignSeed int64, index int) int64 { return gen.CaseSeed(campaignSeed, index) }
