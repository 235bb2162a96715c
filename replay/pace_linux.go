package replay

import (
	"time"

	"golang.org/x/sys/unix"
)

// kernelSleeps says that sleepKernel sleeps precisely on this platform.
const kernelSleeps = true

// sleepKernel blocks the calling thread for d in the kernel's
// high-resolution sleep, with this thread's timer slack (50 µs by default)
// cut to 1 µs, so it wakes within tens of µs of d.
func sleepKernel(d time.Duration) {
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	ts := unix.NsecToTimespec(int64(d))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, &ts) == unix.EINTR {
	}
}
