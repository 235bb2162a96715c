package verify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The engine's errors (already up, never healthy, gone, still up after
// the stop) name the health URL with its user and password masked and no
// query.
func TestEngineErrorsHideHealthURLSecrets(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	health := withSecrets(fakeEngine(t, dir))
	shown := strings.Replace(strings.SplitN(health, "?", 2)[0], urlUser+":"+urlPassword, "xxxxx", 1)
	var msgs []string
	check := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, shown) {
			t.Errorf("%s: %q does not name %s", what, msg, shown)
		}
		msgs = append(msgs, msg)
	}

	os.WriteFile(filepath.Join(dir, "up"), nil, 0o644)
	_, err := StartEngine(context.Background(), EngineSpec{Start: "sleep 30", HealthURL: health}, Knobs{}, filepath.Join(dir, "log1"))
	if err == nil || !strings.Contains(err.Error(), "already answers") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	check("already up", err.Error())

	os.Remove(filepath.Join(dir, "up"))
	_, err = StartEngine(context.Background(), EngineSpec{Start: "sleep 30", HealthURL: health, HealthTimeout: 300 * time.Millisecond, StopTimeout: time.Second},
		Knobs{}, filepath.Join(dir, "log2"))
	if err == nil || !strings.Contains(err.Error(), "not healthy") {
		t.Fatalf("err = %v, want a health timeout", err)
	}
	check("never healthy", err.Error())

	// Up, then gone; then up after its stop (nothing removes the file).
	spec := EngineSpec{Start: `touch "$D/up"`, HealthURL: health, HealthTimeout: 5 * time.Second, StopTimeout: 300 * time.Millisecond}
	e, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "log3"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "up"))
	ok, why := e.Alive(context.Background())
	if ok {
		t.Fatal("an engine whose health URL fails is alive")
	}
	check("gone", why)
	os.WriteFile(filepath.Join(dir, "up"), nil, 0o644)
	if err := e.Stop(context.Background()); err == nil || !strings.Contains(err.Error(), "still answers") {
		t.Fatalf("Stop: %v, want the engine still answering", err)
	} else {
		check("still up", err.Error())
	}
	checkNoSecrets(t, "the engine's errors", strings.Join(msgs, "\n"), dir)
}

// A key given in the health URL (the base URL's, by default) rather than
// in a variable is as much the engine's key: an engine started with it
// prints it, and a command may hold it; both are masked.
func TestEngineMasksTheHealthURLKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	start := `echo "args: --api-key ` + urlPassword + `"; trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`
	spec := EngineSpec{Start: start, HealthURL: withSecrets(fakeEngine(t, dir)), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second}
	log := filepath.Join(dir, "engine.log")
	e, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 4}, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkNoSecrets(t, "the recorded start command", spec.Masked(spec.Start), dir)
}

// With a --health-url of its own, the base URL's credentials are still the
// engine's key: an engine started with them prints them, and its command
// holds them; neither the engine log nor verify.json keeps them.
func TestEngineMasksTheBaseURLKeyWithItsOwnHealthURL(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	cfg := stubReplay(t)
	cfg.BaseURL = withSecrets(cfg.BaseURL)
	start := `echo "args: --api-key ` + urlPassword + ` --user ` + urlUser + ` --q ` + urlQuery + `"; trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`
	res, err := Run(context.Background(), Options{
		Candidates: candidates(1), Trace: writeTrace(t, dir, 3, 50*time.Millisecond), Replay: cfg,
		Engine: &EngineSpec{Start: start, Stop: `: ` + urlPassword, HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second},
		Out:    filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusOK {
		t.Fatalf("status %s (%s)", c.Status, c.Detail)
	}
	data, _ := json.Marshal(res)
	checkNoSecrets(t, "verify.json", string(data), dir)
}
