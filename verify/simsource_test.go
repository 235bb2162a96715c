package verify

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// A candidate's simulated trace records what produced it as simulate's
// do: this build, the profile by path and checksum, and the input it ran
// (the same checksums as the measured trace's, so that the two compare as
// one workload); a simulated input's own profile and closed loop are not
// claimed. verify.json names the build too.
func TestSimulatedCandidateRecordsItsSources(t *testing.T) {
	for _, withProfile := range []bool{true, false} {
		dir := t.TempDir()
		var reqs []*traces.Request
		for i := range 4 {
			var r traces.Request
			r.Reset()
			r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = string(rune('a'+i)), int64(i)*int64(10*time.Millisecond), 60, 12
			reqs = append(reqs, &r)
		}
		tr := filepath.Join(dir, "sim-in.parquet")
		inMeta := traces.Meta{Source: "simulated", ToolVersion: "v0.1"}
		inMeta.Set("profile", "old.json")
		inMeta.Set("profile_sha256", "0123")
		inMeta.Set("closed_loop", "4")
		if err := traces.WriteAll(tr, inMeta, reqs); err != nil {
			t.Fatal(err)
		}
		cfg := stubReplay(t)
		cfg.ToolVersion = "v9.9.9"
		opt := Options{Candidates: candidates(4), Trace: tr, Replay: cfg, Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
		prof := "../calibrate/testdata/profile_v1.json"
		if withProfile {
			p, err := calibrate.LoadProfile(prof)
			if err != nil {
				t.Fatal(err)
			}
			opt.Profile, opt.ProfilePath = p, prof
		}
		res, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.ToolVersion != "v9.9.9" {
			t.Errorf("verify.json tool_version %q, want this build's v9.9.9", res.ToolVersion)
		}
		c := res.Candidates[0]
		if c.Status != StatusOK {
			t.Fatalf("candidate: %s (%s)", c.Status, c.Detail)
		}
		sim, _, err := traces.ReadAll(c.SimTrace)
		if err != nil {
			t.Fatal(err)
		}
		measured, _, err := traces.ReadAll(c.Trace)
		if err != nil {
			t.Fatal(err)
		}
		if sim.ToolVersion != "v9.9.9" {
			t.Errorf("profile %v: simulated trace's tool_version %q, want this build's v9.9.9", withProfile, sim.ToolVersion)
		}
		if !maps.Equal(sim.Checksums, measured.Checksums) {
			t.Errorf("profile %v: simulated trace's checksums %v, measured trace's %v: want the same input", withProfile, sim.Checksums, measured.Checksums)
		}
		wantProf, wantSum := "", ""
		if withProfile {
			wantProf = prof
			if wantSum, err = calibrate.FileSHA256(prof); err != nil {
				t.Fatal(err)
			}
		}
		if sim.Extra["profile"] != wantProf || sim.Extra["profile_sha256"] != wantSum {
			t.Errorf("profile %v: simulated trace's profile %q, profile_sha256 %q; want %q, %q",
				withProfile, sim.Extra["profile"], sim.Extra["profile_sha256"], wantProf, wantSum)
		}
		if v, ok := sim.Extra["closed_loop"]; ok {
			t.Errorf("profile %v: simulated trace's closed_loop %q: the slice was simulated open, at its arrivals", withProfile, v)
		}
	}
}
