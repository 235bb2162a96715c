package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// writeTrace writes rows to dir/name and returns the path.
func writeTrace(t *testing.T, dir, name string, in []*traces.Request) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := traces.WriteAll(p, traces.Meta{Source: "synthetic", BlockSize: 16}, in); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRecordRepeatInInputOrder(t *testing.T) {
	// Later rows finish first: TTFT shrinks with the request number.
	srv := replaytest.New(replaytest.Options{TokensPerChunk: 2, Fault: func(n int) replaytest.Fault {
		time.Sleep(time.Duration(12-n%12) * 3 * time.Millisecond)
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(12, time.Millisecond, 30, 4))
	cfg.Out = filepath.Join(dir, "out.parquet")
	cfg.Repeat = 2
	var log bytes.Buffer
	sums, err := Record(t.Context(), cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].Run != 1 || sums[1].Run != 2 {
		t.Fatalf("summaries %+v", sums)
	}
	if written, left := Outcome(cfg, sums); !written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want written", written, left)
	}
	for k := 1; k <= 2; k++ {
		meta, got, err := traces.ReadAll(RunPath(cfg.Out, k, 2))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 12 {
			t.Fatalf("run %d: %d rows", k, len(got))
		}
		for i, r := range got {
			if r.ID != rows(12, 0, 0, 0)[i].ID || !r.Succeeded() || len(r.TokenTimes) != 4 {
				t.Errorf("run %d row %d: id %s succeeded %v err %q", k, i, r.ID, r.Succeeded(), r.Error)
			}
		}
		if meta.Source != "live" || meta.Model != "servesim-tiny" || meta.Extra["replay.run"] != fmt.Sprintf("%d/2", k) ||
			meta.Extra["input_source"] != "synthetic" || meta.Extra["replay.status"] != "complete" || meta.BlockSize != 16 {
			t.Errorf("run %d meta %+v", k, meta)
		}
		if _, err := os.Stat(PartialPath(RunPath(cfg.Out, k, 2))); !os.IsNotExist(err) {
			t.Errorf("run %d: partial file left behind (%v)", k, err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	var buf bytes.Buffer
	PrintSpread(&buf, sums)
	for _, s := range sums {
		s.Print(&buf)
	}
	for _, want := range []string{"TTFT p99", "schedule lag p99", "succeeded 12", "TPOT"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("printout lacks %q:\n%s", want, buf.String())
		}
	}
	t.Log("\n" + buf.String())
}

func TestRecordRefusesStalePartial(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.csv", rows(2, 0, 30, 2))
	cfg.Out = filepath.Join(dir, "out.csv")
	os.WriteFile(PartialPath(cfg.Out), []byte("old"), 0o644)
	sums, err := Record(t.Context(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "interrupted run") {
		t.Errorf("want a stale-partial error, got %v", err)
	}
	// The partial file is not this run's.
	if written, left := Outcome(cfg, sums); written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want neither", written, left)
	}
}

func TestRecordInterruptedKeepsRows(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.arrows", rows(100, 10*time.Millisecond, 30, 2))
	cfg.Out = filepath.Join(dir, "out.arrows")
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	sums, err := Record(ctx, cfg, nil)
	if err == nil || len(sums) != 1 {
		t.Fatalf("want an interrupted run, got %v, %d summaries", err, len(sums))
	}
	if written, left := Outcome(cfg, sums); !written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want written", written, left)
	}
	meta, got, err := traces.ReadAll(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 5 || len(got) > 20 || meta.Extra["replay.status"] != "interrupted" {
		t.Errorf("%d rows, status %q", len(got), meta.Extra["replay.status"])
	}
	if sums[0].NotSent == 0 {
		t.Errorf("NotSent = 0 after an interruption")
	}
}

// TestKillMidRun runs Record in a child process, SIGKILLs it mid-run, and
// reads the partial file back.
func TestKillMidRun(t *testing.T) {
	if os.Getenv("SERVESIM_KILL_CHILD") != "" {
		t.Skip("child")
	}
	var mu sync.Mutex
	var done []time.Time
	srv := replaytest.New(replaytest.Options{ITL: 2 * time.Millisecond, Done: func(int) {
		mu.Lock()
		done = append(done, time.Now())
		mu.Unlock()
	}})
	defer srv.Close()
	dir := t.TempDir()
	trace := writeTrace(t, dir, "in.parquet", rows(5000, 2*time.Millisecond, 40, 8))
	out := filepath.Join(dir, "out.parquet")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SERVESIM_KILL_CHILD=1", "SK_URL="+srv.BaseURL(), "SK_TRACE="+trace, "SK_OUT="+out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	partial := PartialPath(out)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if n := countRows(partial); n >= 200 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no rows in %s after 20 s; child output:\n%s", partial, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1300 * time.Millisecond) // kill at an arbitrary point mid-run
	killedAt := time.Now()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	mu.Lock()
	before, margin := 0, time.Second
	if raceEnabled {
		margin = 4 * time.Second
	}
	for _, d := range done {
		if d.Before(killedAt.Add(-margin)) {
			before++
		}
	}
	total := len(done)
	mu.Unlock()

	r, err := traces.OpenTolerant(partial)
	if err != nil {
		t.Fatalf("partial file: %v\nchild output:\n%s", err, stderr.String())
	}
	n := 0
	for r.Next() {
		q := r.At()
		if !q.Succeeded() || q.UsageOutput != 8 || len(q.TokenTimes) != 8 {
			t.Errorf("row %d: %+v", n, q)
		}
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	cutByKill := r.(interface{ Truncated() bool }).Truncated()
	r.Close()
	t.Logf("tail cut by the kill: %v", cutByKill)
	t.Logf("server finished %d streams (%d more than %v before the kill); partial file holds %d rows", total, before, margin, n)
	if n < before {
		t.Errorf("lost rows completed more than %v before the kill: %d < %d", margin, n, before)
	}
	if n >= 5000 {
		t.Errorf("the run was not killed mid-way")
	}

	// A kill during a write leaves a cut-off last message: the tolerant
	// reader keeps every complete batch.
	if cutByKill {
		return // the kill itself landed mid-write, and the rows read back
	}
	data, _ := os.ReadFile(partial)
	cut := filepath.Join(dir, "cut.arrows")
	os.WriteFile(cut, data[:len(data)-7], 0o644)
	r, err = traces.OpenTolerant(cut)
	if err != nil {
		t.Fatal(err)
	}
	m := 0
	for r.Next() {
		m++
	}
	if err := r.Err(); err != nil || m >= n || !r.(interface{ Truncated() bool }).Truncated() {
		t.Errorf("truncated copy: %d of %d rows, err %v", m, n, err)
	}
	r.Close()
}

// countRows is how many whole rows the stream at path holds so far; a stream
// not yet created or not yet readable counts as none.
func countRows(path string) int {
	n, _ := traces.CountTolerant(path)
	return n
}

// TestKillChild is the child of TestKillMidRun.
func TestKillChild(t *testing.T) {
	if os.Getenv("SERVESIM_KILL_CHILD") == "" {
		t.Skip("run by TestKillMidRun")
	}
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Trace, cfg.Out = os.Getenv("SK_URL"), "m", os.Getenv("SK_TRACE"), os.Getenv("SK_OUT")
	cfg.Text = TextModel{TokensPerByte: 1, Overhead: 20}
	if _, err := Record(context.Background(), cfg, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// TestKeyNeverWritten records with a distinctive key, once accepted and
// once refused (401), with raw bodies saved, and scans everything written.
func TestKeyNeverWritten(t *testing.T) {
	const key = "sk-servesim-LEAKCHECK-3f9a7c21"
	t.Setenv("SERVESIM_LEAK_KEY", key)
	dir := t.TempDir()
	trace := writeTrace(t, dir, "in.jsonl", rows(4, time.Millisecond, 30, 3))
	var log, printed bytes.Buffer
	for i, serverKey := range []string{key, "sk-other"} {
		srv := replaytest.New(replaytest.Options{APIKey: serverKey, Record: true})
		cfg := testConfig(srv)
		cfg.APIKeyEnv = "SERVESIM_LEAK_KEY"
		cfg.Trace = trace
		cfg.Out = filepath.Join(dir, "out"+strconv.Itoa(i)+".jsonl")
		cfg.SaveRaw = filepath.Join(dir, "raw"+strconv.Itoa(i))
		cfg.KeepText = true
		sums, err := Record(t.Context(), cfg, &log)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			s.Print(&printed)
		}
		if i == 0 && sums[0].Succeeded != 4 || i == 1 && sums[0].FailedByKind[KindAuth] != 4 {
			t.Fatalf("server key %d: %+v", i, sums[0])
		}
		if got := srv.Requests()[0].Authorization; got != "Bearer "+key {
			t.Fatalf("the key was not sent")
		}
	}
	if !strings.Contains(printed.String(), "auth 4") {
		t.Errorf("summary does not count the 401s:\n%s", printed.String())
	}
	if scanned := replaytest.CheckNoSecret(t, "record", "", dir, key, "LEAKCHECK"); scanned < 10 {
		t.Errorf("scanned only %d files", scanned)
	}
	for name, b := range map[string]*bytes.Buffer{"log": &log, "summary": &printed} {
		if strings.Contains(b.String(), "LEAKCHECK") {
			t.Errorf("%s contains the API key", name)
		}
	}
	_, got, _ := traces.ReadAll(filepath.Join(dir, "out1.jsonl"))
	if !strings.Contains(got[0].Error, "$SERVESIM_LEAK_KEY: set (30 characters)") {
		t.Errorf("401 error does not describe the key variable: %q", got[0].Error)
	}
}

// A run that fails after writing rows keeps them in its partial file, and
// Outcome names it; one that fails before writing any keeps nothing.
func TestOutcomeOfFailedRuns(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	for _, tc := range []struct {
		name, trace string
		kept        bool
	}{
		{"rows written", "arrival_ns,prompt_tokens,output_tokens\n0,30,2\n1000000,30,2\n5000000000000000000,30,2\n", true},
		{"no row written", "arrival_ns,prompt_tokens,output_tokens\n5000000000000000000,30,2\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(srv)
			cfg.Trace = filepath.Join(dir, "in.csv")
			if err := os.WriteFile(cfg.Trace, []byte(tc.trace), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg.Out = filepath.Join(dir, "out.csv")
			sums, err := Record(t.Context(), cfg, nil)
			if err == nil {
				t.Fatal("a row past the latest schedulable time did not fail the run")
			}
			want := ""
			if tc.kept {
				want = PartialPath(cfg.Out)
			}
			if written, left := Outcome(cfg, sums); written || left != want {
				t.Errorf("Outcome: written %v, rows left in %q; want not written, rows left in %q", written, left, want)
			}
		})
	}
}

// With several runs, the runs before the one that fails wrote their traces:
// Outcome says so whether the failed run got as far as a summary or not,
// and names the partial file of one that kept its rows.
func TestOutcomeOfFailedLaterRun(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	for _, tc := range []struct {
		name string
		// block makes run 2 fail: it puts something in the way in dir.
		block func(t *testing.T, dir string, cfg *Config)
		kept  bool
	}{
		{"before it started", func(t *testing.T, dir string, cfg *Config) {
			cfg.SaveRaw = filepath.Join(dir, "raw")
			if err := os.MkdirAll(cfg.SaveRaw, 0o755); err != nil {
				t.Fatal(err)
			}
			// A file where run 2's raw bodies would go.
			if err := os.WriteFile(filepath.Join(cfg.SaveRaw, "run2"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"after writing rows", func(t *testing.T, dir string, cfg *Config) {
			// A directory where run 2's trace would go.
			if err := os.MkdirAll(filepath.Join(RunPath(cfg.Out, 2, 2), "in-the-way"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(srv)
			cfg.Trace = writeTrace(t, dir, "in.csv", rows(2, time.Millisecond, 30, 2))
			cfg.Out = filepath.Join(dir, "out.csv")
			cfg.Repeat = 2
			tc.block(t, dir, &cfg)
			sums, err := Record(t.Context(), cfg, nil)
			if err == nil {
				t.Fatal("run 2 succeeded with its output blocked")
			}
			if _, serr := os.Stat(RunPath(cfg.Out, 1, 2)); serr != nil {
				t.Fatalf("run 1's trace: %v", serr)
			}
			want := ""
			if tc.kept {
				want = PartialPath(RunPath(cfg.Out, 2, 2))
			}
			if written, left := Outcome(cfg, sums); !written || left != want {
				t.Errorf("Outcome: written %v, rows left in %q; want written (run 1), rows left in %q", written, left, want)
			}
		})
	}
}

// A raw-body directory holding an earlier recording's bodies is refused
// before any request: this run would overwrite some names and leave the
// rest, two recordings' bodies together, unmarked.
func TestRecordRefusesARawDirWithBodies(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(2, time.Millisecond, 30, 3))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	cfg.SaveRaw = filepath.Join(dir, "raw")
	cfg.Repeat = 2
	old := filepath.Join(cfg.SaveRaw, "run2", "000007_x.sse")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("data: [DONE]\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Record(t.Context(), cfg, nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "SaveRaw" || !strings.Contains(err.Error(), old) {
		t.Fatalf("Record with raw bodies in %s: %v, want a SaveRaw error naming %s", cfg.SaveRaw, err, old)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent before the refusal", n)
	}
	// An empty directory is fine.
	os.RemoveAll(cfg.SaveRaw)
	os.MkdirAll(cfg.SaveRaw, 0o755)
	if _, err := Record(t.Context(), cfg, nil); err != nil {
		t.Fatal(err)
	}
}
