//go:build !unix

package bench

import "time"

// processCPU is not available on this platform; Sample.CPU stays zero.
func processCPU() (time.Duration, bool) { return 0, false }
