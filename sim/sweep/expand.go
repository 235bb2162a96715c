package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// Config is one point of the sweep's cross product.
type Config struct {
	// Index is the position in the canonical cross-product order of the
	// whole sweep: strategies in sweep order, then each strategy's
	// applicable axes in key order with the last varying fastest.
	Index int
	Label string // the swept keys and their values, e.g. "continuous max_num_seqs=128"
	Plan  *plan.Plan
	// PlanTOML is the full plan, loadable with plan.Parse.
	PlanTOML string
	// Replicas counts every replica of every pool (Plan.Replicas): the
	// config holds device.count × Replicas devices.
	Replicas  int
	RateScale float64        // fixed arrival-rate scale; 0 = search the SLO capacity
	Resolved  *plan.Resolved // nil when skipped

	// Skip is why the config is not simulated ("" = it is): skip_if,
	// max_devices, weights_do_not_fit, kv_too_small or invalid (values
	// that break a rule between them, e.g. max_num_batched_tokens below
	// max_num_seqs); SkipDetail says more.
	Skip, SkipDetail string
}

// Skip reasons.
const (
	SkipIf           = "skip_if"
	SkipMaxDevices   = "max_devices"
	SkipWeights      = "weights_do_not_fit"
	SkipKVTooSmall   = "kv_too_small"
	SkipInvalid      = "invalid"
	skipReasonsOrder = "skip_if max_devices weights_do_not_fit kv_too_small invalid"
)

// Expansion is the cross product of a spec.
type Expansion struct {
	Configs []Config       // every config, by Index
	Skipped map[string]int // skipped configs by reason
}

// Runnable counts the configs that are not skipped.
func (e *Expansion) Runnable() int {
	n := len(e.Configs)
	for _, c := range e.Skipped {
		n -= c
	}
	return n
}

// Size is how many configs the spec's cross product holds, as Expand
// builds them: counted without building one, so that a caller can say
// how many before the minutes a big sweep spends building them. Past
// maxConfigs it is an error naming the keys that multiply it.
func (s *Spec) Size() (int, error) {
	total := 0
	for _, st := range s.Strategies {
		n := 1
		for _, a := range s.Axes {
			if d, _ := lookupKey(a.Key); d.applies(st) {
				n = min(n*len(a.Values), maxConfigs+1) // no overflow: each factor ≤ maxAxisValues
			}
		}
		total = min(total+n, maxConfigs+1)
	}
	if total <= maxConfigs {
		return total, nil
	}
	var keys []string
	for _, a := range s.Axes {
		if len(a.Values) > 1 {
			keys = append(keys, fmt.Sprintf("%s: %d values", a.Key, len(a.Values)))
		}
	}
	return 0, fmt.Errorf("the cross product holds more than %d configs (%s): narrow a range, or split the sweep into several specs",
		maxConfigs, strings.Join(keys, ", "))
}

// Expand builds every config of the spec, resolves it against cat and
// decides which to skip. A config that is not a valid plan (a missing or
// out-of-range key) or names an unknown model or device is an error, as
// is a sweep that leaves nothing to run; errors name the spec file and
// the key, and the base plan file where the bad value is its own.
func Expand(s *Spec, cat *model.Catalog) (*Expansion, error) {
	return ExpandMeasured(s, cat, nil)
}

// ExpandMeasured is Expand with a measured KV capacity (a calibration
// profile's), which every config's plan resolves with
// (plan.ResolveMeasured): a config is skipped as kv_too_small only when
// the cache it would simulate with is too small.
func ExpandMeasured(s *Spec, cat *model.Catalog, kv *plan.MeasuredKV) (*Expansion, error) {
	e, err := expand(s, cat, kv)
	if err != nil {
		name := s.Path
		if name == "" {
			name = "sweep spec"
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return e, nil
}

func expand(s *Spec, cat *model.Catalog, kv *plan.MeasuredKV) (*Expansion, error) {
	baseDev := ""
	if d, ok := s.base["device"].(map[string]any); ok {
		baseDev, _ = d["model"].(string)
	}
	priced := map[string]string{} // the catalog's name → the key that prices it
	for _, dev := range sortedKeys(s.Prices) {
		hw, err := cat.Hardware(dev)
		if err != nil {
			return nil, fmt.Errorf("prices.%q: %w", dev, err)
		}
		if other, dup := priced[hw.Name]; dup {
			return nil, fmt.Errorf("prices.%q: %s is priced by %q too: want one price a device", dev, hw.Name, other)
		}
		priced[hw.Name] = dev
	}
	// A device no config can run on would make its condition silently
	// never (or always) hold.
	for i, cd := range s.Constraints.conds {
		for _, c := range cd {
			if dev, ok := c.lit.(string); ok && c.left == "device.model" && !c.rkey {
				if _, err := cat.Hardware(dev); err != nil {
					return nil, fmt.Errorf("constraints.skip_if[%d] %q: %w", i, s.Constraints.SkipIf[i], err)
				}
			}
		}
	}
	if _, err := s.Size(); err != nil {
		return nil, err
	}
	ex := &Expansion{Skipped: map[string]int{}}
	for _, st := range s.Strategies {
		var axes []Axis
		for _, a := range s.Axes {
			if d, _ := lookupKey(a.Key); d.applies(st) {
				axes = append(axes, a)
			}
		}
		idx := make([]int, len(axes))
		for {
			c, err := s.build(cat, kv, st, axes, idx, baseDev, len(ex.Configs))
			if err != nil {
				return nil, err
			}
			if c.Skip != "" {
				ex.Skipped[c.Skip]++
			}
			ex.Configs = append(ex.Configs, c)
			// odometer: the last axis varies fastest
			i := len(idx) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(axes[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	if ex.Runnable() == 0 {
		var parts []string
		for _, r := range strings.Fields(skipReasonsOrder) {
			if n := ex.Skipped[r]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, r))
			}
		}
		first := ""
		for _, c := range ex.Configs {
			if c.Skip != "" {
				first = fmt.Sprintf("; e.g. %s: %s", c.Label, c.SkipDetail)
				break
			}
		}
		return nil, fmt.Errorf("every one of the %d configs is skipped (%s)%s", len(ex.Configs), strings.Join(parts, ", "), first)
	}
	return ex, nil
}

// build makes the config at one odometer position.
func (s *Spec) build(cat *model.Catalog, kv *plan.MeasuredKV, st string, axes []Axis, idx []int, baseDev string, index int) (Config, error) {
	doc := map[string]any{}
	for k, v := range s.base {
		if m, ok := v.(map[string]any); ok {
			doc[k] = maps.Clone(m)
		} else {
			doc[k] = v
		}
	}
	section := func(name string) map[string]any {
		m, _ := doc[name].(map[string]any)
		if m == nil {
			m = map[string]any{}
			doc[name] = m
		}
		return m
	}
	set := map[string]bool{} // the keys this config gives, replacing the base plan's
	put := func(sec, key string, v any) {
		section(sec)[key] = v
		set[sec+"."+key] = true
	}
	batch := section("batch")
	put("batch", "strategy", st)
	for k, only := range batchOnly {
		keep := false
		for _, o := range only {
			keep = keep || o == st
		}
		if !keep {
			delete(batch, k)
		}
	}
	c := Config{Index: index, Replicas: 1}
	label := []string{st}
	// A [cluster] the config has anyway: the base plan's, or one other
	// swept cluster keys give.
	_, baseCluster := s.base["cluster"]
	for _, a := range axes {
		baseCluster = baseCluster || strings.HasPrefix(a.Key, "cluster.") && a.Key != "cluster.replicas"
	}
	for i, a := range axes {
		v := a.Values[idx[i]]
		label = append(label, a.Key[strings.LastIndexByte(a.Key, '.')+1:]+"="+formatValue(v))
		switch {
		case a.Key == "cluster.replicas" && s.replicasAlias:
			// The legacy replicas key: one replica is a plan without
			// [cluster] (unless it has one anyway), several sit behind
			// least_outstanding unless the base plan names a router.
			if v.(int64) == 1 && !baseCluster {
				continue
			}
			put("cluster", "replicas", v)
			if _, ok := section("cluster")["router"]; !ok {
				put("cluster", "router", sim.LeastOutstanding)
			}
		case a.Key == "rate_scale":
			c.RateScale = v.(float64)
		default:
			sec, key, _ := strings.Cut(a.Key, ".")
			put(sec, key, v)
		}
	}
	c.Label = strings.Join(label, " ")
	dev, _ := section("device")["model"].(string)
	if p, ok := s.price(cat, dev); ok {
		put("cost", "usd_per_hour", p)
	} else if deviceName(cat, dev) != deviceName(cat, baseDev) {
		hw, err := cat.Hardware(dev)
		if err != nil { // a price would not make it known
			return c, fmt.Errorf("config %d (%s): device.model: %w", c.Index, c.Label, err)
		}
		hint := ""
		if hw.PricePerHour > 0 {
			hint = fmt.Sprintf(" (the catalog's list price is %g)", hw.PricePerHour)
		}
		return c, fmt.Errorf("prices: device.model %q is swept but has no price: add [prices] %q = USD per device-hour%s", dev, dev, hint)
	}
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(doc); err != nil {
		return c, err
	}
	c.PlanTOML = buf.String()
	p, err := plan.Decode(buf.Bytes())
	if err != nil {
		return c, fmt.Errorf("config %d (%s): %w", c.Index, c.Label, err)
	}
	c.Plan = p
	c.Replicas = p.Replicas()
	// A bad value of the base plan file is named by that file and its
	// line, as loading the plan would name it; an inline one by the spec's
	// line (the caller names the spec); a swept one by the config, at
	// the spec's line that lists it.
	blame := func(key string, err error) error {
		if s.fromBase(key, set) {
			return fmt.Errorf("base %s: %w", s.basePath, atLine(s.baseText, key, err))
		}
		if s.inlineKeys[key] && !set[key] {
			return atLine(s.Text, key, err)
		}
		err = fmt.Errorf("config %d (%s): %w", c.Index, c.Label, err)
		if k, swept := s.sweptKeys[key]; swept && set[key] {
			return atKeyLine(s.Text, append(toml.Key{"sweep"}, k...), err)
		}
		return err
	}
	if _, err := cat.Arch(p.Model.Name); err != nil {
		return c, blame("model.name", fmt.Errorf("model.name: %w", err))
	}
	if _, err := cat.Hardware(p.Device.Model); err != nil {
		return c, blame("device.model", fmt.Errorf("device.model: %w", err))
	}

	for i, cd := range s.Constraints.conds {
		if cd.holds(&c) {
			c.Skip, c.SkipDetail = SkipIf, fmt.Sprintf("skip_if[%d]: %s", i, s.Constraints.SkipIf[i])
			return c, nil
		}
	}
	if m := s.Constraints.MaxDevices; m > 0 && p.Devices() > m {
		c.Skip, c.SkipDetail = SkipMaxDevices, fmt.Sprintf("%d devices > max_devices %d", p.Devices(), m)
		return c, nil
	}
	if err := p.Validate(); err != nil {
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = slices.Clone(j.Unwrap())
		}
		if combination(errs, set) {
			c.Skip, c.SkipDetail = SkipInvalid, err.Error()
			return c, nil
		}
		for i, e := range errs {
			key := ""
			if fe, ok := e.(*plan.FieldError); ok {
				key = s.ruleKey(fe, set)
			}
			errs[i] = blame(key, e)
		}
		return c, errors.Join(errs...)
	}
	r, err := p.ResolveMeasured(cat, kv)
	if err != nil {
		c.Skip, c.SkipDetail = classify(err), err.Error()
		return c, nil
	}
	cfg := r.SimConfig(plan.Options{})
	if err := cfg.Validate(); err != nil {
		c.Skip, c.SkipDetail = SkipInvalid, err.Error()
		return c, nil
	}
	if p.Clustered() {
		cc := r.ClusterConfig(plan.Options{})
		if err := cc.Validate(); err != nil {
			c.Skip, c.SkipDetail = SkipInvalid, err.Error()
			return c, nil
		}
	}
	c.Resolved = r
	return c, nil
}

// ruleKey is the key a plan error is blamed on. A rule between values is
// broken by whichever value the spec gives, however sound the other is
// where the base plan gives it: a swept one makes it the config's (""),
// an inline one the line of that value.
func (s *Spec) ruleKey(fe *plan.FieldError, set map[string]bool) string {
	if slices.ContainsFunc(fe.With, func(k string) bool { return set[k] }) {
		return ""
	}
	if s.fromBase(fe.Key, set) {
		if i := slices.IndexFunc(fe.With, func(k string) bool { return s.inlineKeys[k] }); i >= 0 {
			return fe.With[i]
		}
	}
	return fe.Key
}

// combination reports whether every error breaks a rule between two
// values, one of them swept (set): a point of the cross product no engine
// would accept, such as max_num_batched_tokens below max_num_seqs, which
// the sweep skips. A value wrong on its own is a mistake in the spec.
func combination(errs []error, set map[string]bool) bool {
	for _, e := range errs {
		fe, ok := e.(*plan.FieldError)
		if !ok || len(fe.With) == 0 || !set[fe.Key] && !slices.ContainsFunc(fe.With, func(k string) bool { return set[k] }) {
			return false
		}
	}
	return true
}

// price is the [prices] entry for dev, however its key is spelt.
func (s *Spec) price(cat *model.Catalog, dev string) (float64, bool) {
	name := deviceName(cat, dev)
	for key, p := range s.Prices {
		if deviceName(cat, key) == name {
			return p, true
		}
	}
	return 0, false
}

// deviceName is the catalog's name for dev (names are matched without
// regard to case), or dev itself when the catalog does not know it.
func deviceName(cat *model.Catalog, dev string) string {
	if hw, err := cat.Hardware(dev); err == nil {
		return hw.Name
	}
	return dev
}

// classify names the reason a plan did not resolve.
func classify(err error) string {
	switch {
	case errors.Is(err, plan.ErrWeightsDoNotFit):
		return SkipWeights
	case errors.Is(err, plan.ErrKVTooSmall):
		return SkipKVTooSmall
	}
	return SkipInvalid
}

func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// value returns a key's value in c and whether the key applies to c's
// strategy.
func (c *Config) value(key string) (any, bool) {
	p := c.Plan
	d, ok := lookupKey(key)
	if !ok || !d.applies(p.Batch.Strategy) {
		return nil, false
	}
	switch d.key {
	case strategyKey:
		return p.Batch.Strategy, true
	case "device.model":
		return p.Device.Model, true
	case "device.count":
		return int64(p.Device.Count), true
	case "cluster.replicas":
		if p.Cluster == nil {
			return int64(1), true
		}
		return int64(p.Cluster.Replicas), true
	case "cluster.router":
		if p.Cluster == nil {
			return nil, false
		}
		return p.Cluster.Router, true
	case "cluster.split_tokens":
		if !p.Split() {
			return nil, false
		}
		return int64(p.Cluster.SplitTokens), true
	case "cluster.long_replicas":
		if !p.Split() {
			return nil, false
		}
		return int64(p.Cluster.LongReplicas), true
	case "model.precision":
		return precisionName(p), true
	case "model.max_new_tokens":
		return int64(p.Model.MaxNewTokens), true
	case "device.max_model_len":
		return int64(p.Device.MaxModelLen), true
	case "device.block_size":
		return int64(p.Device.BlockSize), true
	case "device.gpu_memory_utilization":
		return p.Device.GPUMemoryUtilization, true
	case "batch.prefix_caching":
		return p.Batch.PrefixCaching, true
	case "batch.batch_size":
		return int64(p.Batch.BatchSize), true
	case "batch.max_token_budget":
		return int64(p.Batch.MaxTokenBudget), true
	case "batch.max_wait_ms":
		return p.Batch.MaxWaitMS, true
	case "batch.max_num_seqs":
		return int64(p.Batch.MaxNumSeqs), true
	case "batch.max_num_batched_tokens":
		return int64(p.Batch.MaxNumBatchedTokens), true
	case "batch.chunked_prefill":
		return p.Batch.ChunkedPrefill, true
	case "rate_scale":
		if c.RateScale == 0 {
			return nil, false
		}
		return c.RateScale, true
	}
	return nil, false
}

// cond is one skip_if condition: comparisons joined by &&.
type cond []cmpr

func parseCond(s string) (cond, error) {
	var c cond
	for _, part := range splitAnd(s) {
		p, err := parseCmp(part)
		if err != nil {
			return nil, err
		}
		c = append(c, p)
	}
	return c, nil
}

// splitAnd splits s at each && outside a quoted value: "my&&gpu" is one
// device name.
func splitAnd(s string) []string {
	var parts []string
	var quote byte // the open quote, or 0
	start := 0
	for i := 0; i < len(s); i++ {
		switch {
		case quote == '"' && s[i] == '\\':
			i++ // an escaped character does not close the string
		case quote != 0:
			if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '`':
			quote = s[i]
		case strings.HasPrefix(s[i:], "&&"):
			parts = append(parts, s[start:i])
			start = i + 2
			i++
		}
	}
	return append(parts, s[start:])
}

func (c cond) holds(cfg *Config) bool {
	for _, p := range c {
		if !p.holds(cfg) {
			return false
		}
	}
	return true
}

// cmpr is one comparison: KEY OP VALUE or KEY OP KEY.
type cmpr struct {
	left  string
	op    string
	right string // a key, when rkey
	rkey  bool
	lit   any
}

var ops = []string{"<=", ">=", "==", "!=", "<", ">"}

func parseCmp(s string) (cmpr, error) {
	var c cmpr
	pos := -1
	for _, op := range ops {
		if i := strings.Index(s, op); i >= 0 && (pos < 0 || i < pos) {
			pos, c.op = i, op
		}
	}
	if pos < 0 {
		return c, fmt.Errorf("want KEY OP VALUE with OP one of %s", strings.Join(ops, " "))
	}
	c.left = strings.TrimSpace(s[:pos])
	rhs := strings.TrimSpace(s[pos+len(c.op):])
	ld, ok := lookupKey(c.left)
	if !ok {
		return c, fmt.Errorf("unknown key %q (keys: %s)", c.left, strings.Join(Keys(), ", "))
	}
	if rd, ok := lookupKey(rhs); ok {
		c.right, c.rkey = rhs, true
		if numeric(ld.kind) != numeric(rd.kind) || (!numeric(ld.kind) && ld.kind != rd.kind) {
			return c, fmt.Errorf("%s is %s but %s is %s", c.left, ld.kind, rhs, rd.kind)
		}
		return c, c.checkOp(ld.kind)
	}
	switch {
	case rhs == "":
		return c, errors.New("missing value")
	case numeric(ld.kind):
		f, err := strconv.ParseFloat(rhs, 64)
		if err != nil {
			return c, fmt.Errorf("%s is %s: %q is neither a number nor a key", c.left, ld.kind, rhs)
		}
		if math.IsNaN(f) { // unequal to every value: the condition would hold for every config or none
			return c, fmt.Errorf("%s is %s: %q is not a number", c.left, ld.kind, rhs)
		}
		c.lit = f
	case ld.kind == kBool:
		b, err := strconv.ParseBool(rhs)
		if err != nil {
			return c, fmt.Errorf("%s is a boolean: %q is neither true nor false", c.left, rhs)
		}
		c.lit = b
	default:
		if u, err := strconv.Unquote(rhs); err == nil {
			rhs = u
		}
		lit, err := literal(ld.key, rhs)
		if err != nil {
			return c, err
		}
		c.lit = lit
	}
	return c, c.checkOp(ld.kind)
}

// literal checks a string a condition compares key with: a value no
// config can have would make the condition silently never (or always)
// hold. A precision is compared by its canonical name, as the plan reads
// it ("float8" is fp8).
func literal(key, v string) (string, error) {
	switch key {
	case strategyKey:
		if _, ok := plan.Strategies[v]; !ok {
			return "", fmt.Errorf("unknown strategy %q (want one of %s)", v, strings.Join(sortedKeys(plan.Strategies), ", "))
		}
	case "cluster.router":
		if !slices.Contains(sim.Routers, v) {
			return "", fmt.Errorf("unknown router %q (want one of %s)", v, strings.Join(sim.Routers, ", "))
		}
	case "model.precision":
		p, err := model.ParsePrecision(v)
		if err != nil {
			return "", err
		}
		return string(p), nil
	}
	return v, nil
}

// precisionName is p's precision by the catalog's name ("bf16" for a
// plan's "bfloat16"), as the simulated trace's metadata names it; as
// written where it names none.
func precisionName(p *plan.Plan) string {
	if prec, err := model.ParsePrecision(p.Model.Precision); err == nil {
		return prec.String()
	}
	return p.Model.Precision
}

func numeric(k kind) bool { return k == kInt || k == kFloat }

func (c cmpr) checkOp(k kind) error {
	if !numeric(k) && c.op != "==" && c.op != "!=" {
		return fmt.Errorf("%s is %s: only == and != compare it", c.left, k)
	}
	return nil
}

func (c cmpr) holds(cfg *Config) bool {
	l, ok := cfg.value(c.left)
	if !ok {
		return false
	}
	r := c.lit
	if c.rkey {
		if r, ok = cfg.value(c.right); !ok {
			return false
		}
	}
	if lf, ok := asFloat(l); ok {
		rf, _ := asFloat(r)
		switch c.op {
		case "<":
			return lf < rf
		case "<=":
			return lf <= rf
		case ">":
			return lf > rf
		case ">=":
			return lf >= rf
		case "==":
			return lf == rf
		case "!=":
			return lf != rf
		}
	}
	eq := l == r
	if c.left == "device.model" { // as the catalog and [prices] match names
		ls, _ := l.(string)
		rs, _ := r.(string)
		eq = strings.EqualFold(strings.TrimSpace(ls), strings.TrimSpace(rs))
	}
	if c.op == "==" {
		return eq
	}
	return !eq
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return math.NaN(), false
}
