package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/traces"
)

// doneAfterChecks is a context that is done from its checks+1th Err on:
// an interrupt that comes while rows are being read.
type doneAfterChecks struct {
	context.Context
	checks int
}

func (c *doneAfterChecks) Err() error {
	if c.checks == 0 {
		return context.Canceled
	}
	c.checks--
	return nil
}

// writeLongTrace writes n served requests to path.
func writeLongTrace(t *testing.T, path string, n int) {
	t.Helper()
	rows := make([]*traces.Request, n)
	for i := range rows {
		r := &traces.Request{}
		r.Reset()
		at := int64(i) * 1e7
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), at, 100, 50
		r.ScheduledSend, r.ActualSend = at, at
		r.FirstToken, r.LastToken, r.HTTPStatus = at+2e8, at+1e9, 200
		rows[i] = r
	}
	if err := traces.WriteAll(path, traces.Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
}

// An interrupt before or while a trace is read stops the load with the
// context's error, whether the trace is given itself or beside a
// summary.json, rather than after every row is read.
func TestLoadStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "run.parquet")
	writeLongTrace(t, trace, 5000)
	sumDir := filepath.Join(dir, "sim")
	if err := os.Mkdir(sumDir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sumDir, "summary.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	writeLongTrace(t, filepath.Join(sumDir, "p.parquet"), 5000)

	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		path string
	}{
		{"trace, before", canceled, trace},
		{"trace, while reading", &doneAfterChecks{Context: t.Context(), checks: 1}, trace},
		{"summary's trace, before", canceled, sumDir},
	} {
		if _, err := Load(c.ctx, traces.SLO{}, c.path); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", c.name, err)
		}
	}
}

// A trace read in full is kept though the context is done just after:
// only a read the interrupt stopped ends the load.
func TestLoadKeepsTraceReadBeforeInterrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.parquet")
	writeLongTrace(t, path, 10) // one context check while read
	ctx := &doneAfterChecks{Context: t.Context(), checks: 1}
	in, err := Load(ctx, traces.SLO{}, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Runs) != 1 {
		t.Errorf("%d runs, want the trace's", len(in.Runs))
	}
}
