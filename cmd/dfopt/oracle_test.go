package main

import (
	"strings"
	"testing"
	"time"

	"github.com/dfopt/dfopt/oracle"
)

func TestOracleCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		last string // prefix of the last stdout line
		out  string // a substring of stdout
	}{
		{"small campaign", []string{"oracle", "-n", "60", "-seed", "3", "-rows", "8", "-quiet"}, exitOK,
			"oracle: ok plans=60 divergences=0", "pp.sort"},
		{"shard", []string{"oracle", "-n", "60", "-shard", "1/3", "-rows", "8", "-quiet"}, exitOK,
			"oracle: ok plans=20 divergences=0", "shard"},
		{"too few plans to exercise every cell", []string{"oracle", "-n", "5", "-rows", "4", "-quiet", "-fail-unexercised"}, exitFailed,
			"oracle: UNEXERCISED plans=5", "UNEXERCISED"},
		{"bad shard", []string{"oracle", "-shard", "3/3"}, exitBadArgs, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.last) {
				t.Errorf("last line %q, want prefix %q", last, tc.last)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
		})
	}
}

func TestProgressBar(t *testing.T) {
	var b strings.Builder
	p := newProgressBar(&b, true)
	p.update(progressFor(50, 100))
	p.update(progressFor(100, 100))
	p.finish()
	s := b.String()
	if !strings.HasPrefix(s, "\r[===============               ] 50/100") || !strings.HasSuffix(s, "\n") || strings.Count(s, "\r") != 2 {
		t.Errorf("terminal bar: %q", s)
	}
	b.Reset()
	p = newProgressBar(&b, false)
	p.update(progressFor(10, 100))
	if s := b.String(); strings.Contains(s, "\r") || !strings.HasPrefix(s, "oracle: 10/100 plans (10%)") {
		t.Errorf("plain progress: %q", s)
	}
}

func progressFor(done, total int) oracle.Progress {
	return oracle.Progress{Done: done, Total: total, Elapsed: time.Second}
}
