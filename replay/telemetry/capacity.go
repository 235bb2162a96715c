package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// EngineCapacity is the KV-cache capacity an engine reports on its
// /metrics page: exact, unlike what a run sees held at once.
type EngineCapacity struct {
	Metric    string // the metric it came from, e.g. "vllm:cache_config_info"
	Tokens    int64  // > 0
	Blocks    int64  // 0 when the engine does not count blocks
	BlockSize int    // tokens per block; 0 when not given
	// GPUMemoryUtilization is the fraction of device memory the engine
	// was started with; 0 when not given.
	GPUMemoryUtilization float64
}

// EngineCapacityOf reads the KV capacity from a /metrics page: vLLM's
// info metric vllm:cache_config_info (labels num_gpu_blocks, block_size,
// gpu_memory_utilization) or SGLang's gauge sglang:max_total_num_tokens,
// named before the braces or quoted inside them.
// It returns nil when the page has neither (or vLLM has not sized its
// cache yet: num_gpu_blocks="None"), and an error naming the line when
// one is malformed. Series that differ only in an engine's own ranks
// (oneEngineRanks) are one engine; several engines (models, data-parallel
// ranks) on one page report no one capacity, and give nil.
func EngineCapacityOf(page []byte) (*EngineCapacity, error) {
	var (
		found *EngineCapacity
		seen  = map[string]bool{}
	)
	for lineNo, line := range bytes.Split(page, []byte{'\n'}) {
		s := strings.TrimLeft(strings.TrimSuffix(string(line), "\r"), " \t")
		if !isSampleOf(s, "vllm:cache_config_info") && !isSampleOf(s, "sglang:max_total_num_tokens") {
			continue // another metric's line, malformed or not, is not ours to judge
		}
		m, err := parseSampleLine(s)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: %w", lineNo+1, err)
		}
		var c *EngineCapacity
		switch m.Name {
		case "vllm:cache_config_info":
			c, err = vllmCapacity(&m)
		case "sglang:max_total_num_tokens":
			c, err = sglangCapacity(&m)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: %s: %w", lineNo+1, m.Name, err)
		}
		// An engine whose cache is not sized yet is an engine all the same:
		// beside another, neither capacity is the page's.
		if key := engineSeriesKey(&m); !seen[key] {
			seen[key] = true
			if len(seen) > 1 {
				return nil, nil // several engines: no one capacity
			}
		}
		if found == nil {
			found = c
		}
	}
	return found, nil
}

// isSampleOf says whether line s is a sample of the metric called name,
// written before the braces or quoted inside them as their first item
// ({"name",a="b"} 1, as ParseMetrics reads it), and not of a longer name
// that begins with it.
func isSampleOf(s, name string) bool {
	return startsWithMetric(s, name) || startsWithQuotedName(s, name)
}

// startsWithQuotedName says whether s opens a label set whose first item
// is name quoted: followed by a comma or the closing brace, not '=' (a
// quoted label key). Our names need no escapes, so the quoted bytes match.
func startsWithQuotedName(s, name string) bool {
	if !strings.HasPrefix(s, "{") {
		return false
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(s[1:], " \t"), `"`+name+`"`)
	rest = strings.TrimLeft(rest, " \t")
	return ok && rest != "" && (rest[0] == ',' || rest[0] == '}')
}

// startsWithMetric says whether line s is a sample of the metric called
// name, not of a longer name that begins with it.
func startsWithMetric(s, name string) bool {
	if !strings.HasPrefix(s, name) {
		return false
	}
	rest := s[len(name):]
	return rest == "" || rest[0] == '{' || rest[0] == ' ' || rest[0] == '\t'
}

func vllmCapacity(m *MetricSample) (*EngineCapacity, error) {
	blocksText := m.Label("num_gpu_blocks")
	if blocksText == "" || blocksText == "None" {
		return nil, nil // the cache is not sized yet
	}
	blocks, err := strconv.ParseInt(blocksText, 10, 64)
	if err != nil || blocks <= 0 || blocks > math.MaxInt32 {
		return nil, fmt.Errorf("label num_gpu_blocks=%q: want a block count from 1 to %d", blocksText, math.MaxInt32)
	}
	bsText := m.Label("block_size")
	bs, err := strconv.Atoi(bsText)
	// block_size past 2^31 first: its product with blocks could wrap.
	if err != nil || bs <= 0 || bs > math.MaxInt32 || int64(bs)*blocks > math.MaxInt32 {
		return nil, fmt.Errorf("label block_size=%q: want tokens per block > 0 (num_gpu_blocks=%d)", bsText, blocks)
	}
	c := &EngineCapacity{Metric: m.Name, Tokens: blocks * int64(bs), Blocks: blocks, BlockSize: bs}
	if u := m.Label("gpu_memory_utilization"); u != "" && u != "None" {
		f, err := strconv.ParseFloat(u, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return nil, fmt.Errorf("label gpu_memory_utilization=%q: want a fraction in (0, 1]", u)
		}
		c.GPUMemoryUtilization = f
	}
	return c, nil
}

func sglangCapacity(m *MetricSample) (*EngineCapacity, error) {
	v := m.Value
	if !(v >= 1 && v <= math.MaxInt32) || v != math.Trunc(v) {
		return nil, fmt.Errorf("value %v: want a whole number of tokens from 1 to %d", v, math.MaxInt32)
	}
	return &EngineCapacity{Metric: m.Name, Tokens: int64(v)}, nil
}

// ReadEngineCapacity fetches the /metrics page of the engine at baseURL
// (as ScrapeConfig.URL takes it) once and reads its KV capacity:
// nil without an error when the engine has no /metrics or reports none.
// It waits PreRunWait at most for the page, whatever client's timeout.
func ReadEngineCapacity(ctx context.Context, client *http.Client, baseURL string) (*EngineCapacity, error) {
	u, shown, err := metricsURL(baseURL)
	if err != nil {
		return nil, err
	}
	body, err := fetchMetricsWithin(ctx, client, u, shown, PreRunWait)
	switch {
	case errors.Is(err, ErrNoMetrics):
		return nil, nil
	case err != nil:
		return nil, err
	}
	c, err := EngineCapacityOf(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return c, nil
}
