package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
)

// A profile refitted by an earlier verify cites that verify's measured
// traces (OUT/rankNN.parquet) by path and sha256; a second verify with
// that profile and the same --out would replace them with its own runs,
// and the profile (and any refit of it) would lose those runs. It is a
// usage error found before any candidate runs.
func TestVerifyRefusesToOverwriteTheProfilesTraces(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	cited := filepath.Join(out, "rank01.parquet") // an earlier verify's measured run
	if _, err := run(t, "trace", "convert", tr, cited); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(cited)
	prof, err := calibrate.LoadProfile(filepath.Join("..", "..", "calibrate", "testdata", "profile_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := calibrate.NewTraceRef(cited)
	if err != nil {
		t.Fatal(err)
	}
	ref.Path, ref.Kind, ref.Slots = filepath.Join("out", "rank01.parquet"), "verify", 4 // from the profile's directory
	prof.Traces = []calibrate.TraceRef{ref}
	pp := filepath.Join(dir, "p.refit.json")
	if err := prof.Save(pp); err != nil {
		t.Fatal(err)
	}
	for _, refit := range [][]string{nil, {"--refit", "--refit-out", filepath.Join(dir, "p2.json")}} {
		args := append([]string{"verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
			"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out, "--profile", pp}, refit...)
		text, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "would overwrite the input --profile's trace: "+cited) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming the profile's trace %s\n%s", refit, code, err, cited, text)
		}
	}
	if after, _ := os.ReadFile(cited); string(after) != string(before) {
		t.Error("the profile's trace was overwritten")
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}
