package scripts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeRepo is a repository root holding the engine scripts, a
// servesim-testmodel that writes nothing, and stand-ins for servesim and an
// installed ollama; serve is the script `ollama serve` runs
// (SERVESIM_OLLAMA).
type fakeRepo struct {
	root, port string
}

func newFakeRepo(t *testing.T, serve string) *fakeRepo {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                            "module fake\n\ngo 1.26\n",
		"cmd/servesim-testmodel/main.go":    "package main\n\nfunc main() {}\n",
		".cache/bin/ollama":                 "#!/bin/sh\nexit 0\n",
		".cache/bin/ollama.version":         "0.6.5\n",
		".cache/fake-serve":                 "#!/bin/sh\n" + serve + "\n",
		".cache/engine/models/manifests/.k": "",
		".cache/bin/servesim":               "#!/bin/sh\nexit 0\n",
	}
	for _, name := range []string{"engine.sh", "engine-variance.sh"} {
		script, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files["scripts/"+name] = string(script)
	}
	writeFiles(t, root, files)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return &fakeRepo{root: root, port: port}
}

// cmd is engine.sh with these arguments, on the repository's port, in its
// own process group.
func (r *fakeRepo) cmd(ctx context.Context, args ...string) *exec.Cmd {
	return r.script(ctx, "engine.sh", args...)
}

// script is one of the scripts with these arguments, as cmd.
func (r *fakeRepo) script(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(r.root, "scripts", name)}, args...)...)
	c.Env = append(os.Environ(), "SERVESIM_ENGINE_PORT="+r.port, "SERVESIM_OLLAMA="+filepath.Join(r.root, ".cache/fake-serve"))
	// On the deadline, end the script and whatever it started with it.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	return c
}

func (r *fakeRepo) pidfile() string {
	return filepath.Join(r.root, ".cache/engine/ollama-"+r.port+".pid")
}

// statFields returns the fields of /proc/PID/stat from the third (state) on.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndex(s, ") ")+2:]), nil
}

// alive reports whether process pid exists and has not exited.
func alive(pid int) bool {
	f, err := statFields(pid)
	return err == nil && f[0] != "Z"
}

// exitedWithin waits up to d for process pid to exit and reports whether it did.
func exitedWithin(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); alive(pid) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	return !alive(pid)
}

// helperServe is the shell command that runs TestHelperEngineServer as
// `ollama serve`, with these VAR=value settings in its environment.
func helperServe(t *testing.T, env ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(append(env, "SERVESIM_ENGINE_TEST_SERVER=1 exec "+exe+" -test.run '^TestHelperEngineServer$'"), " ")
}

// writeFiles writes each file, executable, under root, making its directories.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for path, data := range files {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// ownServer starts a process standing in for a server that engine.sh
// started earlier, in its own process group as setsid makes it, and writes
// the pid file that names it.
func (r *fakeRepo) ownServer(t *testing.T) *os.Process {
	t.Helper()
	c := exec.Command("sleep", "60")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go c.Wait()
	t.Cleanup(func() { c.Process.Kill() })
	r.writePidfile(t, c.Process.Pid)
	return c.Process
}

// writePidfile names process pid, with its start time, as the server that
// engine.sh started.
func (r *fakeRepo) writePidfile(t *testing.T, pid int) {
	t.Helper()
	f, err := statFields(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.pidfile(), fmt.Appendf(nil, "%d %s\n", pid, f[19]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A server that accepts connections but never answers is not healthy: the
// health check gives up on it instead of waiting forever.
func TestEngineStatusDoesNotWaitForASilentServer(t *testing.T) {
	r := newFakeRepo(t, "exit 1")
	ln, err := net.Listen("tcp", "127.0.0.1:"+r.port)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	r.ownServer(t)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := r.cmd(ctx, "status").CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("status still waiting after 30s on a server that never answers: %s", out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "not running") {
		t.Errorf("status: %v, %q: want exit status 1, not running", err, out)
	}
}

// A server that start launched earlier and that no longer answers is
// stopped before a new one starts: start does not overwrite its pid file
// and leave it running where stop cannot find it.
func TestEngineStartStopsItsServerThatDoesNotAnswer(t *testing.T) {
	r := newFakeRepo(t, `echo "listen tcp: address already in use" >&2; exit 1`)
	old := r.ownServer(t)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := r.cmd(ctx, "start").CombinedOutput()
	if err == nil {
		t.Fatalf("start succeeded with a server that cannot listen: %s", out)
	}
	if !exitedWithin(old.Pid, 15*time.Second) {
		pf, _ := os.ReadFile(r.pidfile())
		t.Errorf("the earlier server (pid %d) still runs, pid file %q: start said\n%s", old.Pid, pf, out)
	}
}

// A start ended by a signal (Ctrl-C, a job cancelled) while it waits for
// the server stops the server it started, as a failed start does.
func TestEngineStartInterruptedStopsItsServer(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			r := newFakeRepo(t, "exec sleep 60") // never answers
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := r.cmd(ctx, "start")
			var out strings.Builder
			c.Stdout, c.Stderr = &out, &out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			server := 0
			for deadline := time.Now().Add(20 * time.Second); server == 0 && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
				var pid int
				var start string
				if pf, err := os.ReadFile(r.pidfile()); err == nil {
					if n, _ := fmt.Sscan(string(pf), &pid, &start); n == 2 {
						server = pid
					}
				}
			}
			if server == 0 {
				c.Process.Kill()
				c.Wait()
				t.Fatalf("no server started: %s", out.String())
			}
			t.Cleanup(func() { syscall.Kill(-server, syscall.SIGKILL) })
			syscall.Kill(-c.Process.Pid, sig) // to its process group, as a terminal does
			c.Wait()
			if !exitedWithin(server, 15*time.Second) {
				t.Errorf("server (pid %d) still runs after start ended on %v: %s", server, sig, out.String())
			}
		})
	}
}

// engine-variance.sh shows why the engine did not start: a failed start
// does not end it without a word.
func TestEngineVarianceSaysWhyTheEngineDidNotStart(t *testing.T) {
	r := newFakeRepo(t, `echo "cannot serve" >&2; exit 1`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stdout, stderr strings.Builder
	c := r.script(ctx, "engine-variance.sh", "1")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err == nil {
		t.Fatalf("engine-variance.sh succeeded without an engine: %s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "engine.sh:") {
		t.Errorf("stderr %q, want engine.sh's reason", stderr.String())
	}
}

// TestHelperEngineServer is not a test: run as `ollama serve` (by
// SERVESIM_ENGINE_TEST_SERVER), it answers every request with 200 on
// OLLAMA_HOST, a stand-in for a healthy engine; a request for the path
// SERVESIM_ENGINE_TEST_HANG it never answers (a model that never loads),
// creating the file SERVESIM_ENGINE_TEST_HUNG once it holds one.
func TestHelperEngineServer(t *testing.T) {
	if os.Getenv("SERVESIM_ENGINE_TEST_SERVER") != "1" {
		t.Skip("run by the engine.sh tests as a server")
	}
	hang := os.Getenv("SERVESIM_ENGINE_TEST_HANG")
	http.ListenAndServe(os.Getenv("OLLAMA_HOST"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang != "" && r.URL.Path == hang {
			os.WriteFile(os.Getenv("SERVESIM_ENGINE_TEST_HUNG"), nil, 0o644)
			select {}
		}
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "{}")
	}))
	os.Exit(1)
}

// A start reuses a running server only when it was started with the same
// settings: a server started unpinned, say, is restarted for
// SERVESIM_ENGINE_CPUS instead of serving on unpinned.
func TestEngineStartRestartsAServerWithOtherSettings(t *testing.T) {
	r := newFakeRepo(t, helperServe(t))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	serverPid := func() int {
		var pid int
		pf, _ := os.ReadFile(r.pidfile())
		fmt.Sscan(string(pf), &pid)
		return pid
	}
	start := func(env ...string) string {
		c := r.cmd(ctx, "start")
		c.Env = append(c.Env, env...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("start %q: %v\n%s", env, err, out)
		}
		return string(out)
	}
	start()
	first := serverPid()
	t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
	if out := start(); serverPid() != first || !strings.Contains(out, "reusing") {
		t.Errorf("a second start with the same settings: pid %d, was %d: %s", serverPid(), first, out)
	}
	out := start("SERVESIM_ENGINE_CPUS=0")
	if serverPid() == first || strings.Contains(out, "reusing") {
		t.Errorf("start with SERVESIM_ENGINE_CPUS=0 kept the unpinned server (pid %d): %s", first, out)
	}
	if alive(first) {
		t.Errorf("the unpinned server (pid %d) still runs", first)
	}
}

// engine-variance.sh measures freshly started engines: a server left
// running on its port by an earlier run is stopped, not reused as the
// first engine.
func TestEngineVarianceDoesNotReuseAnEarlierServer(t *testing.T) {
	r := newFakeRepo(t, helperServe(t))
	r.port = "11439" // engine-variance.sh's own port
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if out, err := r.cmd(ctx, "start").CombinedOutput(); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
	var stdout, stderr strings.Builder
	c := r.script(ctx, "engine-variance.sh", "1")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("engine-variance.sh: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if strings.Contains(stderr.String(), "reusing") {
		t.Errorf("engine-variance.sh measured the server an earlier run left: %s", stderr.String())
	}
}

// kv-trace.sh traces an engine it starts itself: a server left running on
// its port by an earlier run is stopped, not reused (its log, which the
// trace is read from, was already removed).
func TestKVTraceDoesNotReuseAnEarlierServer(t *testing.T) {
	serve := helperServe(t)
	r := newFakeRepo(t, serve)
	r.port = "11441" // kv-trace.sh's own port
	traced := filepath.Join(r.root, ".cache/kvtrace/ollama")
	script, err := os.ReadFile("kv-trace.sh")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, r.root, map[string]string{".cache/kvtrace/ollama": "#!/bin/sh\n" + serve + "\n", "scripts/kv-trace.sh": string(script)})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	start := r.cmd(ctx, "start")
	start.Env = append(start.Env, "SERVESIM_OLLAMA="+traced)
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
	var out strings.Builder
	c := r.script(ctx, "kv-trace.sh", t.TempDir())
	c.Stdout, c.Stderr = &out, &out
	c.Run() // the stand-in engine writes no trace for the report to read
	if strings.Contains(out.String(), "reusing") {
		t.Errorf("kv-trace.sh traced the server an earlier run left: %s", out.String())
	}
}

// `make test-e2e` stopped while the live tests run (Ctrl-C, a cancelled CI
// job) stops the engine it started, as a finished run does: the server, in
// its own session, would otherwise keep its cores and port.
func TestMakeTestE2EInterruptedStopsTheEngine(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	r := newFakeRepo(t, helperServe(t))
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(r.root, ".cache/go-test-running")
	// A go whose build succeeds and whose test runs until stopped.
	fakeGo := "#!/bin/sh\n[ \"$1\" = test ] || exit 0\ntouch " + marker + "\nexec sleep 60\n"
	writeFiles(t, r.root, map[string]string{"Makefile": string(makefile), ".cache/fake-go": fakeGo})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			os.Remove(marker)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, "make", "-C", r.root, "test-e2e", "GO="+filepath.Join(r.root, ".cache/fake-go"))
			c.Env = append(os.Environ(), "SERVESIM_ENGINE_PORT="+r.port, "SERVESIM_OLLAMA="+filepath.Join(r.root, ".cache/fake-serve"))
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
			var out strings.Builder
			c.Stdout, c.Stderr = &out, &out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if _, err := os.Stat(marker); err == nil {
					break
				}
			}
			var server int
			pf, err := os.ReadFile(r.pidfile())
			if _, serr := fmt.Sscan(string(pf), &server); err != nil || serr != nil {
				c.Process.Kill()
				c.Wait()
				t.Fatalf("no engine started: %s", out.String())
			}
			syscall.Kill(-c.Process.Pid, sig) // to the process group, as a terminal or a CI runner does
			c.Wait()
			if !exitedWithin(server, 15*time.Second) {
				t.Errorf("engine (pid %d) still runs after make test-e2e ended on %v: %s", server, sig, out.String())
			}
		})
	}
}

// make lint outside a git checkout (a source tarball) cannot list the Go
// files: it fails, rather than running gofmt on no file at all and passing.
func TestMakeLintFailsWithoutItsFileList(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	root := t.TempDir()
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{
		"Makefile":   string(makefile),
		"bad.go":     "package bad\nfunc  f() {}\n", // not gofmt'd
		"fake-go.sh": "#!/bin/sh\nexit 0\n",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "make", "-C", root, "lint", "GO="+filepath.Join(root, "fake-go.sh"))
	// No git repository around root, nor one named by the environment.
	c.Env = []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(root)}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			c.Env = append(c.Env, kv)
		}
	}
	out, err := c.CombinedOutput()
	if err == nil {
		t.Errorf("make lint passed with bad.go unformatted and no git file list: %s", out)
	}
	if !strings.Contains(string(out), "git ls-files listed no Go file") {
		t.Errorf("make lint's output %q does not say it found no file list", out)
	}
}

// engine-variance.sh shows why a replay failed: record's error is not
// swallowed by the filter that picks TPOT from its report.
func TestEngineVarianceSaysWhyAReplayFailed(t *testing.T) {
	r := newFakeRepo(t, helperServe(t))
	r.port = "11439" // engine-variance.sh's own port
	servesim := "#!/bin/sh\n[ \"$1\" = record ] || exit 0\necho 'record: engine answered 500' >&2\nexit 1\n"
	writeFiles(t, r.root, map[string]string{".cache/bin/servesim": servesim})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
	var stdout, stderr strings.Builder
	c := r.script(ctx, "engine-variance.sh", "1")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err == nil {
		t.Fatalf("engine-variance.sh succeeded with every replay failing: %s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "engine answered 500") {
		t.Errorf("stderr %q, want record's error", stderr.String())
	}
}

// kv-trace.sh that fails says so and where its logs are: calibrate's
// output goes to a log, not the terminal.
func TestKVTraceSaysWhereItsLogsAreWhenItFails(t *testing.T) {
	serve := helperServe(t)
	r := newFakeRepo(t, serve)
	r.port = "11441" // kv-trace.sh's own port
	script, err := os.ReadFile("kv-trace.sh")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, r.root, map[string]string{
		".cache/kvtrace/ollama": "#!/bin/sh\n" + serve + "\n",
		"scripts/kv-trace.sh":   string(script),
		".cache/bin/servesim":   "#!/bin/sh\necho 'calibrate: engine answered 500' >&2\nexit 1\n",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
	out := t.TempDir()
	var stdout, stderr strings.Builder
	c := r.script(ctx, "kv-trace.sh", out)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err == nil {
		t.Fatalf("kv-trace.sh succeeded with calibrate failing: %s", stdout.String())
	}
	if !strings.Contains(stderr.String(), out) {
		t.Errorf("stderr %q, want the logs' directory %s", stderr.String(), out)
	}
}

// start interrupted while ollama create or the warm-up request runs ends
// at once and stops its server: the limits on them must not put them out
// of reach of the terminal's (or a CI runner's) signal to the process group.
func TestEngineStartInterruptedWhileWaitingEndsAtOnce(t *testing.T) {
	t.Run("create", func(t *testing.T) {
		testEngineStartInterruptedWhile(t, "touch \"$MARKER\"; exec sleep 60", "")
	})
	t.Run("warm-up", func(t *testing.T) {
		testEngineStartInterruptedWhile(t, "exit 0", "/api/generate")
	})
}

// testEngineStartInterruptedWhile interrupts start once the file $MARKER
// exists: ollama create runs the shell commands create, and the server
// never answers a request for hang (none when empty), creating $MARKER.
func testEngineStartInterruptedWhile(t *testing.T, create, hang string) {
	r := newFakeRepo(t, helperServe(t, "SERVESIM_ENGINE_TEST_HANG="+hang, `SERVESIM_ENGINE_TEST_HUNG="$MARKER"`))
	marker := filepath.Join(r.root, ".cache/interrupt-now")
	t.Setenv("MARKER", marker)
	ollama := "#!/bin/sh\n[ \"$1\" = create ] || exit 0\n" + create + "\n"
	writeFiles(t, r.root, map[string]string{".cache/bin/ollama": ollama})
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	t.Cleanup(func() { r.cmd(context.Background(), "stop").Run() })
	c := r.cmd(ctx, "start")
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
	}
	var server int
	pf, err := os.ReadFile(r.pidfile())
	if _, serr := fmt.Sscan(string(pf), &server); err != nil || serr != nil {
		c.Process.Kill()
		c.Wait()
		t.Fatalf("no engine started: %s", out.String())
	}
	t.Cleanup(func() { syscall.Kill(-server, syscall.SIGKILL) })
	sent := time.Now()
	syscall.Kill(-c.Process.Pid, syscall.SIGINT) // to its process group, as a terminal does
	c.Wait()
	if waited := time.Since(sent); waited > 10*time.Second {
		t.Errorf("start ended %v after the interrupt: what it waited on went on running: %s", waited.Round(time.Second), out.String())
	}
	if !exitedWithin(server, 15*time.Second) {
		t.Errorf("server (pid %d) still runs after start ended on an interrupt: %s", server, out.String())
	}
}

// make lint on a tracked file gofmt cannot parse fails, naming gofmt:
// gofmt -l lists nothing on stdout for such a file.
func TestMakeLintFailsOnAFileGofmtCannotParse(t *testing.T) {
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	root := t.TempDir()
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{
		"Makefile":   string(makefile),
		"bad.go":     "package bad\nfunc f( {}\n", // a syntax error
		"fake-go.sh": "#!/bin/sh\nexit 0\n",
	})
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, args := range [][]string{{"init", "-q"}, {"add", "bad.go"}} {
		c := exec.CommandContext(ctx, "git", args...)
		c.Dir, c.Env = root, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", args[0], err, out)
		}
	}
	c := exec.CommandContext(ctx, "make", "-C", root, "lint", "GO="+filepath.Join(root, "fake-go.sh"))
	c.Env = env
	out, err := c.CombinedOutput()
	if err == nil {
		t.Errorf("make lint passed with bad.go unparsable: %s", out)
	}
	if !strings.Contains(string(out), "gofmt failed") {
		t.Errorf("make lint's output %q does not say gofmt failed", out)
	}
}

// stop ends the server's whole process group: a runner still running after
// the server itself has exited on TERM is killed, not left holding the cores
// with no pid file left to find it by.
func TestEngineStopKillsARunnerThatOutlivesTheServer(t *testing.T) {
	r := newFakeRepo(t, "exit 1")
	runnerFile := filepath.Join(r.root, ".cache/runner.pid")
	// The server exits on TERM; its runner ignores TERM and runs on.
	server := exec.Command("bash", "-c", `(trap "" TERM; exec sleep 60) & echo $! >"$0"; trap "exit 0" TERM; wait`, runnerFile)
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	go server.Wait()
	t.Cleanup(func() { syscall.Kill(-server.Process.Pid, syscall.SIGKILL) })
	var runner int
	for deadline := time.Now().Add(10 * time.Second); runner == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(runnerFile); err == nil {
			fmt.Sscan(string(b), &runner)
		}
	}
	if runner == 0 {
		t.Fatal("the stand-in server started no runner")
	}
	r.writePidfile(t, server.Process.Pid)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := r.cmd(ctx, "stop").CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	if !exitedWithin(runner, 5*time.Second) {
		t.Errorf("the runner (pid %d) still runs after stop", runner)
	}
}

// .ci/run ends a run that outlasts its limit, saying so, and ends what the
// run started with it: a hung step must not hold CI until the job's own limit
// kills it without a word.
func TestCIRunStopsAtItsTimeLimit(t *testing.T) {
	root := t.TempDir()
	ciRun, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	makePid := filepath.Join(root, "make.pid")
	writeFiles(t, root, map[string]string{
		".ci/run":     string(ciRun),
		"go.mod":      "module fake\n\ngo 1.26\n",
		"bin/make":    "#!/bin/sh\necho $$ >" + makePid + "\nexec sleep 60\n", // a step that hangs
		"bin/g++":     "#!/bin/sh\nexit 0\n",
		"bin/apt-get": "#!/bin/sh\nexit 0\n",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, filepath.Join(root, ".ci/run"))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SERVESIM_CI_") && !strings.HasPrefix(kv, "PATH=") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Env = append(c.Env, "PATH="+filepath.Join(root, "bin")+":"+os.Getenv("PATH"), "SERVESIM_CI_LIMIT=3s")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf(".ci/run still running after 30s with a 3s limit: %s", out)
	}
	if err == nil || !strings.Contains(string(out), "stopped after 3s") {
		t.Errorf(".ci/run: %v, %q: want a failure that names its 3s limit", err, out)
	}
	var pid int
	if b, err := os.ReadFile(makePid); err == nil {
		fmt.Sscan(string(b), &pid)
	}
	if pid == 0 {
		t.Fatalf(".ci/run never reached make: %s", out)
	}
	// The pipe closes as make's process starts to exit, a moment before
	// it is gone: give it that moment on a busy machine.
	if !exitedWithin(pid, 5*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("make (pid %d) still runs after .ci/run stopped", pid)
	}
}

// The server runs in a process group of its own (setsid), so stop waits on
// and kills that group alone: once the group is gone, a process with the
// server's id outside it (the id reused while stop waits) is not the
// server's, and is left running.
func TestEngineStopLeavesAProcessOutsideTheServersGroup(t *testing.T) {
	r := newFakeRepo(t, "exit 1")
	// Not in a group of its own, and deaf to stop's TERM.
	other := exec.Command("bash", "-c", `trap "" TERM; exec sleep 60`)
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	go other.Wait()
	t.Cleanup(func() { other.Process.Kill() })
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", other.Process.Pid)); string(comm) == "sleep\n" {
			break // past the trap: TERM is ignored
		}
	}
	r.writePidfile(t, other.Process.Pid)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := r.cmd(ctx, "stop").CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	if !alive(other.Process.Pid) {
		t.Errorf("stop killed process %d, which is outside the server's process group", other.Process.Pid)
	}
}
