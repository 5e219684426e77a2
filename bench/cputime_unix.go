//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used so
// far, all threads together. A run's CPU time is what it cost whatever else
// the machine was doing; its wall time is not.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
