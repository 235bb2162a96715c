package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// goFieldName matches a traces.SynthConfig field as Go spells it, which a
// user of the command never typed.
var goFieldName = regexp.MustCompile(`SynthConfig|Arrival\.|PromptLengths|Requests|Repeats|Warmup|Resample|PrefixGroups|PrefixTokens|BlockSize|Turns|ThinkTime|\bPrompt\b|\bOutput\b`)

// Every error SynthConfig.Validate gives the command names the flag that
// set the field, each invalid flag once, and no Go field.
func TestSynthValidateErrorsNameFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	for _, tc := range []struct {
		args  []string
		flags []string
	}{
		{[]string{"--requests", "0"}, []string{"--requests"}},
		{[]string{"--warmup", "-1"}, []string{"--warmup"}},
		{[]string{"--arrival", "bursty"}, []string{"--arrival"}},
		{[]string{"--rate", "0"}, []string{"--rate"}},
		{[]string{"--rate", "2e6"}, []string{"--rate"}},
		{[]string{"--rate-curve", "5:1"}, []string{"--rate-curve"}},
		{[]string{"--arrival", "gamma", "--cv", "0"}, []string{"--cv"}},
		{[]string{"--arrival", "gamma", "--cv", "0", "--rate", "0"}, []string{"--rate", "--cv"}},
		{[]string{"--arrival", "gamma", "--cv", "200", "--rate-curve", "0:1,60:-2"}, []string{"--rate-curve", "--cv"}},
		{[]string{"--block-size", "-1"}, []string{"--block-size"}},
		{[]string{"--prefix-groups", "2", "--prefix-tokens", "8", "--block-size", "16"}, []string{"--prefix-tokens"}},
		{[]string{"--turns", "fixed:3", "--think-time", "1e-9"}, []string{"--think-time"}},
		{[]string{"--turns", "fixed:1000", "--think-time", "1", "--rate", "1e4"}, []string{"--rate"}},
		{[]string{"--turns", "fixed:3", "--think-time", "1e-9", "--requests", "0", "--block-size", "-1"}, []string{"--requests", "--think-time", "--block-size"}},
	} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, tc.args...), out)...)
		if code != 2 || err == nil {
			t.Errorf("%v: exit %d, err = %v; want exit 2", tc.args, code, err)
			continue
		}
		var got []string
		for _, line := range strings.Split(err.Error(), "\n") {
			flag, _, ok := strings.Cut(strings.TrimPrefix(line, "trace synth: "), ":")
			if !ok || !strings.HasPrefix(line, "trace synth: --") {
				t.Errorf("%v: line %q does not name a flag", tc.args, line)
				continue
			}
			got = append(got, flag)
		}
		if !slices.Equal(got, tc.flags) {
			t.Errorf("%v: errors name %v, want %v:\n%v", tc.args, got, tc.flags, err)
		}
		if m := goFieldName.FindString(err.Error()); m != "" {
			t.Errorf("%v: error names Go field %q:\n%v", tc.args, m, err)
		}
	}
}

// A rule between fields names each by its flag, the other field too, for
// the conflicts the command also refuses before it builds the config.
func TestSynthFlagErrorsNameTheOtherFlag(t *testing.T) {
	src, err := traces.Synthesize(traces.DefaultSynthConfig())
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := traces.NewEmpirical(src)
	if err != nil {
		t.Fatal(err)
	}
	sessions := traces.LengthSpec{Kind: traces.LengthFixed, Value: 3}
	for _, tc := range []struct {
		name string
		mod  func(*traces.SynthConfig)
		want []string
	}{
		{"rate and curve", func(c *traces.SynthConfig) { c.Arrival.Curve = []traces.RatePoint{{Rate: 1}} },
			[]string{"synth: --rate: the rate curve sets the rate: want 0 with --rate-curve, got 1"}},
		{"resample and matrix", func(c *traces.SynthConfig) { c.Resample, c.PromptLengths = pairs, []int32{8} },
			[]string{"synth: --resample: draws the prompt lengths too: it conflicts with --prompt-lengths"}},
		{"sessions and matrix", func(c *traces.SynthConfig) { c.Turns, c.ThinkTime, c.PromptLengths = sessions, 1, []int32{8} },
			[]string{"synth: --turns: sessions grow each prompt from its history: they conflict with --prompt-lengths"}},
		{"sessions and resample", func(c *traces.SynthConfig) { c.Turns, c.ThinkTime, c.Resample = sessions, 1, pairs },
			[]string{"synth: --turns: sessions draw each turn's new message from --prompt: they conflict with --resample, which draws whole prompts"}},
		{"think time alone", func(c *traces.SynthConfig) { c.ThinkTime = 1 },
			[]string{"synth: --think-time: spaces the turns of sessions, which need --turns of more than one turn; want 0 without them, got 1"}},
	} {
		c := traces.DefaultSynthConfig()
		tc.mod(&c)
		err := flagErrors("synth", synthFlags, c.Validate())
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error\n%v\nwant %q", tc.name, err, w)
			}
		}
		if m := goFieldName.FindString(err.Error()); m != "" {
			t.Errorf("%s: error names Go field %q:\n%v", tc.name, m, err)
		}
	}
}

// An error about --turns echoes its spec as the flag takes it.
func TestSynthTurnsErrorsEchoTheSpec(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--turns", "fixed:0", "--think-time", "1"}, "synth: --turns: a session has at least 1 turn, got fixed:0"},
		{[]string{"--turns", "uniform:0:4", "--think-time", "1"}, "synth: --turns: a session has at least 1 turn, got uniform:0:4"},
		{[]string{"--turns", "fixed:1000", "--think-time", "1", "--rate", "1e4"}, "synth: --rate: 10000 sessions/s of fixed:1000 turns (1000 on average)"},
		{[]string{"--turns", "lognormal:500:1:2:1000", "--think-time", "1", "--rate", "1e4"}, "of lognormal:500:1:2:1000 turns (436.6 on average)"},
	} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, tc.args...), out)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err = %v; want exit 2 and %q", tc.args, code, err, tc.want)
		}
	}
}
