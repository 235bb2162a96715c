//go:build !unix

package verify

import (
	"errors"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(pgid int, hard bool) error {
	return errors.New("verify: stopping an engine's process group needs a unix system")
}

func groupAlive(pgid int) bool { return false }
