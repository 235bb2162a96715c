package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The first interrupt asks for a clean stop; a second one must end the
// process even while that clean-up is still running, the engines it
// started ended first. The test runs itself as the child: it waits for the
// first signal, then "cleans up" for a minute.
func TestSecondInterruptExits(t *testing.T) {
	mark := os.Getenv("SERVESIM_SIGNAL_MARK")
	if os.Getenv("SERVESIM_SIGNAL_CHILD") == "1" {
		killEngines = func() { os.WriteFile(mark, nil, 0o644) }
		ctx, stop := signalContext()
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("stopping")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSecondInterruptExits$")
	mark = filepath.Join(t.TempDir(), "engines-killed")
	cmd.Env = append(os.Environ(), "SERVESIM_SIGNAL_CHILD=1", "SERVESIM_SIGNAL_MARK="+mark)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := bufio.NewScanner(stdout)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			cmd.Process.Kill()
			t.Fatalf("child printed %q, want %q", lines.Text(), want)
		}
	}
	expect("ready")
	cmd.Process.Signal(os.Interrupt)
	expect("stopping")
	go func() { done <- cmd.Wait() }()
	// one sent within repeatWindow of the first is that one again
	tick := time.NewTicker(repeatWindow / 2)
	defer tick.Stop()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
				t.Errorf("child ended with %v, want killed by the second interrupt", err)
			}
			if _, err := os.Stat(mark); err != nil {
				t.Error("the second interrupt ended the process without ending its engines first")
			}
			return
		case <-tick.C:
			cmd.Process.Signal(os.Interrupt)
		case <-timeout:
			cmd.Process.Kill()
			t.Fatal("the second interrupt did not end the process")
		}
	}
}

// One signal delivered twice at once, as timeout(1) and a kill of the
// process group do, is one interrupt: the run still stops cleanly. The
// test runs itself as the child, which cleans up for a second.
func TestRepeatedSignalStopsCleanly(t *testing.T) {
	if os.Getenv("SERVESIM_SIGNAL_CHILD") == "1" {
		ctx, stop := signalContext()
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("stopping")
		time.Sleep(time.Second)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRepeatedSignalStopsCleanly$")
	cmd.Env = append(os.Environ(), "SERVESIM_SIGNAL_CHILD=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for _, want := range []string{"ready", "stopping"} {
		if !lines.Scan() || lines.Text() != want {
			cmd.Process.Kill()
			t.Fatalf("child printed %q, want %q", lines.Text(), want)
		}
		cmd.Process.Signal(syscall.SIGTERM)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("child ended with %v, want a clean stop", err)
	}
}

// An interrupted command's error says so, in place of the context's
// "context canceled", which names no interrupt.
func TestErrorLineSaysInterrupted(t *testing.T) {
	app := newApp()
	for _, c := range []struct {
		err  error
		want string
	}{
		{context.Canceled, "servesim: interrupted"},
		{fmt.Errorf("serial: %w", context.Canceled), "servesim: serial: interrupted"},
		{fmt.Errorf("t.csv: not written: interrupted after 3 rows: %w", context.Canceled), "servesim: t.csv: not written: interrupted after 3 rows"},
		{fmt.Errorf("report: interrupted, r.md not written: %w", context.Canceled), "report: interrupted, r.md not written"},
		{errors.New("serial: context canceled"), "servesim: serial: context canceled"},
	} {
		if got := errorLine(app, c.err); got != c.want {
			t.Errorf("error %q printed as %q, want %q", c.err, got, c.want)
		}
	}
}

// A failed command's error is printed once prefixed: one that already
// names its command ("verify: …", "trace import: …") is not prefixed
// again with servesim, one that names none is.
func TestErrorLinePrefixesOnce(t *testing.T) {
	app := newApp()
	for _, c := range []struct{ err, want string }{
		{"verify: --trace: x.csv: no such file", "verify: --trace: x.csv: no such file"},
		{"trace import: line 3: bad row", "trace import: line 3: bad row"},
		{"/tmp/p.json: not a profile", "servesim: /tmp/p.json: not a profile"},
		{"verifying: x", "servesim: verifying: x"},
	} {
		if got := errorLine(app, errors.New(c.err)); got != c.want {
			t.Errorf("error %q printed as %q, want %q", c.err, got, c.want)
		}
	}
}
