package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// A profile fitted on contexts of at most 150 tokens prices the trace's
// 220-token request (200 prompt + 20 output) by extrapolating its
// attention terms: simulate says so once, naming both numbers; a trace
// within the measured range, or a profile that recorded none, gets no
// warning. Rows the source trace recorded as failed are not simulated.
func TestSimulateWarnsOfContextsPastTheProfiles(t *testing.T) {
	dir := t.TempDir()
	base, err := os.ReadFile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	// Two plans: the warning is of the trace, said once for both.
	a, b := basePlan(t, dir, "a.toml"), basePlan(t, dir, "b.toml")
	src := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens,source_failed\n0,100,10,false\n5000000000,200,20,false\n6000000000,900,10,true\n9000000000,50,5,false\n")
	for _, c := range []struct {
		measured string
		want     string
	}{
		{`"max_context": 150,`, "was measured at contexts up to 150 tokens, the trace's longest prompt + output 220 (attention terms extrapolated)"},
		{`"max_context": 220,`, ""},
		{"", ""},
	} {
		prof := bytes.Replace(base, []byte(`"block_size": 16,`), []byte(`"block_size": 16, `+c.measured), 1)
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, prof, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run(t, "simulate", "--trace", src, "--config", a, "--config", b, "--profile", path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "contexts up to"); c.want == "" && n != 0 || c.want != "" && (n != 1 || !strings.Contains(out, c.want)) {
			t.Errorf("profile %q: %d context warnings, want %q once (or none):\n%s", c.measured, n, c.want, out)
		}
	}
}

// A sweep warns of the same, as simulate its plans' differences, once
// however many configs it runs, prefixed as its other lines.
func TestSweepWarnsOfContextsPastTheProfiles(t *testing.T) {
	dir := t.TempDir()
	base, err := os.ReadFile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	prof := writeFile(t, dir, "p.json", string(bytes.Replace(base, []byte(`"block_size": 16,`), []byte(`"block_size": 16, "max_context": 150,`), 1)))
	src := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n5000000000,200,20\n9000000000,50,5\n")
	out, err := run(t, "simulate", "--trace", src, "--sweep", smallSweep, "--out", filepath.Join(dir, "out"), "--profile", prof, "-q")
	if err != nil {
		t.Fatal(err)
	}
	want := "sweep: warning: " + prof + " was measured at contexts up to 150 tokens, the trace's longest prompt + output 220"
	if n := strings.Count(out, "contexts up to"); n != 1 || !strings.Contains(out, want) {
		t.Errorf("%d context warnings, want %q once:\n%s", n, want, out)
	}
}

// verify re-simulates its slice of the trace: the longest context it
// warns of is the slice's, without the rows failed in the source.
func TestVerifySliceLongestContext(t *testing.T) {
	src := writeFile(t, t.TempDir(), "in.csv", "arrival_ns,prompt_tokens,output_tokens,source_failed\n0,100,10,false\n1000,900,10,true\n2000,200,20,false\n3000,5000,5,false\n")
	for _, c := range []struct {
		slice verify.Slice
		want  int64
	}{{verify.Slice{Head: 2}, 220}, {verify.Slice{}, 5005}, {verify.Slice{From: 1500, To: 2500}, 220}} {
		got, err := sliceLongestContext(src, c.slice, []contextLimits{{maxNew: 1024, maxModelLen: 8192}})
		if err != nil || got != c.want {
			t.Errorf("slice %+v: longest context %d, %v; want %d", c.slice, got, err, c.want)
		}
	}
}

// The context warned of is the one the plans serve: an output capped at
// max_new_tokens, and no request refused past max_model_len (the 9,000-
// token prompt below), which is never priced.
func TestSimulateWarnsOfContextsAsThePlansServeThem(t *testing.T) {
	dir := t.TempDir()
	base, err := os.ReadFile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	short := basePlan(t, dir, "short.toml", "max_new_tokens = 1024", "max_new_tokens = 10")
	src := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n5000000000,200,20\n6000000000,9000,10\n")
	for _, c := range []struct {
		measured int
		want     string
	}{
		{215, ""},
		{205, "contexts up to 205 tokens, the trace's longest prompt + output 210 (attention terms extrapolated)"},
	} {
		prof := bytes.Replace(base, []byte(`"block_size": 16,`), []byte(fmt.Sprintf(`"block_size": 16, "max_context": %d,`, c.measured)), 1)
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, prof, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run(t, "simulate", "--trace", src, "--config", short, "--profile", path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "contexts up to"); c.want == "" && n != 0 || c.want != "" && (n != 1 || !strings.Contains(out, c.want)) {
			t.Errorf("max_context %d: %d context warnings, want %q once (or none):\n%s", c.measured, n, c.want, out)
		}
	}
}
