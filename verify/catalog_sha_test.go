package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// verify.json records the --catalog file's checksum, as the simulated
// traces it wrote do.
func TestResultRecordsTheCatalogChecksum(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Candidates: candidates(4), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), CatalogSHA256: "c0ffee"}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	meta, _, err := traces.ReadAll(res.Candidates[0].SimTrace)
	if err != nil {
		t.Fatal(err)
	}
	var inSim string
	for k, v := range meta.Extra {
		if strings.Contains(k, "catalog") {
			inSim = v
		}
	}
	if res.CatalogSHA256 != "c0ffee" || !strings.Contains(inSim, "c0ffee") {
		t.Errorf("verify.json catalog_sha256 %q, simulated trace %q: want both the catalog's checksum", res.CatalogSHA256, inSim)
	}
}
