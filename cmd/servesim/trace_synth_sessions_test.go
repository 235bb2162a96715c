package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// --turns and --think-time make a trace of sessions whose later turns
// carry the history: session ids set, prompts growing within a session.
func TestSynthSessionFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	if _, err := run(t, "trace", "synth", "--turns", "fixed:3", "--think-time", "2", "--block-size", "16", "--requests", "30", "--prompt", "fixed:40", out); err != nil {
		t.Fatal(err)
	}
	r, err := traces.Import(out, traces.FormatServesim, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	last := map[string]int32{}
	rows := 0
	for r.Next() {
		q := r.At()
		rows++
		if q.SessionID == "" {
			t.Fatalf("row %s has no session", q.ID)
		}
		if prev, ok := last[q.SessionID]; ok && q.PromptTokens <= prev {
			t.Errorf("session %s: prompt %d after %d, want it to grow", q.SessionID, q.PromptTokens, prev)
		}
		last[q.SessionID] = q.PromptTokens
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if m := r.Meta(); rows != 30 || len(last) >= 30 || m.Extra["turns"] != "fixed(3)" || m.Extra["think_time"] != "2" {
		t.Errorf("%d rows in %d sessions, meta turns %q think_time %q", rows, len(last), m.Extra["turns"], m.Extra["think_time"])
	}
}

func TestSynthSessionFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--think-time", "2"}, "synth: --think-time applies to --turns"},
		{[]string{"--turns", "fixed:1", "--think-time", "2"}, "synth: --think-time spaces the turns of sessions"},
		{[]string{"--turns", "fixed:3"}, "synth: --turns fixed:3 makes sessions, which need --think-time"},
		{[]string{"--turns", "fixed:3", "--think-time", "0"}, "synth: --think-time: "},
		{[]string{"--turns", "fixed:0", "--think-time", "1"}, "synth: --turns: "},
		{[]string{"--turns", "many", "--think-time", "1"}, "synth: --turns: "},
		{[]string{"--turns", "fixed:2", "--think-time", "1", "--prompt-lengths", "10"}, "synth: --turns fixed:2 makes sessions"},
	} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, tc.args...), out)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err = %v; want exit 2 and %q", tc.args, code, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
			os.Remove(out)
		}
	}
}

// A flag that conflicts with sessions is named as the flag it is, not as
// the field it sets, and --resample is refused before its trace is read.
func TestSynthSessionFlagConflictsNameFlags(t *testing.T) {
	dir := t.TempDir()
	src, out := filepath.Join(dir, "src.csv"), filepath.Join(dir, "s.csv")
	if _, err := run(t, "trace", "synth", "--requests", "5", src); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--turns", "fixed:2", "--think-time", "1", "--prompt-lengths", "10"}, "synth: --turns fixed:2 makes sessions, which grow each prompt from its history; --prompt-lengths sets whole prompts"},
		{[]string{"--turns", "uniform:1:3", "--think-time", "1", "--resample", src}, "synth: --turns uniform:1:3 makes sessions, which grow each prompt from its history; --resample sets whole prompts"},
		{[]string{"--turns", "fixed:1", "--think-time", "2"}, "synth: --think-time spaces the turns of sessions; --turns fixed:1 makes none (want more than one turn a session)"},
	} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, tc.args...), out)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err = %v; want exit 2 and %q", tc.args, code, err, tc.want)
		}
	}
}
