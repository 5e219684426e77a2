package proptest

import (
	"github.com/leanovate/gopter"
)

// CaseGen is a gopter generator of cases with shrinking. Each case is
// Generate(seed, cfg) for a seed drawn from gopter's random source, so the
// seed printed with a counterexample (Case.String shows it) replays the
// original case alone. The result is built with gopter.NewGenResult and the
// shrinker CaseShrinker: gopter's combinators (Map, OneGenOf, CombineGens)
// would drop the shrinker. Keep gopter's Workers at 1: several workers
// share one random source, and a seed no longer reproduces a run.
func CaseGen(cfg Config) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(Generate(p.Rng.Int63(), cfg), CaseShrinker)
	}
}

// CaseShrinker is the gopter shrinker of a Case: the finite stream of the
// candidates Shrink tries (see shrink.go), each strictly smaller than the
// case. Any other value has no candidates.
func CaseShrinker(v interface{}) gopter.Shrink {
	c, ok := v.(Case)
	if !ok {
		return gopter.NoShrink
	}
	next := shrinkStream(c)
	return func() (interface{}, bool) {
		cand, ok := next()
		if !ok {
			return nil, false
		}
		return cand, true
	}
}
