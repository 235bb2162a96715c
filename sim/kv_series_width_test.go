package sim

import (
	"reflect"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestKVSeriesIgnoresWarmupAfterWindow: the series is the window's, so a
// warm-up row decoding long after the window's end neither adds points
// nor widens the buckets of those inside it. a (10 + 20 tokens) is the
// only measured request; w decodes 60 or 6000 tokens, on in the same
// engine (Run) or a replica of its own (cluster, whose window is a's).
func TestKVSeriesIgnoresWarmupAfterWindow(t *testing.T) {
	reqs := func(warmOut int32) []*traces.Request {
		w := req("w", 0, 10, warmOut)
		w.Warmup = true
		return []*traces.Request{w, req("a", 100, 10, 20)}
	}
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 1000, noSkip)
		short, _ := mustRun(t, cfg, reqs(60))
		long, _ := mustRun(t, cfg, reqs(6000))
		if !reflect.DeepEqual(short.KV.Series, long.KV.Series) {
			t.Errorf("Run: KV series %v with the warm-up row 60 tokens long, %v 6000 long", short.KV.Series, long.KV.Series)
		}
		for i := range 2 {
			cshort, _ := mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader(reqs(60)))
			clong, _ := mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader(reqs(6000)))
			if a, b := cshort.Pools[0].Replicas[i].KV.Series, clong.Pools[0].Replicas[i].KV.Series; !reflect.DeepEqual(a, b) {
				t.Errorf("replica %d: KV series %v with the warm-up row 60 tokens long, %v 6000 long", i, a, b)
			}
		}
	})
}
