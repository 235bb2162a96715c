package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/traces"
)

// ClusterConfig is a deployment of replicas behind routers: one pool, or
// two pools split by request length so that short and long requests run
// on separate replica groups.
type ClusterConfig struct {
	Pools []PoolConfig
	// Threshold splits requests by length: a request of at most Threshold
	// tokens goes to Pools[0], a longer one to Pools[1]. 0 means one pool.
	// The length is prompt + output tokens (both clamped to ≥ 1), which
	// assumes the router knows, or predicts well, how long the answer will
	// be; set PromptOnly for a router that only sees the prompt. The output
	// is capped by Pools[0].Replica.MaxNewTokens, as the short pool would
	// run it: a request goes short when it runs short there.
	Threshold  int
	PromptOnly bool
}

// PoolConfig is a group of identical replicas behind one router.
type PoolConfig struct {
	Name     string // for reports; "" becomes "pool<i>"
	Replicas int
	Router   string // RoundRobin, LeastOutstanding or PrefixAffinity
	Replica  Config // every replica's configuration (Decisions must be nil)

	// AffinityLoadCap (prefix_affinity): fall back to least outstanding
	// when the preferred replica's outstanding count exceeds this many
	// times the pool mean by at least one request. 0 means
	// DefaultAffinityLoadCap; otherwise ≥ 1, and only with PrefixAffinity.
	AffinityLoadCap float64
	// AffinityRecord (prefix_affinity): prefix hashes the router remembers
	// per replica. 0 means as many as fit in the replica's KV memory
	// (TotalBlocks × BlockSize / the tokens one hash covers). Non-zero only
	// with PrefixAffinity.
	AffinityRecord int
}

// DefaultClusterConfig returns one pool of n replicas of replica behind a
// least-outstanding router.
func DefaultClusterConfig(replica Config, n int) ClusterConfig {
	return ClusterConfig{Pools: []PoolConfig{{Name: "pool0", Replicas: n, Router: LeastOutstanding, Replica: replica}}}
}

// Validate reports the first invalid field, named by its path
// (ClusterConfig.Pools[1].Replica.TotalBlocks).
func (c *ClusterConfig) Validate() error {
	switch {
	case c.Threshold < 0:
		return fmt.Errorf("sim: ClusterConfig.Threshold = %d: want ≥ 0 (0 = one pool)", c.Threshold)
	case c.Threshold == 0 && len(c.Pools) != 1:
		return fmt.Errorf("sim: ClusterConfig.Pools has %d pools and Threshold = 0: want 1 pool (or Threshold > 0 and 2 pools)", len(c.Pools))
	case c.Threshold > 0 && len(c.Pools) != 2:
		return fmt.Errorf("sim: ClusterConfig.Pools has %d pools and Threshold = %d: want 2 (short, long)", len(c.Pools), c.Threshold)
	case c.PromptOnly && c.Threshold == 0:
		// Without a split there is no length to compare.
		return errors.New("sim: ClusterConfig.PromptOnly is set and Threshold = 0: PromptOnly needs a split (Threshold > 0)")
	}
	for i := range c.Pools {
		p := &c.Pools[i]
		field := fmt.Sprintf("ClusterConfig.Pools[%d]", i)
		switch {
		case p.Replicas < 1:
			return fmt.Errorf("sim: %s.Replicas = %d: want ≥ 1", field, p.Replicas)
		case !slices.Contains(Routers, p.Router):
			return fmt.Errorf("sim: %s.Router = %q: want one of %s", field, p.Router, strings.Join(Routers, ", "))
		case p.AffinityLoadCap != 0 && !(p.AffinityLoadCap >= 1 && !math.IsInf(p.AffinityLoadCap, 0)):
			return fmt.Errorf("sim: %s.AffinityLoadCap = %v: want 0 (default %v) or a finite number ≥ 1", field, p.AffinityLoadCap, DefaultAffinityLoadCap)
		case p.AffinityRecord < 0:
			return fmt.Errorf("sim: %s.AffinityRecord = %d: want ≥ 0", field, p.AffinityRecord)
		case p.AffinityLoadCap != 0 && p.Router != PrefixAffinity:
			// Only the affinity router reads it: refuse rather than ignore.
			return fmt.Errorf("sim: %s.AffinityLoadCap = %v needs Router %s (Router = %q)", field, p.AffinityLoadCap, PrefixAffinity, p.Router)
		case p.AffinityRecord != 0 && p.Router != PrefixAffinity:
			return fmt.Errorf("sim: %s.AffinityRecord = %d needs Router %s (Router = %q)", field, p.AffinityRecord, PrefixAffinity, p.Router)
		case p.Replica.Decisions != nil:
			return fmt.Errorf("sim: %s.Replica.Decisions is set: decision logs are per replica and not supported in a cluster", field)
		}
		if err := p.Replica.Validate(); err != nil {
			return &fieldError{field: field + ".Replica", err: err}
		}
		for j := range i {
			if n := poolName(c, i); n == poolName(c, j) {
				return fmt.Errorf("sim: %s.Name = %q: already the name of Pools[%d]", field, n, j)
			}
		}
	}
	return nil
}

func poolName(c *ClusterConfig, i int) string {
	if n := c.Pools[i].Name; n != "" {
		return n
	}
	return fmt.Sprintf("pool%d", i)
}

// fieldError prefixes an error from a nested Validate with the path of the
// field that holds the nested value.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), "sim: ")
	// "Config.X = …" names the nested field: splice it onto the path.
	if rest, ok := strings.CutPrefix(msg, "Config."); ok {
		return "sim: " + e.field + "." + rest
	}
	return "sim: " + e.field + ": " + msg
}

func (e *fieldError) Unwrap() error { return e.err }

// RunCluster simulates cc over the requests of in (in arrival order) and
// streams one row per request to out (nil: no rows). It reads in to the
// end but closes neither.
//
// Each replica is an engine like Run's. The cluster feeds arrivals one at a
// time: it advances every replica that has an iteration starting before
// the arrival (a single queue of replicas ordered by their next iteration
// time; idle replicas are not touched), picks the pool by length, lets the
// pool's router choose a replica from what a router can see, and hands the
// request over; at the end it drains every replica. Replicas only
// interact through routing, so a one-replica cluster reproduces Run
// exactly, rows and all.
//
// Rows are written in input order, as Run writes them, whichever replica
// served each request. The ClusterSummary is returned
// even when err is not nil; a static-policy OOM on any replica ends the run
// with an *OOMError, and every request the cluster did not serve gets a row
// marked not run, as in Run. The run ends at the OOM on every replica: no
// step starts after it, and a request finished after it was not served,
// with event skipping as when stepping.
func RunCluster(ctx context.Context, cc ClusterConfig, in traces.Reader, out traces.Writer) (*ClusterSummary, error) {
	if err := cc.Validate(); err != nil {
		return nil, err
	}
	if in == nil {
		return nil, errors.New("sim: RunCluster: nil input reader")
	}
	rows := newRowOrder(out)
	c := newCluster(&cc, in.Meta(), rows)
	a := &arrivals{in: in}
	err := c.run(ctx, a)
	engines := make([]*engine, len(c.reps))
	for i, rp := range c.reps {
		engines[i] = rp.e
	}
	c.unarrived, err = finishRun(err, rows, engines, a.leftover)
	return c.summary(), err
}

type cluster struct {
	cc    *ClusterConfig
	pools []*pool
	reps  []*replica // every replica, pools in order
	queue replicaQueue
	iters int64
	// canOOM holds the replicas whose static batches could run out of
	// memory, ending the run: the others' stretches stop before that.
	canOOM []*replica
	opened bool // a request other than a warm-up row has arrived
	// unarrived counts the measured requests an OOM stopped the run
	// before they reached a replica: the cluster's requests, no pool's.
	unarrived int64
}

type pool struct {
	name   string
	cfg    Config
	router router
	reps   []*replica
	load   []int64 // scratch: outstanding per replica at the current arrival
}

type replica struct {
	e    *engine
	id   int // position in cluster.reps: the queue's tie-break
	qidx int // position in the queue
}

func newCluster(cc *ClusterConfig, meta traces.Meta, out *rowOrder) *cluster {
	c := &cluster{cc: cc}
	for i := range cc.Pools {
		pc := &cc.Pools[i]
		p := &pool{name: poolName(cc, i), cfg: pc.Replica, load: make([]int64, pc.Replicas)}
		hashBS := hashBlockSize(&p.cfg, meta)
		p.router = newRouter(pc, int(int64(p.cfg.TotalBlocks)*int64(p.cfg.BlockSize)/int64(hashBS)))
		for j := range pc.Replicas {
			rp := &replica{e: newEngine(&p.cfg, meta, out), id: len(c.reps)}
			if len(cc.Pools) > 1 || pc.Replicas > 1 {
				rp.e.where = fmt.Sprintf("replica %d of pool %s", j+1, p.name)
			}
			p.reps = append(p.reps, rp)
			c.reps = append(c.reps, rp)
			c.queue.push(rp)
			if rp.e.canOOM {
				c.canOOM = append(c.canOOM, rp)
			}
		}
		c.pools = append(c.pools, p)
	}
	return c
}

func (c *cluster) run(ctx context.Context, a *arrivals) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for {
		r, err := a.next()
		if err != nil {
			return err
		}
		if r == nil {
			return c.advance(ctx, math.MaxInt64)
		}
		t := r.Arrival
		a.inHand = r
		if err := c.advance(ctx, t); err != nil {
			return err
		}
		a.inHand = nil
		for _, rp := range c.reps {
			// Every replica has passed t: what they finished by then stands.
			if err := rp.e.report(t); err != nil {
				return err
			}
			if !r.Warmup && !c.opened {
				// The cluster's window opens on every replica at once,
				// one that got only warm-up rows so far included.
				rp.e.m.open(t, rp.e.now)
			}
		}
		c.opened = c.opened || !r.Warmup
		p := c.poolFor(r)
		for i, rp := range p.reps {
			p.load[i] = rp.e.outstanding(t)
		}
		rp := p.reps[p.router.route(r, p.load)]
		if err := rp.e.add(r, a.n-1); err != nil {
			return err
		}
		c.queue.fix(rp.qidx)
	}
}

// advance runs, one at a time and earliest first, every replica iteration
// that starts before t (the next arrival).
func (c *cluster) advance(ctx context.Context, t int64) error {
	for len(c.queue) > 0 && c.queue[0].e.next < t {
		if c.iters&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		c.iters++
		rp := c.queue[0]
		if err := rp.e.iterate(t, c.oomBound(rp, t)); err != nil {
			return err
		}
		c.queue.fix(0)
	}
	return nil
}

// oomBound is the earliest time at which a replica other than rp could
// end the run with an OOM: rp's stretches start no step from then on, so
// that it never runs past the end of the run, as stepping would not.
func (c *cluster) oomBound(rp *replica, t int64) int64 {
	b := int64(math.MaxInt64)
	for _, o := range c.canOOM {
		if o != rp {
			b = min(b, o.e.oomBound(t))
		}
	}
	return b
}

// poolFor picks the pool by request length.
func (c *cluster) poolFor(r *traces.Request) *pool {
	if c.cc.Threshold == 0 {
		return c.pools[0]
	}
	n := int64(max(r.PromptTokens, 1))
	if !c.cc.PromptOnly {
		// Count the output the short pool's replicas would run (see
		// Threshold): an answer their MaxNewTokens cuts short is short work.
		out := int64(max(r.OutputTokens, 1))
		if m := int64(c.pools[0].cfg.MaxNewTokens); m > 0 {
			out = min(out, m)
		}
		n += out
	}
	if n <= int64(c.cc.Threshold) {
		return c.pools[0]
	}
	return c.pools[1]
}

// replicaQueue is a min-heap of replicas by (next iteration time, id).
type replicaQueue []*replica

func (q replicaQueue) less(i, j int) bool {
	a, b := q[i], q[j]
	if a.e.next != b.e.next {
		return a.e.next < b.e.next
	}
	return a.id < b.id
}

func (q replicaQueue) swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].qidx, q[j].qidx = i, j
}

func (q *replicaQueue) push(rp *replica) {
	rp.qidx = len(*q)
	*q = append(*q, rp)
	q.up(rp.qidx)
}

// fix restores the order after the replica at i changed its next time.
func (q replicaQueue) fix(i int) {
	if !q.down(i) {
		q.up(i)
	}
}

func (q replicaQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q replicaQueue) down(i int) bool {
	i0, n := i, len(q)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && q.less(r, l) {
			j = r
		}
		if !q.less(j, i) {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}
