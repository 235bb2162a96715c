package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

const urlUser, urlPassword, urlQuery = "USERLEAK-93c4", "PWLEAK-5e0d", "QLEAK-a71f"

// withSecrets adds urlUser with urlPassword and an api-key query (and a
// fragment) holding urlQuery to base, http://host:port/path.
func withSecrets(base string) string {
	return strings.Replace(base, "://", "://"+urlUser+":"+urlPassword+"@", 1) + "?api-key=" + urlQuery + "#" + urlQuery
}

// checkNoSecrets fails if text, or a file under dir, holds the user, the
// password or the query.
func checkNoSecrets(t *testing.T, what, text, dir string) {
	t.Helper()
	replaytest.CheckNoSecret(t, what, text, dir, urlUser, urlPassword, urlQuery)
}

// The engine's URL, password and query included, is used for the runs;
// verify.json and the log name it with its user and password masked and
// no query.
func TestRunHidesBaseURLSecrets(t *testing.T) {
	dir := t.TempDir()
	cfg := stubReplay(t)
	host := strings.TrimPrefix(cfg.BaseURL, "http://")
	cfg.BaseURL = withSecrets(cfg.BaseURL)
	var log bytes.Buffer
	opt := Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: cfg,
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Log: &log}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusOK || c.Measured.Completed != 4 {
		t.Fatalf("the run with the secrets in the URL: status %s (%s), %d completed", c.Status, c.Detail, c.Measured.Completed)
	}
	if want := "http://xxxxx@" + host; res.BaseURL != want {
		t.Errorf("base_url %q, want %q", res.BaseURL, want)
	}
	if !strings.Contains(log.String(), "the engine at http://xxxxx@"+host+" as it is") {
		t.Errorf("the log does not name the engine, user and password masked:\n%s", log.String())
	}
	data, _ := json.Marshal(res)
	checkNoSecrets(t, "verify.json", string(data), "")
	checkNoSecrets(t, "the log", log.String(), dir)
}
