package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// Values that cannot work are refused naming their field: a time scale
// past which no row after the trace's first second can be scheduled.
// Values a run can use pass.
func TestValidateRefusesUnworkableValues(t *testing.T) {
	base := DefaultConfig()
	base.BaseURL, base.Model = "http://h/v1", "m"
	for _, tc := range []struct {
		name      string
		set       func(*Config)
		field, in string
	}{
		{"time scale 1e300", func(c *Config) { c.TimeScale = 1e300 }, "TimeScale", "1e+300"},
		{"time scale 1e10", func(c *Config) { c.TimeScale = 1e10 }, "TimeScale", "1e+10"},
	} {
		c := base
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "Config."+tc.field+":") || !strings.Contains(err.Error(), tc.in) {
			t.Errorf("%s: error %v, want one naming %s and %s", tc.name, err, tc.field, tc.in)
		}
	}
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"time scale 1000", func(c *Config) { c.TimeScale = 1000 }},
		{"time scale 1e-6", func(c *Config) { c.TimeScale = 1e-6 }},
	} {
		c := base
		tc.set(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// A row whose arrival × time scale is past the latest time a trace holds
// stops the run with an error naming the time scale: the product wrapped
// past int64, and the pacer slept for ever, deaf to an interrupt.
func TestTimeScaleOverflowStopsTheRun(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.TimeScale = 1e9 // 10 s of trace → 1e19 ns, past int64
	w := &memWriter{}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), cfg, &sliceReader{rows: rows(2, 10*time.Second, 8, 1)}, w)
		errc <- err
	}()
	var err error
	select {
	case err = <-errc:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not end in 20 s")
	}
	if err == nil || !strings.Contains(err.Error(), "time scale") || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("error %v, want one naming row 2 and the time scale", err)
	}
	for _, r := range w.rows {
		if r.ScheduledSend < 0 {
			t.Errorf("%s scheduled at %d ns, before the start", r.ID, r.ScheduledSend)
		}
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("%d requests sent, want the first row's only", n)
	}
}
