package sweep

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/traces"
)

const azureConv = "../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv"

var (
	shortOnce  sync.Once
	shortTrace *Trace
	shortErr   error
)

// short is the first 300 requests of the Azure 2023 conversation trace.
func short(t testing.TB) *Trace {
	t.Helper()
	shortOnce.Do(func() {
		in, err := traces.Import(azureConv, traces.FormatAuto, traces.ImportOptions{})
		if err != nil {
			shortErr = err
			return
		}
		defer in.Close()
		shortTrace, shortErr = LoadTrace("azure-conv-head300", traces.Slice(in, 0, 0, 300))
	})
	if shortErr != nil {
		t.Fatal(shortErr)
	}
	return shortTrace
}

// writeSpec writes a spec next to a copy of the default continuous plan
// and loads it.
func writeSpec(t *testing.T, body string) (string, *Spec, error) {
	t.Helper()
	dir := t.TempDir()
	plan, err := os.ReadFile("../../cmd/servesim/defaults/4-continuous.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "base.toml"), plan, 0o644)
	path := filepath.Join(dir, "sweep.toml")
	os.WriteFile(path, []byte(body), 0o644)
	s, err := LoadSpec(path)
	return path, s, err
}

// runSpec loads the spec body and runs it over the short trace.
func runSpec(t *testing.T, body string, opt Options) *Results {
	t.Helper()
	return runSpecOn(t, body, short(t), opt)
}

// runSpecOn runs the spec body over trace tr.
func runSpecOn(t *testing.T, body string, tr *Trace, opt Options) *Results {
	t.Helper()
	_, s, err := writeSpec(t, body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, mustExpand(t, s), tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mustExpand(t *testing.T, s *Spec) *Expansion {
	t.Helper()
	ex, err := Expand(s, model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

const sloTOML = "\n[slo]\nttft_p99_ms = 1500\ntpot_p99_ms = 40\n"

// plainRow is a valid row of a searched capacity met at scale 1, as a
// run writes it.
func plainRow(index int64) Row {
	return Row{Index: index, Label: "x", Outcome: OutcomeOK, Model: "m", Precision: "bf16", Strategy: "continuous",
		Device: "H100", DeviceCount: 1, Replicas: 1, MaxWaitMs: math.NaN(), GPUMemoryUtilization: 0.9,
		RateScale: math.NaN(), Scale: 1, ArrivalRate: 2, GoodputFraction: 1, GoodputReqPerSec: 2,
		GoodputOutTokPerSec: 100, GoodputOutTokPerSecPerDevice: 100, ReqPerSec: 2, OutTokPerSec: 100,
		TTFTP50: 0.1, TTFTP99: 0.2, TPOTMean: 0.01, TPOTP99: 0.02, E2EP99: 1, DeviceSeconds: 10,
		USDPerMOutEst: 3, USDPerMTotalEst: 1, USDPerMOutBilled: math.NaN(), SatScale: 2,
		SatOutTokPerSec: 150, SatUSDPerMOut: 2, TailPenalty: 0.5, KneeScale: math.NaN()}
}

// skippedRow is a valid row of a config skipped before it ran: its
// metrics are unknown (null on disk), as a run writes them.
func skippedRow(index int64) Row {
	r := plainRow(index)
	r.Outcome, r.SkipReason, r.Note = OutcomeSkipped, SkipMaxDevices, "2 devices > max_devices 1"
	for _, f := range []*float64{&r.Scale, &r.ArrivalRate, &r.GoodputFraction, &r.GoodputReqPerSec, &r.GoodputOutTokPerSec,
		&r.GoodputOutTokPerSecPerDevice, &r.ReqPerSec, &r.OutTokPerSec, &r.TTFTP50, &r.TTFTP99, &r.TPOTMean, &r.TPOTP99,
		&r.E2EP99, &r.DeviceSeconds, &r.USDPerMOutEst, &r.USDPerMTotalEst, &r.USDPerMOutBilled,
		&r.SatScale, &r.SatOutTokPerSec, &r.SatUSDPerMOut, &r.TailPenalty, &r.KneeScale} {
		*f = math.NaN()
	}
	return r
}

// rankedRow is plainRow ranked first, the SLO met.
func rankedRow() Row {
	r := plainRow(0)
	r.Rank, r.SLOMet = 1, true
	return r
}
