package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/traces"
)

const azureConv = "../testdata/azure2023/AzureLLMInferenceTrace_conv.csv"

// head opens the first n requests of the Azure conversation trace with its
// arrivals multiplied by timeScale (0.1 = ten times the rate).
func head(t *testing.T, n int, timeScale float64) traces.Reader {
	t.Helper()
	in, err := traces.Import(azureConv, traces.FormatAuto, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	r, err := traces.Scale(traces.Slice(in, 0, 0, n), timeScale)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rowWriter renders every row written, in order.
type rowWriter struct {
	buf  bytes.Buffer
	rows int
}

func (w *rowWriter) Write(r *traces.Request) error {
	w.rows++
	fmt.Fprintf(&w.buf, "%+v\n", *r)
	return nil
}
func (w *rowWriter) Close() error { return nil }
func (w *rowWriter) Abort()       {}

func withCluster(section string) string { return valid + "\n[cluster]\n" + section }

func mustResolve(t *testing.T, text string) *Resolved {
	t.Helper()
	p, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func simulate(t *testing.T, r *Resolved, in traces.Reader) (*Result, *rowWriter) {
	t.Helper()
	w := &rowWriter{}
	res, err := r.Simulate(context.Background(), "test", in, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res, w
}

func TestClusterParseErrors(t *testing.T) {
	for _, c := range []struct{ name, section, want string }{
		{"unknown key", "replicas = 2\nrouter = \"round_robin\"\nreplica = 3\n", "unknown key cluster.replica"},
		{"missing router", "replicas = 2\n", "missing required key cluster.router"},
		{"missing replicas", "router = \"round_robin\"\n", "missing required key cluster.replicas"},
		{"empty section", "", "missing required key cluster.replicas, cluster.router"},
		{"split without long_replicas", "replicas = 2\nrouter = \"round_robin\"\nsplit_tokens = 2048\n", "missing required key cluster.long_replicas"},
		{"long_replicas without split", "replicas = 2\nrouter = \"round_robin\"\nlong_replicas = 1\n", "missing required key cluster.split_tokens"},
		{"split_on_prompt alone", "replicas = 2\nrouter = \"round_robin\"\nsplit_on_prompt = true\n", "cluster.split_on_prompt: needs"},
		{"bad router", "replicas = 2\nrouter = \"random\"\n", `cluster.router: unknown router "random"`},
		{"zero replicas", "replicas = 0\nrouter = \"round_robin\"\n", "cluster.replicas: must be ≥ 1"},
		{"zero split", "replicas = 2\nrouter = \"round_robin\"\nsplit_tokens = 0\nlong_replicas = 1\n", "cluster.split_tokens: must be ≥ 1"},
		{"zero long", "replicas = 2\nrouter = \"round_robin\"\nsplit_tokens = 100\nlong_replicas = 0\n", "cluster.long_replicas: must be ≥ 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(withCluster(c.section)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestClusterExamplePlans(t *testing.T) {
	for _, c := range []struct {
		file, label       string
		replicas, devices int
		clustered, split  bool
	}{
		{"testdata/cluster.toml", "4× least_outstanding", 4, 4, true, false},
		{"testdata/split.toml", "short 4 + long 2 @2048 least_outstanding", 6, 6, true, true},
	} {
		p, err := Load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.ClusterLabel(); got != c.label {
			t.Errorf("%s: ClusterLabel = %q, want %q", c.file, got, c.label)
		}
		if got := p.BatchLimit(); got != "seqs=256 tok=8192 chunked; "+c.label {
			t.Errorf("%s: BatchLimit = %q", c.file, got)
		}
		if p.Replicas() != c.replicas || p.Devices() != c.devices || p.Clustered() != c.clustered || p.Split() != c.split {
			t.Errorf("%s: replicas %d devices %d clustered %v split %v", c.file, p.Replicas(), p.Devices(), p.Clustered(), p.Split())
		}
		// the plan survives Encode → Parse
		data, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: re-encoded plan: %v\n%s", c.file, err, data)
		}
		if *q.Cluster != *p.Cluster {
			t.Errorf("%s: cluster %+v after a round trip, want %+v", c.file, *q.Cluster, *p.Cluster)
		}
	}
	prompt := strings.Replace(withCluster("replicas = 3\nrouter = \"prefix_affinity\"\nsplit_tokens = 512\nlong_replicas = 1\nsplit_on_prompt = true\n"), "count = 1", "count = 2", 1)
	p, err := Parse([]byte(prompt))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ClusterLabel(); got != "short 3 + long 1 @prompt≤512 prefix_affinity" || p.Devices() != 8 {
		t.Errorf("ClusterLabel = %q, devices %d", got, p.Devices())
	}
}

// TestNoClusterSectionUnchanged: a plan without [cluster] encodes without
// one and describes its batch limit as before.
func TestNoClusterSectionUnchanged(t *testing.T) {
	p, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("cluster")) || p.ClusterLabel() != "" || p.Clustered() || p.Replicas() != 1 || p.Devices() != 1 {
		t.Errorf("plan without [cluster]: label %q clustered %v\n%s", p.ClusterLabel(), p.Clustered(), data)
	}
}

// TestClusterOneReplicaIdentical: [cluster] replicas = 1 behind a round
// robin writes byte-identical rows and the same summary and cost as a plan
// without [cluster].
func TestClusterOneReplicaIdentical(t *testing.T) {
	base, bw := simulate(t, mustResolve(t, valid), head(t, 300, 1))
	one, ow := simulate(t, mustResolve(t, withCluster("replicas = 1\nrouter = \"round_robin\"\n")), head(t, 300, 1))
	if bw.rows != 300 || !bytes.Equal(bw.buf.Bytes(), ow.buf.Bytes()) {
		t.Fatalf("rows differ (%d vs %d)", bw.rows, ow.rows)
	}
	if fmt.Sprintf("%+v %+v", *base.Summary, base.Cost) != fmt.Sprintf("%+v %+v", *one.Summary, one.Cost) || one.Pools != nil {
		t.Errorf("summary or cost differ:\n%+v\n%+v", *base.Summary, *one.Summary)
	}
}

// TestClusterTwoReplicasHalveLoad: on an overloaded trace two replicas
// each get about half the requests, the mean TTFT drops, and device-seconds
// and cost count both replicas.
func TestClusterTwoReplicasHalveLoad(t *testing.T) {
	const n, scale = 400, 0.05 // 20× the trace's rate overloads one H100
	one, _ := simulate(t, mustResolve(t, valid), head(t, n, scale))
	two, w := simulate(t, mustResolve(t, withCluster("replicas = 2\nrouter = \"least_outstanding\"\n")), head(t, n, scale))
	if w.rows != n || two.Summary.Requests != n || len(two.Pools) != 1 || len(two.Pools[0].Replicas) != 2 {
		t.Fatalf("%d rows, %d requests, pools %+v", w.rows, two.Summary.Requests, two.Pools)
	}
	for i, r := range two.Pools[0].Replicas {
		if r.Requests < n/2-n/10 || r.Requests > n/2+n/10 {
			t.Errorf("replica %d got %d of %d requests", i, r.Requests, n)
		}
		if len(r.KV.Series) == 0 {
			t.Errorf("replica %d lost its KV series: the report draws the cluster's KV use from them", i)
		}
	}
	if !(two.Summary.TTFT.Mean < 0.8*one.Summary.TTFT.Mean) {
		t.Errorf("mean TTFT: 2 replicas %gs, 1 replica %gs", two.Summary.TTFT.Mean, one.Summary.TTFT.Mean)
	}
	s := two.Summary
	if d := s.DeviceSeconds - 2*s.Makespan; d*d > 1e-12 || two.Cost.DeviceSeconds != s.DeviceSeconds {
		t.Errorf("device-seconds %g (cost %g), makespan %g: want 2 devices held", s.DeviceSeconds, two.Cost.DeviceSeconds, s.Makespan)
	}
}

func TestClusterSplitReportsTwoPools(t *testing.T) {
	const n = 300
	r := mustResolve(t, withCluster("replicas = 2\nrouter = \"round_robin\"\nsplit_tokens = 1024\nlong_replicas = 1\n"))
	res, w := simulate(t, r, head(t, n, 0.2))
	if len(res.Pools) != 2 || res.Pools[0].Name != ShortPool || res.Pools[1].Name != LongPool {
		t.Fatalf("pools %+v", res.Pools)
	}
	short, long := res.Pools[0], res.Pools[1]
	if len(short.Replicas) != 2 || len(long.Replicas) != 1 || short.Requests == 0 || long.Requests == 0 ||
		short.Requests+long.Requests != n || w.rows != n {
		t.Errorf("short %d replicas %d requests, long %d replicas %d requests, %d rows", len(short.Replicas), short.Requests, len(long.Replicas), long.Requests, w.rows)
	}
	if d := res.Summary.DeviceSeconds - 3*res.Summary.Makespan; d*d > 1e-12 {
		t.Errorf("device-seconds %g over %g s: want 3 devices", res.Summary.DeviceSeconds, res.Summary.Makespan)
	}
}

func TestClusterRejectsDecisions(t *testing.T) {
	r := mustResolve(t, withCluster("replicas = 2\nrouter = \"round_robin\"\n"))
	_, err := r.Simulate(context.Background(), "c", head(t, 10, 1), nil, Options{Decisions: io.Discard})
	if !errors.Is(err, ErrDecisionsInCluster) || !strings.Contains(err.Error(), "2× round_robin") {
		t.Fatalf("err = %v", err)
	}
}
