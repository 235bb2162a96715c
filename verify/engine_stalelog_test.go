package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An engine log is this start's: an earlier verify's log of the same
// candidate in the same directory is replaced, not continued, so that
// neither the file verify.json names nor the tail a failed start quotes
// holds another run's engine output.
func TestEngineLogReplacesAnEarlierRunsLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "rank01.engine.log")
	if err := os.WriteFile(log, []byte("earlier run: engine ready on port 8000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := EngineSpec{Start: "echo boom; exit 7", HealthURL: "http://127.0.0.1:1/health"}
	_, err := StartEngine(context.Background(), spec, Knobs{}, log)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want the failed start quoting its log", err)
	}
	data, _ := os.ReadFile(log)
	if strings.Contains(err.Error(), "earlier run") || strings.Contains(string(data), "earlier run") {
		t.Errorf("the earlier run's log is kept:\nerr: %v\nlog: %s", err, data)
	}
}

// A start refused because something already answers the health URL
// leaves a log that says so, not an earlier run's under the name the
// results give.
func TestRefusedStartReplacesAnEarlierRunsLog(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	if err := os.WriteFile(filepath.Join(dir, "up"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "rank01.engine.log")
	if err := os.WriteFile(log, []byte("earlier run: engine ready on port 8000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := EngineSpec{Start: "sleep 300", HealthURL: fakeEngine(t, dir)}
	_, err := StartEngine(context.Background(), spec, Knobs{}, log)
	if err == nil || !strings.Contains(err.Error(), "already answers") {
		t.Fatalf("err = %v, want a refused start", err)
	}
	if data, _ := os.ReadFile(log); strings.Contains(string(data), "earlier run") || !strings.Contains(string(data), "already answers") {
		t.Errorf("log: %q: want this start's refusal only", data)
	}
}

// A template that fails only for this candidate's knobs (a label too
// short to cut) is a failed start like any other: the log the results
// name for it says why, not an earlier run's engine output.
func TestTemplateFailureReplacesAnEarlierRunsLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "rank01.engine.log")
	if err := os.WriteFile(log, []byte("earlier run: engine ready on port 8000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := EngineSpec{Start: "{{if .Label}}echo {{slice .Label 0 40}}{{end}}", HealthURL: "http://127.0.0.1:1/health"}
	if _, err := ParseTemplate("engine-cmd", spec.Start); err != nil {
		t.Fatalf("the template is refused before any candidate runs: %v", err)
	}
	_, err := StartEngine(context.Background(), spec, Knobs{Label: "seqs=4"}, log)
	var ee *EngineError
	if !errors.As(err, &ee) || ee.Status != StatusStartFailed {
		t.Fatalf("err = %v, want a failed start", err)
	}
	if data, _ := os.ReadFile(log); strings.Contains(string(data), "earlier run") || !strings.Contains(string(data), "out of range") {
		t.Errorf("log after a template that failed for the candidate:\n%s\nwant the template's error, not the earlier run's log", data)
	}
}
