package ops

import (
	"testing"
)

// TestShortStrWord: a string packs into a word exactly when it has at most
// 8 bytes and its last byte is not zero, two packable strings pack alike
// exactly when they are equal, and the word does not depend on whether
// the bytes after the string are in the buffer (the 8-byte load) or not
// (the byte loop).
func TestShortStrWord(t *testing.T) {
	strs := []string{"", "a", "b", "ab", "ba", "a\x00", "\x00", "\x00a", "\x01", "\xff",
		"abcdefgh", "abcdefgg", "abcdefghi", "abcdefg\x00", "\xff\xff\xff\xff\xff\xff\xff\xff",
		"R", "F", "N", "O", "1-URGENT", "Brand#13", "REG AIR", "é"}
	type packed struct {
		s string
		w int64
	}
	var ok []packed
	for _, s := range strs {
		want := len(s) <= 8 && (len(s) == 0 || s[len(s)-1] != 0)
		// At the end of its buffer (the byte loop) and followed by
		// other bytes (the 8-byte load when they suffice).
		tail := []byte(s)
		padded := append([]byte(s), "zzzzzzzz"...)
		w1, ok1 := shortStrWord(tail, 0, len(s))
		w2, ok2 := shortStrWord(padded, 0, len(s))
		if ok1 != want || ok2 != want {
			t.Errorf("%q packs: %v (at the end), %v (followed by bytes); want %v", s, ok1, ok2, want)
			continue
		}
		if !want {
			continue
		}
		if w1 != w2 {
			t.Errorf("%q packs to %#x at the end of its buffer, %#x followed by bytes", s, w1, w2)
		}
		ok = append(ok, packed{s, w1})
	}
	for i, a := range ok {
		for _, b := range ok[i+1:] {
			if a.w == b.w {
				t.Errorf("%q and %q both pack to %#x", a.s, b.s, a.w)
			}
		}
	}
}
