//go:build unix

package verify

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new process group, so that the
// engine and everything it starts can be signalled together.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup signals process group pgid: SIGKILL when hard, else SIGTERM.
func killGroup(pgid int, hard bool) error {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-pgid, sig)
}

// groupAlive reports whether any process of group pgid is left.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
