package telemetry

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// SGLang and TGI write their labelled gauges only once a request has run:
// a fresh engine's first pages carry none. The scraper says that none are
// there yet, not that the engine has none, and says nothing once a page
// has carried them.
func TestNoGaugesYetIsSaidOnlyBeforeAnyCame(t *testing.T) {
	sglang, err := os.ReadFile("testdata/sglang.prom")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		first, later string
		want         string // in the log; "" for no word on gauges
	}{
		"fresh engine": {"", string(sglang), "no known engine gauges yet"},
		"gauges gone":  {string(sglang), "", ""},
	} {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) == 1 {
				w.Write([]byte(tc.first))
				return
			}
			w.Write([]byte(tc.later))
		}))
		var logs bytes.Buffer
		s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: 5 * time.Millisecond, Logger: testLogger(&logs)})
		if err != nil {
			t.Fatal(err)
		}
		for hits.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		sum := s.Stop()
		srv.Close()
		if sum.Engine != "sglang" {
			t.Errorf("%s: engine %q, want sglang", name, sum.Engine)
		}
		said := strings.Contains(logs.String(), "engine gauges")
		if tc.want == "" && said || tc.want != "" && !strings.Contains(logs.String(), tc.want) {
			t.Errorf("%s: log %q, want %q", name, logs.String(), tc.want)
		}
	}
}
