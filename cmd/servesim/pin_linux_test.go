package main

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// pinApart keeps the last of this process's CPUs for an engine and moves
// every thread of this process onto the others until the test ends, with
// GOMAXPROCS matched to them, as a client started under taskset gets. It
// returns the engine's CPU as a taskset list, or "" when there is only one
// CPU to share.
func pinApart(t *testing.T) string {
	t.Helper()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Logf("not pinning the engine apart: %v", err)
		return ""
	}
	if all.Count() < 2 {
		t.Logf("not pinning the engine apart: one CPU")
		return ""
	}
	last := -1
	for cpu := range len(all) * 64 {
		if all.IsSet(cpu) {
			last = cpu
		}
	}
	client := all
	client.Clear(last)
	setThreadsAffinity(t, &client)
	procs := runtime.GOMAXPROCS(client.Count())
	t.Cleanup(func() {
		runtime.GOMAXPROCS(procs)
		setThreadsAffinity(t, &all)
	})
	return strconv.Itoa(last)
}

// setThreadsAffinity sets the CPUs of every thread of this process. It makes
// two passes: a thread the Go runtime starts during the first inherits the
// mask of the thread that started it, which may not have been moved yet.
func setThreadsAffinity(t *testing.T, set *unix.CPUSet) {
	t.Helper()
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				t.Fatalf("setting the CPUs of thread %d: %v", tid, err)
			}
		}
	}
}
