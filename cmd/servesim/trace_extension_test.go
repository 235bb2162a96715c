package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// renamedTrace writes a small servesim trace under a name whose extension
// names no format (a Parquet file called trace.xyz).
func renamedTrace(t *testing.T, dir string) string {
	t.Helper()
	pq := filepath.Join(dir, "trace.parquet")
	if _, err := run(t, "trace", "synth", "--requests", "4", "--prompt", "fixed:16", "--output", "fixed:4", pq); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "trace.xyz")
	if err := os.Rename(pq, odd); err != nil {
		t.Fatal(err)
	}
	return odd
}

// A servesim trace whose extension names no format is a usage error of
// simulate's --trace, as it is of record's and trace convert's: exit 2,
// the flag named, before any simulation.
func TestSimulateTraceWithUnknownExtensionIsAUsageError(t *testing.T) {
	trace := renamedTrace(t, t.TempDir())
	text, code, err := runCode(t, "simulate", "--trace", trace)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "simulate: --trace: "+trace+": unknown trace extension") {
		t.Fatalf("simulate --trace %s: exit %d, %v; want exit 2 naming --trace\n%s", trace, code, err, text)
	}
}

// So it is of verify's --trace: refused before any candidate runs.
func TestVerifyTraceWithUnknownExtensionIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	oneCandidate(t, dir)
	trace := renamedTrace(t, dir)
	t.Chdir(dir)
	text, code, err := runCode(t, "verify", "--candidates", "candidates.json", "--trace", trace, "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", "v")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "verify: --trace: "+trace+": unknown trace extension") {
		t.Fatalf("verify --trace %s: exit %d, %v; want exit 2 naming --trace\n%s", trace, code, err, text)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("verify --trace %s sent %d requests before refusing it; want none", trace, n)
	}
}

// trace import, stats and synth --resample read it too: the same usage
// error, naming the argument or flag.
func TestTraceVerbsRefuseATraceWithUnknownExtension(t *testing.T) {
	dir := t.TempDir()
	trace := renamedTrace(t, dir)
	out := filepath.Join(dir, "out.parquet")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "import", trace, out}, "import: IN: " + trace + ": unknown trace extension"},
		{[]string{"trace", "import", "--format", "servesim", trace, out}, "import: IN: " + trace + ": unknown trace extension"},
		{[]string{"trace", "stats", trace}, "stats: IN: " + trace + ": unknown trace extension"},
		{[]string{"trace", "synth", "--resample", trace, out}, "synth: --resample: " + trace + ": unknown trace extension"},
	} {
		text, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v; want exit 2 and %q\n%s", tc.args, code, err, tc.want, text)
		}
		if _, statErr := os.Stat(out); statErr == nil {
			t.Errorf("%v wrote %s", tc.args, out)
		}
	}
}

// report and compare read traces among their results: the same usage
// error, naming the argument.
func TestReportAndCompareRefuseATraceWithUnknownExtension(t *testing.T) {
	dir := t.TempDir()
	trace := renamedTrace(t, dir)
	good := mustCopy(t, trace, filepath.Join(dir, "good.parquet"))
	html := filepath.Join(dir, "r.html")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-o", html, trace}, "report: RESULTS: " + trace + ": unknown trace extension"},
		{[]string{"compare", trace, good}, "compare: A: " + trace + ": unknown trace extension"},
		{[]string{"compare", good, trace}, "compare: B: " + trace + ": unknown trace extension"},
	} {
		text, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v; want exit 2 and %q\n%s", tc.args, code, err, tc.want, text)
		}
	}
	if _, err := os.Stat(html); err == nil {
		t.Errorf("report wrote %s", html)
	}
}

func mustCopy(t *testing.T, from, to string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}
