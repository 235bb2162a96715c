package calibrate

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

const msNS = int64(1e6)

// An admission run as the engine serves it: the carrier's steps end every
// 10 ms; a probe sent at 205 ms joined the step that started at 250 ms
// (first token at 260), so it was not there at 240: its delay is between
// 35 and 45 ms. A probe sent before the carrier decoded, and one admitted
// only after the carrier ended (no free slot), say nothing.
func TestAdmissionDelays(t *testing.T) {
	row := func(id string, send int64, tokens ...int64) *traces.Request {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.ActualSend, r.TokenTimes = id, send*msNS, tokens
		for i := range tokens {
			r.TokenTimes[i] *= msNS
		}
		r.FirstToken, r.LastToken, r.HTTPStatus = r.TokenTimes[0], r.TokenTimes[len(tokens)-1], 200
		return r
	}
	var carrier []int64
	for t := int64(100); t <= 1000; t += 10 {
		carrier = append(carrier, t)
	}
	rows := []*traces.Request{
		row("admission-r1/0", 0, carrier...),
		row("admission-r1/1", 0, 110, 120),   // sent with the carrier
		row("admission-r1/2", 205, 260, 270), // 35–45 ms
		row("admission-r1/3", 403, 430, 440), // joined the step 420→430: 7–17 ms
		row("admission-r1/4", 990, 1040),     // after the carrier's end
	}
	got := admissionDelays(rows, msNS/2)
	want := []float64{0.040, 0.012}
	if len(got) != len(want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("delay %d = %v s, want %v", i, got[i], want[i])
		}
	}
	a := summarizeAdmission([]float64{0.01, 0.03, 0.02, 0.05, 0.04})
	if a == nil || a.Delay != 0.03 || a.P10 != 0.01 || a.P90 != 0.05 || a.N != 5 {
		t.Errorf("summary %+v", a)
	}
	if summarizeAdmission(nil) != nil || admissionDelays(rows[1:], msNS/2) != nil {
		t.Error("no probes or no carrier: want nothing measured")
	}
}
