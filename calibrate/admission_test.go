package calibrate

import (
	"math"
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
)

const msNS = int64(1e6)

func probeRow(id string, send int64, tokens ...int64) *traces.Request {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.ActualSend, r.TokenTimes = id, send*msNS, tokens
	for i := range tokens {
		r.TokenTimes[i] *= msNS
	}
	r.FirstToken, r.LastToken, r.HTTPStatus = r.TokenTimes[0], r.TokenTimes[len(tokens)-1], 200
	return r
}

// every returns the token times from t0 to t1 every dt (ms).
func every(t0, t1, dt int64) []int64 {
	var ts []int64
	for t := t0; t <= t1; t += dt {
		ts = append(ts, t)
	}
	return ts
}

// An admission run as the engine serves it: the carrier's steps end every
// 10 ms; a probe sent at 205 ms joined the step that started at 250 ms
// (first token at 260), so it was not there at 240: its delay is between
// 35 and 45 ms, or, had it been passed over once at a step loop's lock,
// between 25 and 35 ms to reach the loop. A probe sent before the carrier
// decoded, and one admitted only after the carrier ended (no free slot),
// say nothing.
func TestAdmissionDelays(t *testing.T) {
	rows := []*traces.Request{
		probeRow("admission-r1/0", 0, every(100, 1000, 10)...),
		probeRow("admission-r1/1", 0, 110, 120),   // sent with the carrier
		probeRow("admission-r1/2", 205, 260, 270), // 35–45 ms; 25–35 ms
		probeRow("admission-r1/3", 403, 430, 440), // joined the step 420→430: 7–17 ms; 0–7 ms
		probeRow("admission-r1/4", 990, 1040),     // after the carrier's end
	}
	next, lock := admissionDelays(rows, msNS/2)
	for _, c := range []struct {
		name      string
		got, want []float64
	}{{"next step", next, []float64{0.040, 0.012}}, {"lock", lock, []float64{0.030, 0.0035}}} {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s: delays %v, want %v", c.name, c.got, c.want)
		}
		for i := range c.want {
			if math.Abs(c.got[i]-c.want[i]) > 1e-9 {
				t.Errorf("%s: delay %d = %v s, want %v", c.name, i, c.got[i], c.want[i])
			}
		}
	}
	a := summarizeAdmission([]float64{0.01, 0.03, 0.02, 0.05, 0.04}, []float64{0, 0.02, 0.01, 0.04, 0.03}, nil)
	if a == nil || a.Delay != 0.03 || a.P10 != 0.01 || a.P90 != 0.05 || a.N != 5 || a.Lock || a.NSlot != 0 {
		t.Errorf("summary %+v", a)
	}
	if next, _ := admissionDelays(rows[1:], msNS/2); summarizeAdmission(nil, nil, []float64{3, 3, 3}) != nil || next != nil {
		t.Error("no probes or no carrier: want nothing measured")
	}
}

// Two slots: A decodes throughout (a step every 10 ms), B finishes at 200
// ms, and C, sent while both ran, takes B's slot. On Ollama's runner C
// makes its first token three steps after B's last (the slot frees as the
// step after B's last token forms, and C is passed over once at the lock);
// where the scheduler holds waiting requests, in the next step.
func TestSlotSteps(t *testing.T) {
	for _, tc := range []struct {
		first int64
		want  float64
	}{{230, 3}, {210, 1}} {
		rows := []*traces.Request{
			probeRow("memory/0", 95, every(100, 500, 10)...),
			probeRow("memory/1", 98, every(100, 200, 10)...),
			probeRow("memory/2", 110, every(tc.first, tc.first+50, 10)...),
			probeRow("memory/3", 600, 610, 620), // alone: waited for nothing
		}
		got := slotSteps(rows, msNS/2, 2)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("first token at %d ms: slot steps %v, want [%v]", tc.first, got, tc.want)
		}
	}
	// Two slots freed (at 200 and 220 ms) before the first of two waiting
	// requests started: each took the earlier free slot, three steps on.
	rows := []*traces.Request{
		probeRow("memory/0", 95, every(100, 200, 10)...),
		probeRow("memory/1", 96, every(100, 220, 10)...),
		probeRow("memory/2", 110, every(230, 260, 10)...),
		probeRow("memory/3", 111, every(250, 300, 10)...),
	}
	if got := slotSteps(rows, msNS/2, 2); !slices.Equal(got, []float64{3, 3}) {
		t.Errorf("two slots freed before the waiters started: slot steps %v, want [3 3]", got)
	}
	// Each client sends again as its request ends, the first a longer
	// prompt: the second's request starts first, and the first's gets the
	// slot freed after it was sent. A slot was free: no wait.
	rows = []*traces.Request{
		probeRow("mixed/0", 95, every(100, 200, 10)...),
		probeRow("mixed/1", 96, every(100, 220, 10)...),
		probeRow("mixed/2", 201, every(260, 280, 10)...),
		probeRow("mixed/3", 221, every(230, 250, 10)...),
	}
	if got := slotSteps(rows, msNS/2, 2); len(got) != 0 {
		t.Errorf("closed loop with a slot free at every send: slot steps %v, want none", got)
	}
	a := summarizeAdmission([]float64{0.012, 0.014}, []float64{0.004, 0.006}, []float64{3, 2, 3, 4})
	if a == nil || !a.Lock || a.SlotSteps != 3 || a.NSlot != 4 || math.Abs(a.Latency-0.005) > 1e-12 {
		t.Errorf("Ollama-like slot waits: %+v, want the lock model with 5 ms to reach the loop", a)
	}
	if a := summarizeAdmission([]float64{0.012}, []float64{0.004}, []float64{1, 1, 2, 1}); a == nil || a.Lock || a.Latency != 0 {
		t.Errorf("next-step slot waits: %+v, want no lock", a)
	}
}

// Token times spread over a chunk that carried several tokens (replay
// records them evenly across the gap since the chunk before) are not when
// steps ended: the admission measure reads no boundary from them.
func TestAdmissionIgnoresSpreadTokenTimes(t *testing.T) {
	// The carrier's chunks each carried two tokens: every other time of
	// its is made up.
	rows := []*traces.Request{
		probeRow("admission-r1/0", 0, every(100, 1000, 10)...),
		probeRow("admission-r1/2", 205, 260, 270),
	}
	rows[0].Chunks = int32(len(rows[0].TokenTimes)+1) / 2
	if next, lock := admissionDelays(rows, msNS/2); next != nil || lock != nil {
		t.Errorf("carrier with spread token times: delays %v, %v; want none measured", next, lock)
	}

	// Steps alternate 4 and 16 ms: 100, 104, 120, 124, ... B ends at
	// 200 and C, sent while A and B ran, makes its first token three steps
	// on, at 224 (after 204 and 220). A's tokens came two to a chunk, at
	// 120, 140, ..., recorded at 110, 120, 130, ...: 210 is no step.
	var steps []int64
	for t := int64(100); t <= 400; t += 20 {
		steps = append(steps, t, t+4)
	}
	var b, c []int64
	for _, s := range steps {
		if s <= 200 {
			b = append(b, s)
		}
		if s >= 224 && len(c) < 4 {
			c = append(c, s)
		}
	}
	rows = []*traces.Request{
		probeRow("memory/0", 95, every(100, 400, 10)...),
		probeRow("memory/1", 98, b...),
		probeRow("memory/2", 110, c...),
	}
	rows[0].Chunks = 1 + 15 // the first token alone, then two a chunk
	if got := slotSteps(rows, msNS/2, 2); len(got) != 0 {
		t.Errorf("a wait beside a request with spread token times: slot steps %v, want none counted", got)
	}
	// One token a chunk: its times are the steps'.
	rows[0].TokenTimes = nil
	for _, s := range steps {
		rows[0].TokenTimes = append(rows[0].TokenTimes, s*msNS)
	}
	rows[0].Chunks = int32(len(steps))
	if got := slotSteps(rows, msNS/2, 2); !slices.Equal(got, []float64{3}) {
		t.Errorf("every time a step's end: slot steps %v, want [3]", got)
	}
}

// Delay and Latency are medians alike: with an even number of probes, each
// the mean of the middle two, so that the lock model's latency is Delay's
// less the step the probes were passed over for.
func TestAdmissionMediansOfEvenCount(t *testing.T) {
	next := []float64{0.010, 0.020, 0.030, 0.040}
	lock := []float64{0.000, 0.010, 0.020, 0.030} // each one 10 ms step less
	a := summarizeAdmission(next, lock, []float64{3, 3, 3})
	if a == nil || !a.Lock {
		t.Fatalf("summary %+v, want the lock model", a)
	}
	if math.Abs(a.Delay-0.025) > 1e-12 || math.Abs(a.Latency-0.015) > 1e-12 {
		t.Errorf("delay %g s, latency %g s; want the medians 0.025 and 0.015, a step apart", a.Delay, a.Latency)
	}
}
