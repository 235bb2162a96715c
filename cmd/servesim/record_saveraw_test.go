package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// oneRowTrace writes a trace of one request into dir and returns its path.
func oneRowTrace(t *testing.T, dir string) string {
	t.Helper()
	r := &traces.Request{}
	r.Reset()
	r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = "q", int64(time.Millisecond), 50, 3
	trace := filepath.Join(dir, "in.csv")
	if err := traces.WriteAll(trace, traces.Meta{}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	return trace
}

// A --save-raw the run cannot use is a usage error naming the flag, not
// the Go field behind it.
func TestRecordSaveRawErrorNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	trace := oneRowTrace(t, dir)
	withBodies := filepath.Join(dir, "raw")
	os.MkdirAll(withBodies, 0o755)
	os.WriteFile(filepath.Join(withBodies, "000001_q.sse"), []byte("data: [DONE]\n\n"), 0o644)
	for _, raw := range []string{trace, withBodies} {
		_, err := run(t, "record", "--trace", trace, "--out", filepath.Join(dir, "out.csv"), "--base-url", "http://127.0.0.1:1/v1",
			"--model", "m", "--save-raw", raw)
		if err == nil || !strings.Contains(err.Error(), "record: --save-raw: ") || strings.Contains(err.Error(), "Config.SaveRaw") {
			t.Errorf("--save-raw %s: err = %v, want one naming --save-raw", raw, err)
		}
	}
}

// A --save-raw at the path of --out (of any --repeat run's trace) would
// become a directory there, and the trace could not be written once the
// run was over: it is refused before any request.
func TestRecordSaveRawAtOutIsRefused(t *testing.T) {
	dir := t.TempDir()
	trace := oneRowTrace(t, dir)
	out := filepath.Join(dir, "out.csv")
	for _, args := range [][]string{
		{"--save-raw", out},
		{"--save-raw", filepath.Join(dir, "out.run2.csv"), "--repeat", "2"},
	} {
		_, code, err := runCode(t, append([]string{"record", "--trace", trace, "--out", out, "--base-url", "http://127.0.0.1:1/v1",
			"--model", "m", "--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1"}, args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--save-raw") {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming --save-raw", args, code, err)
		}
	}
}

// A --save-raw in a directory that does not exist is refused before any
// request, as an --out there is: the run makes the raw bodies' directory,
// not a tree of them that a typo named.
func TestRecordSaveRawInMissingDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	trace := oneRowTrace(t, dir)
	missing := filepath.Join(dir, "nodir")
	_, code, err := runCode(t, "record", "--trace", trace, "--out", filepath.Join(dir, "out.csv"), "--base-url", "http://127.0.0.1:1/v1",
		"--model", "m", "--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--save-raw", filepath.Join(missing, "raw"))
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--save-raw") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("exit %d, err %v; want exit 2 naming --save-raw and the missing directory", code, err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s: %v; want it not created", missing, err)
	}
}
