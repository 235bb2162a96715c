package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The plan printed before the runs counts the slot-reset requests sent
// before every run (--reset-slots, on by default): in the quick plan
// they are more than the plan's own requests.
func TestCalibratePlanCountsSlotResets(t *testing.T) {
	args := []string{"calibrate", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--out", filepath.Join(t.TempDir(), "p.json"), "--dry-run"}
	out, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	// 24 runs (the warm-up included), each after 8 reset requests.
	if !strings.Contains(out, "192 slot-reset requests") {
		t.Errorf("plan does not count the slot resets (24 runs × 8 slots):\n%s", out)
	}
	out, err = run(t, append(args, "--reset-slots=false")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "slot-reset") {
		t.Errorf("--reset-slots=false: plan still counts slot resets:\n%s", out)
	}
}

// --max-prompt caps the plan's prompt lengths; one above the plan's
// longest prompt lengthens nothing, and calibrate says so rather than
// run a plan without the prompts it was asked for.
func TestCalibrateMaxPromptAboveThePlan(t *testing.T) {
	args := []string{"calibrate", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--out", filepath.Join(t.TempDir(), "p.json"), "--dry-run"}
	out, err := run(t, append(args, "--max-prompt", "4096")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "--max-prompt 4096") || !strings.Contains(out, "1024") {
		t.Errorf("--max-prompt 4096 with the quick plan (longest prompt 1024): no word of it:\n%s", out)
	}
	out, err = run(t, append(args, "--max-prompt", "512")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "warning") {
		t.Errorf("--max-prompt 512 caps the plan, yet:\n%s", out)
	}
}
