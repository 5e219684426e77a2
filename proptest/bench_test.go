package proptest

import "testing"

// BenchmarkGenerate measures generation at the campaign's defaults (up to
// 64 rows per table); the campaign needs well under 100 µs per case.
func BenchmarkGenerate(b *testing.B) {
	cfg := DefaultConfig()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Generate(CaseSeed(42, i), cfg)
	}
}

// BenchmarkGenerateSmall measures generation at up to 16 rows per table
// (the oracle throughput goal R1's data size).
func BenchmarkGenerateSmall(b *testing.B) {
	cfg := DefaultConfig()
	cfg.MaxRows = 16
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Generate(CaseSeed(42, i), cfg)
	}
}

// BenchmarkFeatures measures the coverage helper.
func BenchmarkFeatures(b *testing.B) {
	cfg := DefaultConfig()
	cases := make([]Case, 256)
	for i := range cases {
		cases[i] = Generate(CaseSeed(42, i), cfg)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Features(cases[i%len(cases)])
	}
}
