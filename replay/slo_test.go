package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// done is a success sent at 0 whose first token came at ttft and whose n
// tokens ended at e2e (ms).
func done(ttft, e2e int64, n int32) *traces.Request {
	r := &traces.Request{}
	r.Reset()
	r.ScheduledSend, r.ActualSend, r.HTTPStatus, r.OutputTokens, r.UsageOutput = 0, 0, 200, n, n
	r.FirstToken, r.LastToken = ttft*1e6, e2e*1e6
	return r
}

// Goodput counts the successes within the SLO over the run's wall time.
func TestSummaryGoodput(t *testing.T) {
	c := newCollector(traces.SLO{TTFT: 100 * time.Millisecond})
	for _, r := range []*traces.Request{done(50, 1000, 11), done(150, 2000, 21), done(80, 500, 5)} {
		c.add(r)
	}
	s := c.summary()
	if s.MetSLO != 2 || s.Wall != 2*time.Second || s.GoodputPerSec != 1 || s.GoodputTokens != 8 {
		t.Errorf("met %d over %v: goodput %v req/s, %v tok/s; want 2 over 2s, 1 req/s, 8 tok/s", s.MetSLO, s.Wall, s.GoodputPerSec, s.GoodputTokens)
	}
	var b strings.Builder
	s.Print(&b)
	if !strings.Contains(b.String(), "goodput:    1.00 req/s, 8.0 output tok/s: 2 of 3 requests within ttft=100ms") {
		t.Errorf("summary:\n%s", b.String())
	}
	none := newCollector(traces.SLO{})
	none.add(done(50, 1000, 11))
	b.Reset()
	none.summary().Print(&b)
	if strings.Contains(b.String(), "goodput") {
		t.Errorf("goodput printed without an SLO:\n%s", b.String())
	}
}

// A run that sent nothing (interrupted before its first send, or all
// warm-up) measured no schedule lag: the summary says n/a, not a p99 of 0
// that is within the limit.
func TestPrintUnmeasuredLag(t *testing.T) {
	var b strings.Builder
	(&Summary{Run: 1, Warmup: 2, NotSent: 3, FailedByKind: map[string]int{}}).Print(&b)
	if !strings.Contains(b.String(), "schedule lag n/a") || strings.Contains(b.String(), "lag p99") {
		t.Errorf("nothing sent, summary:\n%s\nwant schedule lag n/a", b.String())
	}
	b.Reset()
	(&Summary{Run: 1, Sent: 1, Lag: Latency{N: 1, P99: 2 * time.Millisecond, Max: 2 * time.Millisecond}, LagFlagged: true}).Print(&b)
	if !strings.Contains(b.String(), "schedule lag p99 2ms, max 2ms (FLAGGED") {
		t.Errorf("one send 2 ms late, summary:\n%s", b.String())
	}
}

// A run in which nothing succeeded has no measurement window: its rates
// are not measured, not 0 req/s over 0s.
func TestPrintRatesWithoutAWindow(t *testing.T) {
	var b strings.Builder
	(&Summary{Run: 1, Sent: 3, Failed: 3, FailedByKind: map[string]int{"server_error": 3}}).Print(&b)
	if !strings.Contains(b.String(), "throughput: — (no request succeeded)") || strings.Contains(b.String(), "0.00 req/s") {
		t.Errorf("summary:\n%s", b.String())
	}
}

// Goodput is a rate too: with an SLO, a run in which nothing succeeded
// says how many requests met it, but no req/s over a window it never had.
func TestPrintGoodputWithoutAWindow(t *testing.T) {
	c := newCollector(traces.SLO{TTFT: time.Second})
	failed := done(50, 1000, 11)
	failed.Error, failed.HTTPStatus = "server_error: HTTP 500", 500
	c.add(failed)
	var b strings.Builder
	c.summary().Print(&b)
	if !strings.Contains(b.String(), "goodput:    — (no request succeeded): 0 of 1 requests within ttft=1s") || strings.Contains(b.String(), "0.00 req/s") {
		t.Errorf("summary:\n%s", b.String())
	}
}
