package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A candidate whose plan is a cluster (several replicas, or a length
// split) is simulated as that cluster, but verify replays it against one
// engine: its figures would compare N replicas' device-seconds and
// latencies with one engine's. It is refused as a plan verify cannot
// measure, and the other candidates still run.
func TestRunRefusesClusterCandidate(t *testing.T) {
	dir := t.TempDir()
	cf := candidates(1, 2, 4)
	cf.Candidates[0].Plan += "\n[cluster]\nreplicas = 2\nrouter = \"round_robin\"\n"
	cf.Candidates[1].Plan += "\n[cluster]\nreplicas = 1\nrouter = \"round_robin\"\n" // one replica: an engine
	opt := Options{Candidates: cf, Trace: writeTrace(t, dir, 6, 20*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusPlan || !strings.Contains(c.Detail, "cluster") {
		t.Errorf("2-replica candidate: status %s (%s), want %s naming the cluster", c.Status, c.Detail, StatusPlan)
	}
	for _, c := range res.Candidates[1:] {
		if c.Status != StatusOK {
			t.Errorf("%s: status %s (%s), want %s", c.Label, c.Status, c.Detail, StatusOK)
		}
	}
}
