//go:build !unix

package oracle

import "time"

// cpuTime is unavailable on this platform: campaigns report wall-clock
// throughput only.
func cpuTime() time.Duration { return 0 }
