package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
)

// An engine that takes exactly twice the model's time for every step is
// reported at 2.00 for every kind, the context of prompts and decoding
// sequences counted; a call split over two ubatches is one step, and
// waiting, the last step and cut lines are left out.
func TestStepKinds(t *testing.T) {
	p, err := calibrate.LoadProfile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Step.Ca.Value == 0 || p.Step.Ck.Value == 0 {
		t.Fatal("the profile must charge context for this test to check it")
	}
	var log strings.Builder
	now := int64(1_000_000)
	// line logs one ubatch over cells with segments [from, to] of
	// sequences 0, 1, ... and returns the model's seconds for it.
	line := func(cells int, segs ...[2]int) float64 {
		var b strings.Builder
		o := calibrate.Observation{Resident: float64(cells)}
		for i, s := range segs {
			fmt.Fprintf(&b, " %d:%d-%d", i, s[0], s[1])
			if n := float64(s[1] - s[0] + 1); n > 1 {
				o.PrefillTokens += n
				o.PrefillAttn += n * float64(s[1]+1)
			} else {
				o.DecodeSeqs++
				o.DecodeContext += float64(s[1] + 1)
			}
		}
		tokens := int(o.PrefillTokens + o.DecodeSeqs)
		fmt.Fprintf(&log, "SSKV t=%d n=%d used=%d head=0 ntok=%d seqs%s\n", now, cells, cells, tokens, b.String())
		o.PrefillResident, o.DecodeResident = o.PrefillTokens*o.Resident, o.DecodeSeqs*o.Resident
		return p.Step.StepSeconds(o)
	}
	advance := func(seconds float64) { now += int64(math.Round(2 * seconds * 1e6)) }

	advance(line(288, [2]int{0, 199}))                  // a prompt alone
	advance(line(288, [2]int{200, 200}, [2]int{0, 99})) // a prompt beside one decoding
	m := line(1056, [2]int{0, 511})                     // a 600-token prompt: two ubatches, one step
	now += 1000
	advance(m + line(1056, [2]int{512, 599}) - 0.0005)
	var decode float64
	for range 3 { // two sequences decoding
		decode = line(1056, [2]int{600, 600}, [2]int{300, 300})
		advance(decode)
	}
	fmt.Fprintf(&log, "SSKV t=%d n=1056 used=1056 head=0 ntok=2 seqs 0:601-601 [GIN] 200 | POST\n", now) // cut
	advance(decode)
	line(1056, [2]int{601, 601}) // then waiting
	now += 5e6
	line(1056, [2]int{602, 602}) // the last: no next step to time it by

	path := filepath.Join(t.TempDir(), "engine.log")
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds, err := stepKinds(p.Step, path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"prompt alone": 2, "prompt + 1 decoding": 1, "decode, 2 seqs": 3}
	if len(kinds) != len(want) {
		t.Errorf("kinds %v, want %v", keys(kinds), want)
	}
	for name, n := range want {
		k := kinds[name]
		if k == nil || len(k.engine) != n {
			t.Errorf("%s: %v, want %d steps", name, k, n)
			continue
		}
		for i := range k.engine {
			if r := k.engine[i] / k.model[i]; math.Abs(r-2) > 0.01 {
				t.Errorf("%s step %d: engine ÷ model %.3f, want 2", name, i, r)
			}
		}
	}
}

func keys(m map[string]*stepTimes) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
