package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A big sweep spends minutes building its configs before the first
// simulation: the verb says on stderr, before it starts and whether or
// not stderr is a terminal, how many it builds.
func TestSimulateSweepSaysHowManyConfigsFirst(t *testing.T) {
	tr := shortTrace(t)
	app := newApp()
	var stdout, stderr bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &stderr
	if err := app.RunContext(context.Background(), []string{"servesim", "simulate", "--trace", tr, "--sweep", smallSweep, "--workers", "2", "-q"}); err != nil {
		t.Fatal(err)
	}
	const want = "sweep: building 12 configs of " + smallSweep + " to simulate\n"
	if !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr does not start with %q:\n%s", want, stderr.String())
	}
	if strings.Contains(stdout.String(), "building") {
		t.Errorf("stdout holds the start line:\n%s", stdout.String())
	}
}
