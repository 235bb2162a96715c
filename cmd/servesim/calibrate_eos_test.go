package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// An engine that stops requests at EOS before their max_tokens leaves the
// fit correct but the runs without their planned shape: calibration says
// which runs, how many requests, and whether --ignore-eos was set, live
// and in a refit alike.
func TestCalibrateWarnsOfOutputsStoppedAtEOS(t *testing.T) {
	// 16 tokens: every run but the prefill sweep's (4) and the warm-up's
	// (1 and 8) asks for more
	eos := regexp.MustCompile(`warning: run ([a-z0-9-]+): (\d+) of (\d+) requests stopped at EOS before their max_tokens`)
	wantRuns := "decode-c1-p64-r1 2/2, decode-c2-p64-r1 4/4, decode-c4-p64-r1 8/8, admission-r1 1/9, mixed-c4-r1 16/16, memory-c1-r1 2/2, memory-c2-r1 4/4"
	for _, tc := range []struct {
		name      string
		opts      replaytest.Options
		flag      []string
		wantWarn  bool
		wantState string
	}{
		{"no flag", replaytest.Options{EOSAfter: 16}, nil, true, "--ignore-eos was not set"},
		{"flag unheeded", replaytest.Options{EOSAfter: 16, EOSIgnoresFlag: true}, []string{"--ignore-eos"}, true, "--ignore-eos was set"},
		{"flag heeded", replaytest.Options{EOSAfter: 16}, []string{"--ignore-eos"}, false, "--ignore-eos was"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.TTFT, tc.opts.ITL = 2*time.Millisecond, time.Millisecond
			srv := replaytest.New(tc.opts)
			defer srv.Close()
			dir := t.TempDir()
			out := filepath.Join(dir, "p.json")
			args := append([]string{"calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
				"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"}, tc.flag...)
			live, err := run(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			refit, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces"))
			if err != nil {
				t.Fatal(err)
			}
			for what, log := range map[string]string{"live": live, "refit": refit} {
				var warned []string
				for _, m := range eos.FindAllStringSubmatch(log, -1) {
					warned = append(warned, m[1]+" "+m[2]+"/"+m[3])
				}
				got := strings.Join(warned, ", ")
				want := ""
				if tc.wantWarn {
					want = wantRuns
				}
				if got != want || tc.wantWarn != strings.Contains(log, tc.wantState) {
					t.Errorf("%s: EOS after 16 tokens, flags %v: runs warned of %q, want %q, and %q said:\n%s",
						what, tc.flag, got, want, tc.wantState, log)
				}
			}
		})
	}
}
