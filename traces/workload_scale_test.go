package traces

import (
	"maps"
	"strconv"
	"testing"
)

// A product of time scales is the workload's within float rounding: a
// trace scaled by 0.1 then 3 and replayed at 1/0.3 runs its arrivals as
// recorded, and 0.7 then 3 is a scale of 2.1.
func TestWorkloadScaleWithinRounding(t *testing.T) {
	inv := strconv.FormatFloat(1/0.3, 'g', -1, 64)
	cases := []struct{ a, b map[string]string }{
		{map[string]string{"time_scale": "0.1*3", "replay.time_scale": inv}, nil},
		{map[string]string{"time_scale": "49", "replay.time_scale": strconv.FormatFloat(1/49.0, 'g', -1, 64)}, nil},
		{map[string]string{"time_scale": "0.7*3"}, map[string]string{"time_scale": "2.1"}},
	}
	for _, c := range cases {
		a, b := Workload(Meta{Extra: c.a}), Workload(Meta{Extra: c.b})
		if !maps.Equal(a, b) {
			t.Errorf("Workload(%v) = %v, Workload(%v) = %v: want equal", c.a, a, c.b, b)
		}
	}
}

// A trace synthesized with lengths resampled from a file names that file
// by checksum, but its arrivals, warm-up and prefixes are its own: two at
// other rates are other workloads of that file.
func TestWorkloadOfResampledSynth(t *testing.T) {
	q := &Request{}
	q.Reset()
	q.PromptTokens, q.OutputTokens = 10, 1
	src := &sliceReader{meta: Meta{Source: "azure:in.csv", Checksums: map[string]string{"in.csv": "sha256:ab12"}}, rows: []*Request{q}}
	e, err := NewEmpirical(src)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(rate float64, warmup int) Meta {
		c := DefaultSynthConfig()
		c.Requests, c.Resample, c.Warmup = 2, e, warmup
		c.Arrival.Rate = rate
		m, _ := synthAll(t, c)
		return m
	}
	for _, b := range []Meta{meta(8, 0), meta(2, 1)} {
		a := meta(2, 0)
		if wa, wb := Workload(a), Workload(b); maps.Equal(wa, wb) {
			t.Errorf("synth %v and %v: both Workload %v, want them told apart", a.Extra, b.Extra, wa)
		}
	}
}
