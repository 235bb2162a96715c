package main

import (
	"testing"
)

// endingTB records how a helper ended a test (skipped or failed) and stops
// it there, as testing.T would.
type endingTB struct {
	testing.TB
	how string
}

func (e *endingTB) Helper()               {}
func (e *endingTB) Skip(...any)           { e.end("skipped") }
func (e *endingTB) Skipf(string, ...any)  { e.end("skipped") }
func (e *endingTB) Fatal(...any)          { e.end("failed") }
func (e *endingTB) Fatalf(string, ...any) { e.end("failed") }
func (e *endingTB) end(how string)        { e.how = how; panic(e) }
func (e *endingTB) run(f func(t testing.TB)) {
	defer func() {
		if r := recover(); r != nil && r != any(e) {
			panic(r)
		}
	}()
	f(e)
}

// The live tests skip on a host without an engine, but CI (CI=true)
// installs and starts one before running them: there a missing engine is
// a broken run and fails, rather than leaving every live test skipped and
// the run green.
func TestLiveTestsFailUnderCIWithoutAnEngine(t *testing.T) {
	t.Setenv("SERVESIM_ENGINE_URL", "")
	t.Setenv("SERVESIM_ENGINE_MODEL", "")
	for ci, want := range map[string]string{"": "skipped", "true": "failed"} {
		t.Setenv("CI", ci)
		e := &endingTB{TB: t}
		e.run(func(t testing.TB) { engine(t) })
		if e.how != want {
			t.Errorf("CI=%q, no engine: the live test %s, want %s", ci, e.how, want)
		}
	}
}
