package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flag values out of range are refused, not wrapped or ignored.
func TestTraceFlagsOutOfRange(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	os.WriteFile(src, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,20\n0,100,20\n"), 0o644)
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		// 2^32 + 64 would wrap to a 64-token prefix.
		{[]string{"trace", "synth", "--requests", "2", "--prefix-groups", "2", "--prefix-tokens", "4294967360", "--block-size", "64", out}, "--prefix-tokens"},
		// import refuses a negative --spread; stats took it and ignored it.
		{[]string{"trace", "stats", "--spread", "-3s", src}, "--spread"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want an error naming %s", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
			os.Remove(out)
		}
	}
}

// --resample takes lengths from any importable trace, ShareGPT (which has
// lengths but no timestamps) included: its arrivals are not used.
func TestSynthResampleShareGPT(t *testing.T) {
	dir := t.TempDir()
	share := writeFile(t, dir, "share.json", `[{"id":"a","conversations":[{"from":"human","value":"0123456789abcdef"},{"from":"gpt","value":"01234567"}]}]`)
	out := filepath.Join(dir, "out.csv")
	if _, err := run(t, "trace", "synth", "--requests", "3", "--resample", share, out); err != nil {
		t.Fatalf("synth --resample share.json: %v", err)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), ",4,2,"); n != 3 {
		t.Errorf("want 3 rows of 4 prompt and 2 output tokens, got %d in\n%s", n, b)
	}
}
