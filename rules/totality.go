package rules

import "github.com/dfopt/dfopt/legality"

// Totality returns the totality the legality table decides with in tier t:
// the bounded tier's (legality.BoundedTotality: columns, literals and
// declared-total UDFs) or the standard tier's (legality.StandardTotality:
// plan.Total's lattice over every built-in, over the schema where each
// expression is evaluated). Optimize gives every rule the table of its
// flags' tier (legality.Table.WithTotality), so each question "may this
// expression meet other rows" — a rule's own or a host's — is answered by
// one totality per run.
func (t Tier) Totality() legality.Totality {
	if t == TierStandard {
		return legality.StandardTotality
	}
	return legality.BoundedTotality
}
