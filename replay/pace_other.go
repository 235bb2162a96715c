//go:build !linux

package replay

import "time"

// kernelSleeps says that sleepKernel sleeps precisely on this platform: it
// does not here, so the pacer spins instead.
const kernelSleeps = false

func sleepKernel(time.Duration) {}
