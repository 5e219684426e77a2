package exec

import "testing"

// TestKeyFilterPays: a join collects the keys of an evaluated input for a
// runtime key filter only when that input has no more rows than the
// scan's source (when its rows are known) and at most maxFilterRows.
func TestKeyFilterPays(t *testing.T) {
	for _, tc := range []struct {
		name            string
		keyRows, probed int64
		want            bool
	}{
		{"small keys, big scan", 2_000, 6_000_000, true},
		{"as many rows as the scan", 10_000, 10_000, true},
		{"more rows than the scan", 800_000, 10_000, false},
		{"scan rows unknown", 1_000, -1, true},
		{"scan rows unknown, too many keys", maxFilterRows + 1, -1, false},
		{"too many keys for any scan", maxFilterRows + 1, 1 << 40, false},
		{"empty input", 0, 0, true},
	} {
		if got := keyFilterPays(tc.keyRows, tc.probed); got != tc.want {
			t.Errorf("%s: keyFilterPays(%d, %d) = %v, want %v", tc.name, tc.keyRows, tc.probed, got, tc.want)
		}
	}
}
