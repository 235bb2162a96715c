package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const vllmCachePage = `# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",gpu_memory_utilization="0.9",num_cpu_blocks="None",num_gpu_blocks="28067",swap_space="4"} 1.0
vllm:num_requests_running{model_name="m"} 0.0
`

func TestEngineCapacityVLLMInfoLabels(t *testing.T) {
	c, err := EngineCapacityOf([]byte(vllmCachePage))
	if err != nil || c == nil {
		t.Fatalf("got %+v, %v", c, err)
	}
	want := EngineCapacity{Metric: "vllm:cache_config_info", Tokens: 28067 * 16, Blocks: 28067, BlockSize: 16, GPUMemoryUtilization: 0.9}
	if *c != want {
		t.Errorf("got %+v, want %+v", *c, want)
	}
}

func TestEngineCapacitySGLangPerTPRank(t *testing.T) {
	page := "sglang:max_total_num_tokens{model_name=\"m\",tp_rank=\"0\"} 471258.0\n" +
		"sglang:max_total_num_tokens{model_name=\"m\",tp_rank=\"1\"} 471258.0\n"
	c, err := EngineCapacityOf([]byte(page))
	if err != nil || c == nil || c.Tokens != 471258 || c.Blocks != 0 || c.BlockSize != 0 {
		t.Fatalf("got %+v, %v; want 471258 tokens, no blocks", c, err)
	}
}

func TestEngineCapacityMissing(t *testing.T) {
	for name, page := range map[string]string{
		"no metric":   "vllm:num_requests_running 1\n",
		"not sized":   `vllm:cache_config_info{block_size="16",num_gpu_blocks="None"} 1` + "\n",
		"two engines": "sglang:max_total_num_tokens{dp_rank=\"0\"} 100\nsglang:max_total_num_tokens{dp_rank=\"1\"} 100\n",
		"one of two engines sized": `vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="100"} 1` + "\n" +
			`vllm:cache_config_info{block_size="16",engine="1",num_gpu_blocks="None"} 1` + "\n",
		"empty": "",
	} {
		if c, err := EngineCapacityOf([]byte(page)); c != nil || err != nil {
			t.Errorf("%s: got %+v, %v; want nil, nil", name, c, err)
		}
	}
}

func TestEngineCapacityMalformedNamesLine(t *testing.T) {
	for page, want := range map[string]string{
		"# x\nvllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"lots\"} 1\n":                                  `metrics line 2: vllm:cache_config_info: label num_gpu_blocks="lots"`,
		"vllm:cache_config_info{block_size=\"0\",num_gpu_blocks=\"10\"} 1\n":                                          `metrics line 1: vllm:cache_config_info: label block_size="0"`,
		"a 1\nb 2\nvllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"10\",gpu_memory_utilization=\"90\"} 1\n": `metrics line 3: vllm:cache_config_info: label gpu_memory_utilization="90"`,
		"sglang:max_total_num_tokens 12.5\n":                                                                          "metrics line 1: sglang:max_total_num_tokens: value 12.5",
		"x 1\nsglang:max_total_num_tokens{a=\"b\" 3\n":                                                                "metrics line 2: ",
	} {
		_, err := EngineCapacityOf([]byte(page))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", page, err, want)
		}
	}
}

func TestReadEngineCapacityFromAPIBase(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(vllmCachePage))
	}))
	defer srv.Close()
	c, err := ReadEngineCapacity(context.Background(), srv.Client(), srv.URL+"/v1")
	if err != nil || c == nil || c.Blocks != 28067 {
		t.Fatalf("got %+v, %v", c, err)
	}
	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	if c, err := ReadEngineCapacity(context.Background(), none.Client(), none.URL+"/v1"); c != nil || err != nil {
		t.Errorf("no /metrics: got %+v, %v; want nil, nil", c, err)
	}
}

// A malformed line of another metric whose name only starts with
// vllm:cache_config_info is not the capacity's line.
func TestEngineCapacityIgnoresLongerNames(t *testing.T) {
	page := "vllm:cache_config_info_extra{block_size=\"16\" 1\n" +
		"sglang:max_total_num_tokens_limit{a=\"b\" 3\n" + vllmCachePage
	c, err := EngineCapacityOf([]byte(page))
	if err != nil || c == nil || c.Blocks != 28067 {
		t.Fatalf("got %+v, %v; want the 28067 blocks of vllm:cache_config_info", c, err)
	}
}

// The quoted-name form (Prometheus 3 text, the name inside the braces),
// which ParseMetrics reads, carries the capacity too; a quoted label key
// that spells the metric's name is not the metric.
func TestEngineCapacityQuotedName(t *testing.T) {
	for page, want := range map[string]int64{
		`{"vllm:cache_config_info",block_size="16",num_gpu_blocks="100"} 1` + "\n":   1600,
		`{ "vllm:cache_config_info" , block_size="16",num_gpu_blocks="10"} 1` + "\n": 160,
		`{"sglang:max_total_num_tokens"} 4096` + "\n":                                4096,
		`{"sglang:max_total_num_tokens",tp_rank="0"} 4096` + "\n":                    4096,
		`x{"sglang:max_total_num_tokens"="1"} 4096` + "\n":                           0,
		`{"sglang:max_total_num_tokens_x"} 4096` + "\n":                              0,
	} {
		c, err := EngineCapacityOf([]byte(page))
		var got int64 // a capacity has tokens > 0
		if c != nil {
			got = c.Tokens
		}
		if err != nil || got != want {
			t.Errorf("%q: got %d tokens (%+v), %v; want %d", page, got, c, err, want)
		}
	}
	if _, err := EngineCapacityOf([]byte(`{"sglang:max_total_num_tokens"} 0.5` + "\n")); err == nil || !strings.Contains(err.Error(), "metrics line 1: sglang:max_total_num_tokens: value") {
		t.Errorf("a malformed quoted-name line: got %v, want its line named", err)
	}
}

// ReadEngineCapacity bounds its own wait: a caller whose client has no
// timeout is not held by a hung /metrics, and the error names the page.
func TestReadEngineCapacityWaitsAFewSecondsAtMost(t *testing.T) {
	srv := hungMetricsServer(t)
	type read struct {
		c   *EngineCapacity
		err error
	}
	done := make(chan read, 1)
	begin := time.Now()
	go func() {
		c, err := ReadEngineCapacity(context.Background(), &http.Client{}, srv.URL+"/v1")
		done <- read{c, err}
	}()
	select {
	case got := <-done:
		if waited := time.Since(begin); waited > PreRunWait+2*time.Second {
			t.Errorf("returned after %v, want at most about %v", waited, PreRunWait)
		}
		if got.c != nil || got.err == nil || !strings.Contains(got.err.Error(), srv.URL+"/metrics: no page within") {
			t.Errorf("got %+v, %v: want nil and an error naming the page not given", got.c, got.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("ReadEngineCapacity still waiting on a hung /metrics after 15 s")
	}
}
