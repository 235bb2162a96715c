package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

// Row is one config of a sweep and its predicted metrics. On disk, a float
// that is NaN here is null, as is an int config column that is 0 (it does
// not apply to the strategy), Rank 0 (not ranked), an empty SkipReason or
// Note, and ChunkedPrefill when the strategy is not continuous. Latencies
// are seconds; rates are per second of simulated time.
type Row struct {
	Index    int64  // position in the canonical cross product of the whole sweep
	Label    string // the swept keys and their values
	PlanTOML string // the full plan: plan.Parse rebuilds it

	// Config columns.
	Model               string
	Precision           string
	MaxNewTokens        int64
	Strategy            string
	BatchSize           int64   // fixed
	MaxWaitMs           float64 // fixed, token_budget
	MaxTokenBudget      int64   // token_budget
	MaxNumSeqs          int64   // continuous
	MaxNumBatchedTokens int64   // continuous
	ChunkedPrefill      bool    // continuous
	PrefixCaching       bool
	Device              string
	DeviceCount         int64 // tensor-parallel degree
	// Replicas counts every replica of every pool (short + long with a
	// split): the config holds DeviceCount × Replicas devices.
	Replicas int64
	// The plan's [cluster]: Router is "" without one; SplitTokens and
	// LongReplicas are 0 and SplitOnPrompt false (all null on disk)
	// without a length split. The short pool has Replicas − LongReplicas.
	Router               string
	SplitTokens          int64
	LongReplicas         int64
	SplitOnPrompt        bool
	GPUMemoryUtilization float64
	MaxModelLen          int64
	BlockSize            int64
	RateScale            float64 // the swept fixed arrival-rate scale; NaN: the capacity was searched

	// Outcome is "ok" (SLO met at Scale), "infeasible" (the SLO fails even
	// at search.min_scale), "slo_violated" (a fixed rate_scale breaks the
	// SLO), "skipped" (see SkipReason) or "error" (see Note).
	Outcome    string
	SkipReason string // skip_if, max_devices, weights_do_not_fit, kv_too_small, invalid
	Note       string // details: why skipped, an OOM, a capped capacity, an error
	KVBlocks   int64
	Probes     int64 // simulations run for this config

	// Metrics of the complete run at Scale: the SLO capacity, or the fixed
	// RateScale.
	Scale                        float64 // arrival-rate scale (2 = twice the trace's rate)
	ArrivalRate                  float64 // offered requests per second at Scale
	SLOMet                       bool
	GoodputFraction              float64 // requests meeting every per-request SLO / requests
	GoodputReqPerSec             float64 // those requests per second
	GoodputOutTokPerSec          float64 // their output tokens per second
	GoodputOutTokPerSecPerDevice float64 // GoodputOutTokPerSec / (DeviceCount × Replicas)
	ReqPerSec                    float64
	OutTokPerSec                 float64
	TTFTP50, TTFTP99             float64
	TPOTMean, TPOTP99            float64
	E2EP99                       float64
	DeviceSeconds                float64
	USDPerMOutEst                float64 // estimated: device-seconds × price + energy, per 1M output tokens
	USDPerMTotalEst              float64 // the same per 1M input+output tokens
	USDPerMOutBilled             float64 // billed at the API prices; NaN without them

	// Raw saturation: the load-curve point with the highest output tok/s.
	SatScale, SatOutTokPerSec, SatUSDPerMOut float64
	TailPenalty                              float64 // model.TailPenalty(USDPerMOutEst, SatUSDPerMOut)
	KneeScale                                float64 // see Knee; NaN: no knee on the curve
	Curve                                    []CurvePoint

	Rank                                      int64 // 1 = cheapest config meeting the SLO; 0 = unranked
	OnPareto, ParetoLatency, ParetoThroughput bool
}

// CapacityLowerBound reports whether the row's Scale is a searched
// capacity the SLO never broke above (capped at search.max_scale, or
// search.max_probes ran out while doubling): the true capacity is at
// least Scale. Its note says so first.
func (r *Row) CapacityLowerBound() bool {
	return r.Outcome == OutcomeOK && math.IsNaN(r.RateScale) && strings.HasPrefix(r.Note, capacityAtLeast)
}

// Devices is the number of devices the row's config holds, device_count
// × replicas, an unknown (null) factor counted as 1. A skipped row's
// factors are as swept, unbounded by a plan, so a product past int64 is
// math.MaxInt64 rather than a wrapped count.
func (r *Row) Devices() int64 {
	n, m := max(r.DeviceCount, 1), max(r.Replicas, 1)
	if n > math.MaxInt64/m {
		return math.MaxInt64
	}
	return n * m
}

// Outcomes.
const (
	OutcomeOK          = "ok"
	OutcomeInfeasible  = "infeasible"
	OutcomeSLOViolated = "slo_violated"
	OutcomeSkipped     = "skipped"
	OutcomeError       = "error"
)

// Meta is the file-level metadata of a results file.
type Meta struct {
	SpecName    string // the spec file's base name
	Spec        string // the spec file's text
	SpecSHA256  string // Spec.SHA256
	TraceName   string
	TraceSHA256 string // Trace.SHA256
	// TraceChecksums are the trace's input files by checksum (its
	// traces.Meta.Checksums), as a simulated trace records them; nil in
	// files written before they were recorded.
	TraceChecksums map[string]string
	// TraceWorkload is what else made those files' requests arrive as
	// they did (traces.Workload of the trace), as summary.json records
	// it; nil in files written before it was recorded: unknown.
	TraceWorkload map[string]string
	TraceRequests int
	// Settings are the knobs outside the spec that change results, e.g. a
	// catalog file's checksum or a knee threshold given on the command
	// line. Shards merge only when they agree.
	Settings     string
	Shard        Shard
	TotalConfigs int // configs in the whole sweep, every shard
}

// Results is a results file.
type Results struct {
	Meta Meta
	Rows []Row // by Index
}

const metaPrefix = "servesim.sweep."

// traceChecksumKey starts the key of each of Meta.TraceChecksums.
const traceChecksumKey = "trace_checksum."

// traceWorkloadKey holds Meta.TraceWorkload as a JSON object.
const traceWorkloadKey = "trace_workload"

// FormatVersion is the results schema version in the file metadata.
const FormatVersion = "1"

func (m Meta) kv() arrow.Metadata {
	keys := []string{"version", "spec_name", "spec", "spec_sha256", "trace_name", "trace_sha256", "trace_requests",
		"settings", "shard", "total_configs"}
	vals := []string{FormatVersion, m.SpecName, m.Spec, m.SpecSHA256, m.TraceName, m.TraceSHA256, strconv.Itoa(m.TraceRequests),
		m.Settings, m.Shard.String(), strconv.Itoa(m.TotalConfigs)}
	for _, f := range slices.Sorted(maps.Keys(m.TraceChecksums)) {
		keys, vals = append(keys, traceChecksumKey+f), append(vals, m.TraceChecksums[f])
	}
	if m.TraceWorkload != nil { // written when empty too: absent is unknown
		w, _ := json.Marshal(m.TraceWorkload) // a map of strings always encodes
		keys, vals = append(keys, traceWorkloadKey), append(vals, string(w))
	}
	for i := range keys {
		keys[i] = metaPrefix + keys[i]
	}
	return arrow.NewMetadata(keys, vals)
}

func metaFrom(md arrow.Metadata) (Meta, error) {
	get := func(k string) string {
		if i := md.FindKey(metaPrefix + k); i >= 0 {
			return md.Values()[i]
		}
		return ""
	}
	var m Meta
	if v := get("version"); v != FormatVersion {
		return m, fmt.Errorf("not a servesim sweep results file (version %q, want %q)", v, FormatVersion)
	}
	m.SpecName, m.Spec, m.SpecSHA256 = get("spec_name"), get("spec"), get("spec_sha256")
	m.TraceName, m.TraceSHA256, m.Settings = get("trace_name"), get("trace_sha256"), get("settings")
	for i, k := range md.Keys() {
		if f, ok := strings.CutPrefix(k, metaPrefix+traceChecksumKey); ok {
			if m.TraceChecksums == nil {
				m.TraceChecksums = map[string]string{}
			}
			m.TraceChecksums[f] = md.Values()[i]
		}
	}
	if i := md.FindKey(metaPrefix + traceWorkloadKey); i >= 0 {
		if err := json.Unmarshal([]byte(md.Values()[i]), &m.TraceWorkload); err != nil || m.TraceWorkload == nil {
			return m, fmt.Errorf("metadata %s%s %q: want a JSON object of strings", metaPrefix, traceWorkloadKey, md.Values()[i])
		}
	}
	var err error
	if m.TraceRequests, err = count(get("trace_requests")); err != nil {
		return m, fmt.Errorf("metadata trace_requests: %w", err)
	}
	if m.TotalConfigs, err = count(get("total_configs")); err != nil {
		return m, fmt.Errorf("metadata total_configs: %w", err)
	}
	if m.Shard, err = ParseShard(get("shard")); err != nil {
		return m, fmt.Errorf("metadata shard: %w", err)
	}
	return m, nil
}

// count parses a count of the metadata, which cannot be negative.
func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err == nil && n < 0 {
		err = fmt.Errorf("%d: want a count ≥ 0", n)
	}
	return n, err
}

// column maps one Row field to one Arrow column.
type column struct {
	field arrow.Field
	put   func(b array.Builder, r *Row)
	get   func(a arrow.Array, i int, r *Row) error
	// optional: a file written before the column existed may lack it;
	// its rows then keep the zero value.
	optional bool
}

func optional(c column) column {
	c.optional = true
	return c
}

func i64Col(name string, f func(*Row) *int64, zeroNull bool) column {
	return column{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: zeroNull},
		put: func(b array.Builder, r *Row) {
			if v := *f(r); zeroNull && v == 0 {
				b.AppendNull()
			} else {
				b.(*array.Int64Builder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *Row) error {
			if !a.IsNull(i) {
				*f(r) = a.(*array.Int64).Value(i)
			}
			return nil
		},
	}
}

// inRange refuses a value of c's column outside [lo, hi], as a plan
// bounds it, in a row that was simulated. skip_if and max_devices leave a
// config out before its plan is validated, so a skipped row holds
// whatever the spec swept (a device.count past max_devices), and whoever
// multiplies these columns must not assume a skipped row's product fits.
func inRange(c column, f func(*Row) *int64, lo, hi int64) column {
	get := c.get
	c.get = func(a arrow.Array, i int, r *Row) error {
		if err := get(a, i, r); err != nil {
			return err
		}
		if v := *f(r); r.Outcome != OutcomeSkipped && (v < lo || v > hi) {
			return fmt.Errorf("column %q = %d: want %d to %d in a row that was not skipped", c.field.Name, v, lo, hi)
		}
		return nil
	}
	return c
}

// want is the values a float column holds besides null, as a simulation
// writes them: a file holding others is corrupt or hand-edited, and its
// costs would rank and its scales would read as what they are not.
type want struct {
	ok   func(float64) bool
	desc string
}

// holds reports whether v is one of w's values. A run writes an unknown
// value as null and every value it knows finite: a stored NaN or ±Inf is
// none of them.
func (w want) holds(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && w.ok(v)
}

var (
	anyValue    = want{func(float64) bool { return true }, "a finite number"}
	nonNegative = want{func(v float64) bool { return v >= 0 }, "finite and ≥ 0"}
	fraction    = want{func(v float64) bool { return v >= 0 && v <= 1 }, "in [0, 1]"}
	// Every scale a run probes is > 0 (search.min_scale and rate_scale
	// are): a rate_scale of 0 would read as a searched capacity.
	scale = want{func(v float64) bool { return v > 0 }, "finite and > 0"}
	// plan.Validate holds gpu_memory_utilization to (0, 1].
	utilization = want{func(v float64) bool { return v > 0 && v <= 1 }, "in (0, 1]"}
)

// planCol is a float config column that holds what a plan allows (w) in
// every row that was simulated: skip_if and max_devices leave a config
// out before its plan is validated, so a skipped row holds whatever value
// the spec swept, and only needs to be finite.
func planCol(name string, f func(*Row) *float64, w want) column {
	c := f64Col(name, f, anyValue)
	get := c.get
	c.get = func(a arrow.Array, i int, r *Row) error {
		if err := get(a, i, r); err != nil {
			return err
		}
		if v := *f(r); r.Outcome != OutcomeSkipped && !math.IsNaN(v) && !w.ok(v) {
			return fmt.Errorf("column %q = %g: want %s or null in a row that was not skipped", name, v, w.desc)
		}
		return nil
	}
	return c
}

func f64Col(name string, f func(*Row) *float64, w want) column {
	return column{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		put: func(b array.Builder, r *Row) {
			if v := *f(r); math.IsNaN(v) {
				b.AppendNull()
			} else {
				b.(*array.Float64Builder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *Row) error {
			if a.IsNull(i) {
				*f(r) = math.NaN()
				return nil
			}
			v := a.(*array.Float64).Value(i)
			if !w.holds(v) {
				return fmt.Errorf("column %q = %g: want %s or null", name, v, w.desc)
			}
			*f(r) = v
			return nil
		},
	}
}

func strCol(name string, f func(*Row) *string, emptyNull bool) column {
	return column{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: emptyNull},
		put: func(b array.Builder, r *Row) {
			if v := *f(r); emptyNull && v == "" {
				b.AppendNull()
			} else {
				b.(*array.StringBuilder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *Row) error {
			if !a.IsNull(i) {
				*f(r) = a.(*array.String).Value(i)
			}
			return nil
		},
	}
}

func boolCol(name string, f func(*Row) *bool, null func(*Row) bool) column {
	return column{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean, Nullable: null != nil},
		put: func(b array.Builder, r *Row) {
			if null != nil && null(r) {
				b.AppendNull()
			} else {
				b.(*array.BooleanBuilder).Append(*f(r))
			}
		},
		get: func(a arrow.Array, i int, r *Row) error {
			if !a.IsNull(i) {
				*f(r) = a.(*array.Boolean).Value(i)
			}
			return nil
		},
	}
}

// curveCol is one field of the load curve as a list<double> column; the
// curve's points are the rows of all curve columns together, so every
// curve column of a row holds as many values as curve_scale, which is read
// first and sizes the curve.
func curveCol(name string, f func(*CurvePoint) *float64, w want) column {
	return column{
		field: arrow.Field{Name: name, Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: false},
		put: func(b array.Builder, r *Row) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			for i := range r.Curve {
				if v := *f(&r.Curve[i]); math.IsNaN(v) {
					vb.AppendNull()
				} else {
					vb.Append(v)
				}
			}
		},
		get: func(a arrow.Array, i int, r *Row) error {
			l := a.(*array.List)
			start, end := l.ValueOffsets(i)
			vals := l.ListValues().(*array.Float64)
			if name == "curve_scale" && end > start {
				r.Curve = make([]CurvePoint, end-start)
			}
			if n := int(end - start); n != len(r.Curve) {
				return fmt.Errorf("column %q holds %d curve points, curve_scale %d", name, n, len(r.Curve))
			}
			for j := start; j < end; j++ {
				if vals.IsNull(int(j)) {
					*f(&r.Curve[j-start]) = math.NaN()
				} else if v := vals.Value(int(j)); w.holds(v) {
					*f(&r.Curve[j-start]) = v
				} else {
					return fmt.Errorf("column %q point %d = %g: want %s or null", name, j-start+1, v, w.desc)
				}
			}
			return nil
		},
	}
}

func notContinuous(r *Row) bool { return r.Strategy != "continuous" }

func noSplit(r *Row) bool { return r.SplitTokens == 0 }

func deviceCount(r *Row) *int64  { return &r.DeviceCount }
func replicas(r *Row) *int64     { return &r.Replicas }
func longReplicas(r *Row) *int64 { return &r.LongReplicas }

// columns is the results schema, in order.
var columns = []column{
	i64Col("index", func(r *Row) *int64 { return &r.Index }, false),
	strCol("label", func(r *Row) *string { return &r.Label }, false),
	strCol("outcome", func(r *Row) *string { return &r.Outcome }, false),
	strCol("skip_reason", func(r *Row) *string { return &r.SkipReason }, true),
	strCol("note", func(r *Row) *string { return &r.Note }, true),
	i64Col("rank", func(r *Row) *int64 { return &r.Rank }, true),
	boolCol("on_pareto", func(r *Row) *bool { return &r.OnPareto }, nil),
	boolCol("pareto_latency", func(r *Row) *bool { return &r.ParetoLatency }, nil),
	boolCol("pareto_throughput", func(r *Row) *bool { return &r.ParetoThroughput }, nil),

	strCol("model", func(r *Row) *string { return &r.Model }, false),
	strCol("precision", func(r *Row) *string { return &r.Precision }, false),
	i64Col("max_new_tokens", func(r *Row) *int64 { return &r.MaxNewTokens }, true),
	strCol("strategy", func(r *Row) *string { return &r.Strategy }, false),
	i64Col("batch_size", func(r *Row) *int64 { return &r.BatchSize }, true),
	planCol("max_wait_ms", func(r *Row) *float64 { return &r.MaxWaitMs }, nonNegative),
	i64Col("max_token_budget", func(r *Row) *int64 { return &r.MaxTokenBudget }, true),
	i64Col("max_num_seqs", func(r *Row) *int64 { return &r.MaxNumSeqs }, true),
	i64Col("max_num_batched_tokens", func(r *Row) *int64 { return &r.MaxNumBatchedTokens }, true),
	boolCol("chunked_prefill", func(r *Row) *bool { return &r.ChunkedPrefill }, notContinuous),
	boolCol("prefix_caching", func(r *Row) *bool { return &r.PrefixCaching }, nil),
	strCol("device", func(r *Row) *string { return &r.Device }, false),
	// bounded as plan.Validate bounds them in a simulated row, so its
	// DeviceCount × Replicas fits an int64 (a skipped row's need not);
	// replicas holds both pools of a split. 0 is null.
	inRange(i64Col("device_count", deviceCount, true), deviceCount, 0, plan.MaxDeviceCount),
	inRange(i64Col("replicas", replicas, true), replicas, 0, 2*plan.MaxReplicas),
	optional(strCol("router", func(r *Row) *string { return &r.Router }, true)),
	optional(i64Col("split_tokens", func(r *Row) *int64 { return &r.SplitTokens }, true)),
	optional(inRange(i64Col("long_replicas", longReplicas, true), longReplicas, 0, plan.MaxReplicas)),
	optional(boolCol("split_on_prompt", func(r *Row) *bool { return &r.SplitOnPrompt }, noSplit)),
	planCol("gpu_memory_utilization", func(r *Row) *float64 { return &r.GPUMemoryUtilization }, utilization),
	i64Col("max_model_len", func(r *Row) *int64 { return &r.MaxModelLen }, true),
	i64Col("block_size", func(r *Row) *int64 { return &r.BlockSize }, true),
	f64Col("rate_scale", func(r *Row) *float64 { return &r.RateScale }, scale),
	i64Col("kv_blocks", func(r *Row) *int64 { return &r.KVBlocks }, true),
	i64Col("probes", func(r *Row) *int64 { return &r.Probes }, false),

	f64Col("scale", func(r *Row) *float64 { return &r.Scale }, scale),
	f64Col("arrival_rate", func(r *Row) *float64 { return &r.ArrivalRate }, nonNegative),
	boolCol("slo_met", func(r *Row) *bool { return &r.SLOMet }, nil),
	f64Col("goodput_fraction", func(r *Row) *float64 { return &r.GoodputFraction }, fraction),
	f64Col("goodput_req_per_s", func(r *Row) *float64 { return &r.GoodputReqPerSec }, nonNegative),
	f64Col("goodput_out_tok_per_s", func(r *Row) *float64 { return &r.GoodputOutTokPerSec }, nonNegative),
	f64Col("goodput_out_tok_per_s_per_device", func(r *Row) *float64 { return &r.GoodputOutTokPerSecPerDevice }, nonNegative),
	f64Col("req_per_s", func(r *Row) *float64 { return &r.ReqPerSec }, nonNegative),
	f64Col("out_tok_per_s", func(r *Row) *float64 { return &r.OutTokPerSec }, nonNegative),
	f64Col("ttft_p50_s", func(r *Row) *float64 { return &r.TTFTP50 }, nonNegative),
	f64Col("ttft_p99_s", func(r *Row) *float64 { return &r.TTFTP99 }, nonNegative),
	f64Col("tpot_mean_s", func(r *Row) *float64 { return &r.TPOTMean }, nonNegative),
	f64Col("tpot_p99_s", func(r *Row) *float64 { return &r.TPOTP99 }, nonNegative),
	f64Col("e2e_p99_s", func(r *Row) *float64 { return &r.E2EP99 }, nonNegative),
	f64Col("device_seconds", func(r *Row) *float64 { return &r.DeviceSeconds }, nonNegative),
	f64Col("usd_per_m_out_est", func(r *Row) *float64 { return &r.USDPerMOutEst }, nonNegative),
	f64Col("usd_per_m_total_est", func(r *Row) *float64 { return &r.USDPerMTotalEst }, nonNegative),
	f64Col("usd_per_m_out_billed", func(r *Row) *float64 { return &r.USDPerMOutBilled }, nonNegative),
	f64Col("sat_scale", func(r *Row) *float64 { return &r.SatScale }, scale),
	f64Col("sat_out_tok_per_s", func(r *Row) *float64 { return &r.SatOutTokPerSec }, nonNegative),
	f64Col("sat_usd_per_m_out", func(r *Row) *float64 { return &r.SatUSDPerMOut }, nonNegative),
	f64Col("tail_penalty", func(r *Row) *float64 { return &r.TailPenalty }, anyValue),
	f64Col("knee_scale", func(r *Row) *float64 { return &r.KneeScale }, scale),
	curveCol("curve_scale", func(p *CurvePoint) *float64 { return &p.Scale }, scale),
	curveCol("curve_req_per_s", func(p *CurvePoint) *float64 { return &p.ReqPerSec }, nonNegative),
	curveCol("curve_out_tok_per_s", func(p *CurvePoint) *float64 { return &p.OutTokPerSec }, nonNegative),
	curveCol("curve_ttft_p99_s", func(p *CurvePoint) *float64 { return &p.TTFTP99 }, nonNegative),
	curveCol("curve_e2e_p99_s", func(p *CurvePoint) *float64 { return &p.E2EP99 }, nonNegative),
	curveCol("curve_usd_per_m_out", func(p *CurvePoint) *float64 { return &p.USDPerMOut }, nonNegative),
	strCol("plan_toml", func(r *Row) *string { return &r.PlanTOML }, false),
}

// ColumnNames lists the results columns in order.
func ColumnNames() []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c.field.Name
	}
	return out
}

func schema(m Meta) *arrow.Schema {
	fields := make([]arrow.Field, len(columns))
	for i, c := range columns {
		fields[i] = c.field
	}
	md := m.kv()
	return arrow.NewSchema(fields, &md)
}

// WriteResults writes rows to a Parquet file at path with empty metadata.
func WriteResults(path string, rows []Row) error {
	return WriteFile(path, &Results{Rows: rows})
}

// WriteFile writes res as Parquet at path: one row group, zstd, the Meta
// in the file's key-value metadata. The file appears only complete and on
// disk (atomicfile). The same Results give the same bytes.
func WriteFile(path string, res *Results) error {
	mem := memory.DefaultAllocator
	sc := schema(res.Meta)
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	for i := range res.Rows {
		for j, c := range columns {
			c.put(rb.Field(j), &res.Rows[i])
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()

	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort() // nothing to do once committed
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(max(int64(len(res.Rows)), 1)),
		parquet.WithAllocator(mem),
	)
	// Hides f's Close from the Parquet writer: Commit syncs f before it closes it.
	sink := struct{ io.Writer }{f}
	w, err := pqarrow.NewFileWriter(sc, sink, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return atomicfile.Named(path, err) // a write error names path already
	}
	if err = w.Write(rec); err != nil {
		w.Close()
		return atomicfile.Named(path, err) // a write error names path already
	}
	if err = w.Close(); err != nil {
		return atomicfile.Named(path, err) // a write error names path already
	}
	return f.Commit()
}

// ReadResults reads the rows of a results file.
func ReadResults(path string) ([]Row, error) {
	res, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return res.Rows, nil
}

// ReadFile reads a results file written by WriteFile.
func ReadFile(path string) (*Results, error) {
	res, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

func readFile(path string) (_ *Results, err error) {
	// arrow-go panics on some corrupt files, as the trace readers know:
	// an error, not a crash.
	defer traces.RecoverPanic(&err)
	mem := memory.DefaultAllocator
	pf, err := traces.OpenParquetFile(path, parquet.NewReaderProperties(mem))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, mem)
	if err != nil {
		return nil, err
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	meta, err := metaFrom(sc.Metadata())
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(columns))
	for j, c := range columns {
		f := sc.FieldIndices(c.field.Name)
		switch {
		case len(f) == 1:
			idx[j] = f[0]
		case len(f) == 0 && c.optional:
			idx[j] = -1
		default:
			return nil, fmt.Errorf("column %q missing", c.field.Name)
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	res := &Results{Meta: meta}
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		base := len(res.Rows)
		for range n {
			res.Rows = append(res.Rows, Row{})
		}
		// curve_scale first sizes each row's curve.
		for j, c := range columns {
			if idx[j] < 0 {
				continue
			}
			col := rec.Column(idx[j])
			if !arrow.TypeEqual(col.DataType(), c.field.Type) {
				return nil, fmt.Errorf("column %q has type %s, want %s", c.field.Name, col.DataType(), c.field.Type)
			}
			for i := range n {
				if err := c.get(col, i, &res.Rows[base+i]); err != nil {
					return nil, fmt.Errorf("row %d: %w", base+i+1, err)
				}
			}
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return res, nil
}
