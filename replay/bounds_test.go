package replay

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// Values that cannot work are refused naming their field: a time scale
// past which no row after the trace's first second can be scheduled, and
// a text model whose prompts would be absurdly many bytes per token (each
// prompt is allocated whole), and a repeat count whose per-run output
// checks alone would outlast any session. Values a run can use pass.
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
		{"tokens per byte 1e9", func(c *Config) { c.Text = TextModel{TokensPerByte: 1e9} }, "Text", "TokensPerByte"},
		{"tokens per byte 1e-9", func(c *Config) { c.Text = TextModel{TokensPerByte: 1e-9} }, "Text", "TokensPerByte"},
		{"overhead -1e12", func(c *Config) { c.Text = TextModel{TokensPerByte: 1, Overhead: -1e12} }, "Text", "Overhead"},
		{"overhead 1e12", func(c *Config) { c.Text = TextModel{TokensPerByte: 1, Overhead: 1e12} }, "Text", "Overhead"},
		{"repeat 1e9", func(c *Config) { c.Repeat = 1_000_000_000 }, "Repeat", "1000000000"},
		// Its output trace would carry a block_size no reader accepts.
		{"block size 2^40", func(c *Config) { c.BlockSize = 1 << 40 }, "BlockSize", "1099511627776"},
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
		{"tokens per byte 0.05", func(c *Config) { c.Text = TextModel{TokensPerByte: 0.05, Overhead: -3} }},
		{"open-loop cap 1<<40", func(c *Config) { c.Concurrency = 1 << 40 }},
		{"100,000 closed-loop clients", func(c *Config) { c.Arrival, c.Concurrency = Closed, 100_000 }},
		{"repeat 1000", func(c *Config) { c.Repeat = 1000 }},
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

// A calibrated text model is held to the bounds a given one is: a server
// whose prompt tokens barely grow with the text gave a model of about
// 1,000 bytes a token, and every prompt was built that long.
func TestCalibrateRefusesAnUnusableFit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
			10+len(body)/1000)
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL, cfg.Endpoint, cfg.Text = srv.URL+"/v1", Completions, TextModel{}
	tm, err := Calibrate(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "TokensPerByte must be in [0.01, 100)") {
		t.Errorf("calibrated %+v, error %v: want the fit refused naming the bound", tm, err)
	}
}

// A closed loop of more clients than rows starts only the clients it has
// rows for: a loop of 2^40 clients spun starting goroutines for ever.
// An open-loop cap that high is no cap, and works.
func TestConcurrencyBeyondTheRows(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	for _, arrival := range []Arrival{Closed, Open} {
		cfg := testConfig(srv)
		cfg.Arrival, cfg.Concurrency = arrival, 1<<40
		done := make(chan *Summary, 1)
		go func() {
			s, err := Run(t.Context(), cfg, &sliceReader{rows: rows(3, 0, 8, 1)}, &memWriter{})
			if err != nil {
				t.Errorf("%s loop: %v", arrival, err)
			}
			done <- s
		}()
		select {
		case s := <-done:
			if s == nil || s.Succeeded != 3 {
				t.Errorf("%s loop of 2^40: %+v, want 3 successes", arrival, s)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s loop of 2^40 clients: 3 rows not done in 20 s", arrival)
		}
	}
}
