//go:build unix

// Package cputime reads the CPU time the process has used, the figure the
// oracle's campaigns and the benchmark runner report beside wall time: it
// does not grow when other processes compete for the cores.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the process's CPU time so far (user and system, all
// threads), and false where the platform cannot tell.
func Process() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
