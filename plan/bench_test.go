package plan

import (
	"strconv"
	"testing"
)

// chain builds an n-step plan alternating filter, with_columns and sort.
func chain(tb testing.TB, n int) Node {
	f := Scan(std(tb))
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			f = f.Filter(Col("a").Gt(Lit(int64(i))))
		case 1:
			f = f.WithColumns(Col("b").Add(Lit(1)).Alias("b"))
		default:
			f = f.Sort(Asc(Col("k")))
		}
	}
	return f.Node()
}

// BenchmarkResolveChain measures full resolution of long chains; the
// per-node cost should stay flat as the chain grows (docs/design.md §11).
func BenchmarkResolveChain(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		plan := chain(b, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Resolve(plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResolveLocalRewrite measures re-resolving one new node on top of
// a resolved 10,000-node chain: it must not depend on the chain's length.
func BenchmarkResolveLocalRewrite(b *testing.B) {
	r, err := Resolve(chain(b, 10000))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Resolve(&LimitNode{Input: r, N: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEqualChain measures structural equality of two equal resolved
// 10,000-node chains (the worst case: nothing rejects early).
func BenchmarkEqualChain(b *testing.B) {
	x, err := Resolve(chain(b, 10000))
	if err != nil {
		b.Fatal(err)
	}
	y := Unresolved(x)
	if y, err = Resolve(y); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !Equal(x, y) {
			b.Fatal("not equal")
		}
	}
}
