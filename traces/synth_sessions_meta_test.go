package traces

import "testing"

// With sessions the rate opens sessions: the metadata's arrival says so,
// where without them it stays the bare request rate.
func TestSynthSessionsMetaArrivalUnit(t *testing.T) {
	m, _ := synthAll(t, sessionConfig())
	if got, want := m.Extra["arrival"], "poisson(rate=2 sessions/s)"; got != want {
		t.Errorf("sessions: meta arrival %q, want %q", got, want)
	}
	c := DefaultSynthConfig()
	c.Requests = 3
	c.Arrival = ArrivalSpec{Kind: ArrivalGamma, Rate: 2, CV: 3}
	m, _ = synthAll(t, c)
	if got, want := m.Extra["arrival"], "gamma(rate=2,cv=3)"; got != want {
		t.Errorf("no sessions: meta arrival %q, want %q", got, want)
	}
}
