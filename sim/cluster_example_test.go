package sim_test

import (
	"context"
	"fmt"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Four replicas behind a round-robin router: each gets a quarter of the
// requests, and the summary covers all of them.
func ExampleRunCluster() {
	rep := sim.DefaultConfig()
	rep.Step = sim.Linear{C0: 6e-3, Cp: 2.5e-5, Cd: 5e-5, Ck: 4e-8}
	rep.TotalBlocks = 20000
	cc := sim.ClusterConfig{Pools: []sim.PoolConfig{{Name: "all", Replicas: 4, Router: sim.RoundRobin, Replica: rep}}}

	syn := traces.DefaultSynthConfig()
	syn.Requests = 400
	in, err := traces.Synthesize(syn)
	if err != nil {
		panic(err)
	}
	sum, err := sim.RunCluster(context.Background(), cc, in, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("completed:", sum.Completed)
	for i, r := range sum.Pools[0].Replicas {
		fmt.Printf("replica %d: %d requests\n", i, r.Requests)
	}
	fmt.Printf("device-seconds / makespan: %.3f\n", sum.DeviceSeconds/sum.Makespan)
	// Output:
	// completed: 400
	// replica 0: 100 requests
	// replica 1: 100 requests
	// replica 2: 100 requests
	// replica 3: 100 requests
	// device-seconds / makespan: 4.000
}
