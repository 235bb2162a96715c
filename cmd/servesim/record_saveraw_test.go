package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A --save-raw the run cannot use is a usage error naming the flag, not
// the Go field behind it.
func TestRecordSaveRawErrorNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	r := &traces.Request{}
	r.Reset()
	r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = "q", int64(time.Millisecond), 50, 3
	trace := filepath.Join(dir, "in.csv")
	if err := traces.WriteAll(trace, traces.Meta{}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
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
