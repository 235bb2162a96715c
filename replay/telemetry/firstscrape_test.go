package telemetry

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// A hung /metrics holds the run back for PreRunWait at most, not for
// the client's timeout of a long interval; the scrape counts as failed.
func TestFirstScrapeWaitsAFewSecondsAtMost(t *testing.T) {
	srv := hungMetricsServer(t)
	var logs bytes.Buffer
	type started struct {
		s   *Scraper
		err error
	}
	done := make(chan started, 1)
	begin := time.Now()
	go func() {
		s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: time.Minute, Logger: testLogger(&logs)})
		done <- started{s, err}
	}()
	select {
	case got := <-done:
		if got.err != nil {
			t.Fatal(got.err)
		}
		if waited := time.Since(begin); waited > PreRunWait+2*time.Second {
			t.Errorf("started after %v, want at most about %v", waited, PreRunWait)
		}
		sum := got.s.Stop()
		if sum.Failed != 1 || sum.Scrapes != 0 {
			t.Errorf("summary %+v: want 1 failed scrape", sum)
		}
		if !strings.Contains(logs.String(), "failed") {
			t.Errorf("the failed scrape was not logged: %s", logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("StartScrapeWith still waiting on a hung /metrics after 15 s")
	}
}
