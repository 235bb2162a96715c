package telemetry

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzEngineCapacityOf: any /metrics page gives no capacity, an error
// that names the line, or a capacity calibrate can record (tokens 1 to
// 2^31-1, blocks × block size = tokens when blocks are counted,
// utilization in [0, 1]). The seed corpus is in
// testdata/fuzz/FuzzEngineCapacityOf, with the real pages of testdata.
func FuzzEngineCapacityOf(f *testing.F) {
	pages, _ := filepath.Glob("testdata/*.prom")
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(vllmCachePage))
	f.Fuzz(func(t *testing.T, page []byte) {
		c, err := EngineCapacityOf(page)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "metrics line ") {
				t.Fatalf("error %q does not name the line", err)
			}
			return
		}
		if c == nil {
			return
		}
		if c.Tokens <= 0 || c.Tokens > math.MaxInt32 || c.Blocks < 0 || c.BlockSize < 0 ||
			(c.Blocks > 0) != (c.BlockSize > 0) || (c.Blocks > 0 && c.Blocks*int64(c.BlockSize) != c.Tokens) ||
			!(c.GPUMemoryUtilization >= 0 && c.GPUMemoryUtilization <= 1) || c.Metric == "" {
			t.Fatalf("accepted %+v", *c)
		}
	})
}
