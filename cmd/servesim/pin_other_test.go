//go:build !linux

package main

import "testing"

// pinApart pins nothing where CPU affinity is not Linux's: the engine and
// the client share every CPU.
func pinApart(t *testing.T) string {
	t.Logf("not pinning the engine apart on this OS")
	return ""
}
