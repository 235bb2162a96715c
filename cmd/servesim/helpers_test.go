package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urfave/cli/v2"
)

// runCode runs the CLI and returns its output, exit status (2 and up from
// cli.Exit, 1 for any other error) and error. The status is read as the
// binary reads it: cli.HandleExitCoder does not unwrap, so a cli.Exit
// wrapped in another error exits 1.
func runCode(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	saved := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = saved }()
	out, err := run(t, args...)
	if err == nil {
		return out, 0, nil
	}
	if ec, ok := err.(cli.ExitCoder); ok {
		return out, ec.ExitCode(), err
	}
	return out, 1, err
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// testProfile returns calibrate's test profile (H100-SXM-80G).
func testProfile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "calibrate", "testdata", "profile_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// basePlan writes the embedded continuous plan, edited by the old/new
// pairs, to dir/name.
func basePlan(t *testing.T, dir, name string, edits ...string) string {
	t.Helper()
	data, _ := defaults.ReadFile("defaults/4-continuous.toml")
	s := string(data)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("plan has no %q", edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	return writeFile(t, dir, name, s)
}

// countingServer answers every request 500 and counts them.
func countingServer(t *testing.T) (url string, n *atomic.Int64) {
	n = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", n
}

const smallCSV = "arrival_ns,prompt_tokens,output_tokens\n0,100,20\n1000000,100,20\n2000000,100,20\n"
