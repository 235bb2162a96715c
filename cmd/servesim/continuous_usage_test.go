package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// --continuous-usage (or continuous_usage in a settings file) asks the
// server for usage on every chunk, and the recording says it did; without
// it the request does not carry the field, which OpenAI's API may refuse.
func TestRecordContinuousUsageFlag(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string
		flags    []string
		want     bool
	}{
		{"off", "", nil, false},
		{"flag", "", []string{"--continuous-usage"}, true},
		{"settings", "continuous_usage = true\n", nil, true},
		{"flag overrides settings", "continuous_usage = true\n", []string{"--continuous-usage=false"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replaytest.New(replaytest.Options{Record: true, TokensPerChunk: 2, UsageIfAsked: true})
			defer srv.Close()
			dir := t.TempDir()
			var in []*traces.Request
			for i := range 2 {
				r := &traces.Request{}
				r.Reset()
				r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = "q"+string(rune('0'+i)), int64(i)*int64(time.Millisecond), 50, 5
				in = append(in, r)
			}
			trace := filepath.Join(dir, "in.csv")
			if err := traces.WriteAll(trace, traces.Meta{}, in); err != nil {
				t.Fatal(err)
			}
			settings := filepath.Join(dir, "s.toml")
			if err := os.WriteFile(settings, []byte(tc.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.parquet")
			args := append([]string{"record", "--settings", settings, "--base-url", srv.BaseURL(), "--model", "m",
				"--api-key-env", "SERVESIM_NO_KEY", "--trace", trace, "--out", out, "--tokens-per-byte", "1", "--prompt-overhead", "20"}, tc.flags...)
			if log, err := run(t, args...); err != nil {
				t.Fatalf("%v\n%s", err, log)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for _, q := range reqs {
				if q.Continuous != tc.want || !q.IncludeUsage {
					t.Errorf("request sent continuous_usage_stats %v, include_usage %v; want %v and true", q.Continuous, q.IncludeUsage, tc.want)
				}
			}
			meta, rows, err := traces.ReadAll(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := meta.Extra["replay.continuous_usage"]; got != map[bool]string{false: "false", true: "true"}[tc.want] {
				t.Errorf("replay.continuous_usage = %q, want %v", got, tc.want)
			}
			for _, r := range rows {
				if r.Error != "" || len(r.TokenTimes) != 5 {
					t.Errorf("row %s: error %q, %d token times, want 5", r.ID, r.Error, len(r.TokenTimes))
				}
			}
		})
	}
}
