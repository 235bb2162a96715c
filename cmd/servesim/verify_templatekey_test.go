package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An engine command that holds the key itself and fails to render is
// refused with the key masked in the error.
func TestVerifyBadEngineTemplateMasksTheKey(t *testing.T) {
	dir := t.TempDir()
	const key = "sk-servesim-TMPLKEY-0123456789"
	t.Setenv("SERVESIM_TMPL_KEY", key)
	url, _ := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	for _, flag := range []string{"--engine-cmd", "--stop-cmd"} {
		args := []string{"verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
			"--api-key-env", "SERVESIM_TMPL_KEY", "--tokens-per-byte", "1", "--out", filepath.Join(dir, "out"),
			"--engine-cmd", "true", flag, `vllm serve --api-key {{index "` + key + `" 99}}`}
		text, code, err := runCode(t, args...)
		if code != 2 || err == nil || strings.Contains(err.Error()+text, "TMPLKEY") || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("verify %s: exit %d, err %v: want exit 2 with the key masked\n%s", flag, code, err, text)
		}
	}
}
