package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An engine that prints its arguments prints the key among them: the
// engine log verify keeps (OUT/rankNN.engine.log) has it masked once the
// engine is stopped, after a run as after a failed start.
func TestEngineLogMasksTheKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	const key = "sk-servesim-ENGINEFILE-0123456789"
	t.Setenv("SERVESIM_ENGINE_KEY", key)
	health := fakeEngine(t, dir)
	args := `echo "args: --api-key $SERVESIM_ENGINE_KEY --max-num-seqs {{.MaxNumSeqs}}"; `
	ran := filepath.Join(dir, "ran.log")
	spec := EngineSpec{Start: args + `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`,
		HealthURL: health, HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second, KeyEnv: "SERVESIM_ENGINE_KEY"}
	e, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 4}, ran)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	failed := filepath.Join(dir, "failed.log")
	spec.Start = args + "exit 1"
	if _, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 4}, failed); err == nil {
		t.Fatal("a start command that exits 1 started")
	}
	for _, log := range []string{ran, failed} {
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, "ENGINEFILE") || !strings.Contains(s, "--api-key [redacted] --max-num-seqs 4") {
			t.Errorf("%s holds %q: want the engine's output with the key masked", filepath.Base(log), s)
		}
	}
}

// A start or stop command that holds the key itself, not the variable
// that names it, is recorded in verify.json with the key masked.
func TestEngineCommandsRecordedWithTheKeyMasked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	const key = "sk-servesim-ENGINECMD-0123456789"
	t.Setenv("SERVESIM_ENGINE_KEY", key)
	res, err := Run(context.Background(), Options{
		Candidates: candidates(1), Trace: writeTrace(t, dir, 3, 50*time.Millisecond), Replay: stubReplay(t),
		Engine: &EngineSpec{Start: `: --api-key ` + key + `; trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`,
			Stop: `: ` + key, HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second,
			KeyEnv: "SERVESIM_ENGINE_KEY"},
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, cmd := range map[string]string{"engine_cmd": res.EngineCmd, "stop_cmd": res.StopCmd} {
		if strings.Contains(cmd, "ENGINECMD") || !strings.Contains(cmd, "[redacted]") {
			t.Errorf("%s %q: want the command with the key masked", name, cmd)
		}
	}
}

// A start command that holds the key and cannot even be run (its
// directory is gone) leaves a log with the command in it: the key in it
// is masked, though no engine was stopped to mask the log.
func TestEngineLogOfAnUnrunCommandMasksTheKey(t *testing.T) {
	dir := t.TempDir()
	const key = "sk-servesim-NOTRUN-0123456789"
	t.Setenv("SERVESIM_ENGINE_KEY", key)
	log := filepath.Join(dir, "engine.log")
	spec := EngineSpec{Start: "serve --api-key " + key, HealthURL: "http://127.0.0.1:1/health", KeyEnv: "SERVESIM_ENGINE_KEY",
		Dir: filepath.Join(dir, "gone")}
	if _, err := StartEngine(context.Background(), spec, Knobs{}, log); err == nil {
		t.Fatal("a start command in a missing directory started")
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "NOTRUN") {
		t.Errorf("%s holds the key: %q", filepath.Base(log), b)
	}
}

// A start command that fails to render for one candidate's knobs is
// reported (in verify.json's detail) with the key masked, as its log has it.
func TestEngineRenderErrorMasksTheKey(t *testing.T) {
	dir := t.TempDir()
	const key = "sk-servesim-RENDERKEY-0123456789"
	t.Setenv("SERVESIM_ENGINE_KEY", key)
	spec := EngineSpec{Start: `vllm serve {{if gt .MaxNumSeqs 300}}{{index "` + key + `" 99}}{{end}}`,
		HealthURL: "http://127.0.0.1:1/v1/models", KeyEnv: "SERVESIM_ENGINE_KEY"}
	if _, err := ParseTemplate("engine-cmd", spec.Start); err != nil {
		t.Fatalf("the template does not parse: %v", err)
	}
	log := filepath.Join(dir, "engine.log")
	_, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 512}, log)
	if err == nil {
		t.Fatal("a template that fails to render started")
	}
	if strings.Contains(err.Error(), "RENDERKEY") || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("StartEngine: %v: want the key masked", err)
	}
	b, _ := os.ReadFile(log)
	if strings.Contains(string(b), "RENDERKEY") {
		t.Errorf("engine log holds the key: %s", b)
	}
}

// So is a stop command that fails to render.
func TestEngineStopRenderErrorMasksTheKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	const key = "sk-servesim-STOPRENDER-0123456789"
	t.Setenv("SERVESIM_ENGINE_KEY", key)
	spec := EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`,
		Stop:      `{{if gt .MaxNumSeqs 300}}{{index "` + key + `" 99}}{{end}}`,
		HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second, KeyEnv: "SERVESIM_ENGINE_KEY"}
	e, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 512}, filepath.Join(dir, "engine.log"))
	if err != nil {
		t.Fatal(err)
	}
	err = e.Stop(context.Background())
	if err == nil || strings.Contains(err.Error(), "STOPRENDER") {
		t.Errorf("Stop: %v: want the render error with the key masked", err)
	}
}
