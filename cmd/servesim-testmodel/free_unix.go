//go:build linux || darwin

package main

import "golang.org/x/sys/unix"

// freeBytes returns the bytes an unprivileged writer may still use on
// dir's file system, and whether that could be told.
func freeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
