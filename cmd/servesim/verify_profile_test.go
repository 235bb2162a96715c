package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// verify predicts with --profile as simulate does: a candidate on
// another device than the profile's is a usage error, refused before any request is
// sent, and a precision or model the profile was not measured at is
// warned of.
func TestVerifyChecksTheProfileAgainstTheCandidates(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir) // device "cpu", precision f16, servesim-tiny
	h100 := writeFile(t, dir, "h100.json", testProfile(t))
	cpu := cpuProfile(t, dir)
	base := []string{"verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", filepath.Join(dir, "out")}

	text, code, err := runCode(t, append(base, "--profile", h100)...)
	if code != 2 || err == nil || !strings.Contains(err.Error(), `measured on device "H100-SXM-80G"`) || !strings.Contains(err.Error(), `"cpu"`) {
		t.Errorf("a profile of another device: exit %d, err %v; want it refused as a usage error (exit 2) naming both devices\n%s", code, err, text)
	} else if want := "verify: --profile " + h100 + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a profile of another device: %v\nwant it to start %q: a usage error is printed as it is", err, want)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}

	text, _, err = runCode(t, append(base, "--profile", cpu)...)
	for _, want := range []string{"verify: warning: " + cpu, "precision bf16, the plan f16", `model "Llama-3.1-8B", the plan servesim-tiny`} {
		if !strings.Contains(text, want) {
			t.Errorf("a profile of another precision and model: output lacks %q (err %v)\n%s", want, err, text)
		}
	}
}
