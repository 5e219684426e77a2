package gen

import "math/rand"

// golden is the splitmix64 increment (2^64 / φ).
const golden = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 finalizer: a bijective, well-avalanching mix.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// CaseSeed returns the seed of case index of a campaign: the index-th output
// of a splitmix64 stream seeded with campaignSeed. Plan i of a campaign
// replays alone with Generate(CaseSeed(campaignSeed, i), cfg), independent
// of the order or the number of workers that ran the campaign.
func CaseSeed(campaignSeed int64, index int) int64 {
	return int64(mix64(uint64(campaignSeed) + (uint64(index)+1)*golden))
}

// splitmix is a math/rand Source64 implementing splitmix64. It is used
// instead of rand.NewSource because seeding it is free (rand.NewSource
// allocates ~5 KB and runs ~600 seeding steps, a noticeable share of a
// generation budget of a few microseconds per node), and because its stream
// is fixed by this file alone, so a seed replays on every Go version.
type splitmix struct{ s uint64 }

// Uint64 returns the next 64 random bits.
func (r *splitmix) Uint64() uint64 {
	r.s += golden
	return mix64(r.s)
}

// Int63 returns the next 63 random bits as a non-negative int64.
func (r *splitmix) Int63() int64 { return int64(r.Uint64() >> 1) }

// Seed restarts the stream.
func (r *splitmix) Seed(seed int64) { r.s = uint64(seed) }

// newRand returns a math/rand generator whose stream depends only on seed.
func newRand(seed int64) *rand.Rand { return rand.New(&splitmix{s: uint64(seed)}) }
