package sweep

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// writeOneRow writes a results file of one row that edit changed from a
// plain valid one, as a hand-edited or corrupt file would hold it.
func writeOneRow(t *testing.T, edit func(*Row)) string {
	t.Helper()
	r := plainRow(0)
	edit(&r)
	path := filepath.Join(t.TempDir(), "results.parquet")
	if err := WriteResults(path, []Row{r}); err != nil {
		t.Fatal(err)
	}
	return path
}

// A device_count or replicas past what a plan allows is refused where the
// file is read: report multiplies them as int64, and 2^62 × 4 wrapped to
// 0 devices, so cost and per-device figures came out of a product that
// was no count at all. A split's replicas hold both pools.
func TestReadFileRefusesDeviceCountsNoPlanHolds(t *testing.T) {
	for _, tc := range []struct {
		name, column string
		edit         func(*Row)
	}{
		{"huge device_count", "device_count", func(r *Row) { r.DeviceCount = 1 << 62; r.Replicas = 4 }},
		{"negative device_count", "device_count", func(r *Row) { r.DeviceCount = -2 }},
		{"huge replicas", "replicas", func(r *Row) { r.Replicas = 1 << 62; r.DeviceCount = 4 }},
		{"negative replicas", "replicas", func(r *Row) { r.Replicas = -1 }},
		{"huge long_replicas", "long_replicas", func(r *Row) { r.SplitTokens, r.LongReplicas = 100, 1<<40 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeOneRow(t, tc.edit)
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), path+": row 1: column \""+tc.column+"\"") {
				t.Fatalf("ReadFile = %v, want an error naming %s, row 1 and column %q", err, path, tc.column)
			}
		})
	}
	// the most a valid plan holds: both pools of a split at the bound
	path := writeOneRow(t, func(r *Row) {
		r.DeviceCount, r.Replicas, r.SplitTokens, r.LongReplicas = 1<<20, 2*math.MaxInt16, 100, math.MaxInt16
	})
	if _, err := ReadFile(path); err != nil {
		t.Fatalf("the largest deployment a plan holds: %v", err)
	}
}

// A metric no simulation gives (a negative cost, rate, latency or
// scale, a fraction past 1) is refused where the file is
// read: sweep merge ranked a shard's row of negative $/1M first, and
// verify and the report took it as the cheapest config; a negative
// rate_scale read as a searched capacity. A tail penalty may be negative
// (the SLO point can be cheaper than saturation).
func TestReadFileRefusesMetricsNoRunGives(t *testing.T) {
	curve := []CurvePoint{{Scale: 1, ReqPerSec: 2, OutTokPerSec: 100, TTFTP99: 0.2, E2EP99: 1, USDPerMOut: 3}}
	for _, tc := range []struct {
		column string
		edit   func(*Row)
	}{
		{"usd_per_m_out_est", func(r *Row) { r.USDPerMOutEst, r.SLOMet, r.Rank = -3, true, 1 }},
		{"req_per_s", func(r *Row) { r.ReqPerSec = -2 }},
		{"ttft_p99_s", func(r *Row) { r.TTFTP99 = -0.2 }},
		{"device_seconds", func(r *Row) { r.DeviceSeconds = -10 }},
		{"rate_scale", func(r *Row) { r.RateScale = -1 }},
		{"scale", func(r *Row) { r.Scale = -1 }},
		{"knee_scale", func(r *Row) { r.KneeScale = -2 }},
		{"goodput_fraction", func(r *Row) { r.GoodputFraction = 1.5 }},
		{"max_wait_ms", func(r *Row) { r.MaxWaitMs = -1 }},
		{"gpu_memory_utilization", func(r *Row) { r.GPUMemoryUtilization = 1.5 }},
		{"curve_usd_per_m_out", func(r *Row) { r.Curve = slices.Clone(curve); r.Curve[0].USDPerMOut = -3 }},
		{"curve_scale", func(r *Row) { r.Curve = slices.Clone(curve); r.Curve[0].Scale = -1 }},
	} {
		t.Run(tc.column, func(t *testing.T) {
			path := writeOneRow(t, tc.edit)
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), path+": row 1: column \""+tc.column+"\"") {
				t.Fatalf("ReadFile = %v, want an error naming %s, row 1 and column %q", err, path, tc.column)
			}
		})
	}
	path := writeOneRow(t, func(r *Row) { r.TailPenalty, r.RateScale, r.Curve = -0.2, 2, slices.Clone(curve) })
	if _, err := ReadFile(path); err != nil {
		t.Fatalf("a valid row with a negative tail penalty: %v", err)
	}
}

// A scale of 0 is refused where the file is read: a run writes every
// scale > 0 (search.min_scale and rate_scale are > 0, and
// gpu_memory_utilization is in (0, 1]) or null, and a rate_scale of 0
// read as a searched capacity, so a capped note made a fixed-rate row a
// capacity lower bound.
func TestReadFileRefusesZeroScales(t *testing.T) {
	curve := []CurvePoint{{Scale: 1, ReqPerSec: 2, OutTokPerSec: 100, TTFTP99: 0.2, E2EP99: 1, USDPerMOut: 3}}
	for _, tc := range []struct {
		column string
		edit   func(*Row)
	}{
		{"rate_scale", func(r *Row) { r.RateScale, r.Note = 0, capacityAtLeast+"search.max_scale 1024" }},
		{"scale", func(r *Row) { r.Scale = 0 }},
		{"sat_scale", func(r *Row) { r.SatScale = 0 }},
		{"knee_scale", func(r *Row) { r.KneeScale = 0 }},
		{"gpu_memory_utilization", func(r *Row) { r.GPUMemoryUtilization = 0 }},
		{"curve_scale", func(r *Row) { r.Curve = slices.Clone(curve); r.Curve[0].Scale = 0 }},
	} {
		t.Run(tc.column, func(t *testing.T) {
			path := writeOneRow(t, tc.edit)
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), path+": row 1: column \""+tc.column+"\"") {
				t.Fatalf("ReadFile = %v, want an error naming %s, row 1 and column %q", err, path, tc.column)
			}
		})
	}
	// a fixed rate_scale and a curve, every scale > 0, read as written
	path := writeOneRow(t, func(r *Row) { r.RateScale, r.KneeScale, r.Curve = 0.5, 1, slices.Clone(curve) })
	res, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.RateScale != 0.5 || r.KneeScale != 1 || r.Curve[0].Scale != 1 || r.GPUMemoryUtilization != 0.9 {
		t.Errorf("read back %+v", r)
	}
}

// A float column holding ±Inf, or NaN that is not null, is refused where
// the file is read: a run writes an unknown value as null and every value
// it knows finite. An infinite scale read back made candidates.json fail
// to encode, and an infinite cost ranked a config that met the SLO last
// as though it were priced.
func TestReadFileRefusesNonFiniteFloats(t *testing.T) {
	curve := []CurvePoint{{Scale: 1, ReqPerSec: 2, OutTokPerSec: 100, TTFTP99: 0.2, E2EP99: 1, USDPerMOut: 3}}
	for _, tc := range []struct {
		name, column string
		edit         func(*Row)
	}{
		{"infinite cost", "usd_per_m_out_est", func(r *Row) { r.USDPerMOutEst = math.Inf(1) }},
		{"infinite rate", "req_per_s", func(r *Row) { r.ReqPerSec = math.Inf(1) }},
		{"infinite scale", "scale", func(r *Row) { r.Scale = math.Inf(1) }},
		{"infinite rate_scale", "rate_scale", func(r *Row) { r.RateScale = math.Inf(1) }},
		{"infinite tail penalty", "tail_penalty", func(r *Row) { r.TailPenalty = math.Inf(1) }},
		{"negative infinite tail penalty", "tail_penalty", func(r *Row) { r.TailPenalty = math.Inf(-1) }},
		{"infinite curve point", "curve_out_tok_per_s", func(r *Row) { r.Curve = slices.Clone(curve); r.Curve[0].OutTokPerSec = math.Inf(1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeOneRow(t, tc.edit)
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), path+": row 1: column \""+tc.column+"\"") {
				t.Fatalf("ReadFile = %v, want an error naming %s, row 1 and column %q", err, path, tc.column)
			}
		})
	}
	t.Run("NaN tail penalty not null", func(t *testing.T) {
		saved := slices.Clone(columns)
		defer func() { columns = saved }()
		for i, c := range columns {
			if c.field.Name == "tail_penalty" {
				columns[i].put = func(b array.Builder, _ *Row) { b.(*array.Float64Builder).Append(math.NaN()) }
			}
		}
		path := writeOneRow(t, func(*Row) {})
		columns = saved
		_, err := ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), path+": row 1: column \"tail_penalty\"") {
			t.Fatalf("ReadFile = %v, want an error naming %s, row 1 and column \"tail_penalty\"", err, path)
		}
	})
}
