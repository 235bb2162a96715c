package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
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
			flag, _, ok := strings.Cut(strings.TrimPrefix(line, "synth: "), ":")
			if !ok || !strings.HasPrefix(line, "synth: --") {
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
