package sim

import "github.com/servesim/servesim/traces"

// Router names accepted by PoolConfig.Router.
const (
	RoundRobin       = "round_robin"       // replicas in turn
	LeastOutstanding = "least_outstanding" // fewest requests sent and not finished
	PrefixAffinity   = "prefix_affinity"   // longest recorded prefix, load-capped
)

// Routers lists the router names in a stable order.
var Routers = []string{RoundRobin, LeastOutstanding, PrefixAffinity}

// router picks the replica of its pool that serves each request. It sees
// only what a real load balancer in front of the replicas sees: the
// request itself and load[i], the number of requests it has sent to
// replica i that have not finished yet. It never looks inside a replica
// (queues, KV blocks, the prefix cache): a prefix-aware router keeps its
// own record of what it sent where.
type router interface {
	route(r *traces.Request, load []int64) int
}

func newRouter(p *PoolConfig, hashCap int) router {
	switch p.Router {
	case RoundRobin:
		return &roundRobin{n: p.Replicas}
	case LeastOutstanding:
		return &leastLoaded{n: p.Replicas}
	default:
		capFactor := p.AffinityLoadCap
		if capFactor == 0 {
			capFactor = DefaultAffinityLoadCap
		}
		if p.AffinityRecord > 0 {
			hashCap = p.AffinityRecord
		}
		a := &affinity{loadCap: capFactor, fallback: leastLoaded{n: p.Replicas}, recs: make([]hashLRU, p.Replicas)}
		for i := range a.recs {
			a.recs[i] = newHashLRU(max(hashCap, 1))
		}
		return a
	}
}

// roundRobin sends request k to replica k mod n.
type roundRobin struct{ n, next int }

func (r *roundRobin) route(_ *traces.Request, _ []int64) int {
	i := r.next
	r.next = (r.next + 1) % r.n
	return i
}

// leastLoaded picks the replica with the fewest outstanding requests.
// Ties go to the first such replica at or after a cursor that moves by one
// each request, so an idle pool is served in turn rather than always by
// replica 0.
type leastLoaded struct{ n, next int }

func (l *leastLoaded) route(_ *traces.Request, load []int64) int {
	best := -1
	for j := 0; j < l.n; j++ {
		i := l.next + j
		if i >= l.n {
			i -= l.n
		}
		if best < 0 || load[i] < load[best] {
			best = i
		}
	}
	l.next = (l.next + 1) % l.n
	return best
}

// DefaultAffinityLoadCap is PoolConfig.AffinityLoadCap when left at 0.
const DefaultAffinityLoadCap = 1.5

// affinity routes to the replica whose record holds the longest leading
// run of the request's prefix hashes (ties: fewest outstanding, then the
// lowest index). With no hit, or when the chosen replica is overloaded —
// its outstanding count exceeds loadCap × the pool mean by at least one
// request — it falls back to least outstanding. The slack of one request
// keeps an almost idle pool from defeating affinity.
//
// The record is the router's own: per replica, a bounded LRU of the
// chained prefix hashes it routed there. It approximates the replica's
// prefix cache (it cannot see evictions or preemptions), as a
// cache-aware router in front of real servers must.
type affinity struct {
	recs     []hashLRU
	loadCap  float64
	fallback leastLoaded
	keys     []uint64
}

func (a *affinity) route(r *traces.Request, load []int64) int {
	a.keys = chainKeys(a.keys[:0], r.PrefixHashes)
	best, bestHit := -1, 0
	for i := range a.recs {
		h := a.recs[i].leading(a.keys)
		if h > bestHit || (h > 0 && h == bestHit && load[i] < load[best]) {
			best, bestHit = i, h
		}
	}
	if best < 0 || a.overloaded(best, load) {
		best = a.fallback.route(r, load)
	}
	a.recs[best].record(a.keys)
	return best
}

func (a *affinity) overloaded(i int, load []int64) bool {
	var sum int64
	for _, l := range load {
		sum += l
	}
	mean := float64(sum) / float64(len(load))
	return float64(load[i]) >= a.loadCap*mean+1
}

// chainKeys appends one key per prefix hash: key j folds hashes 0..j, so
// equal keys mean equal leading runs.
func chainKeys(dst []uint64, hashes []uint64) []uint64 {
	chain := uint64(0x2545f4914f6cdd1d)
	for _, h := range hashes {
		chain = mix64(chain, h)
		dst = append(dst, chain)
	}
	return dst
}

// hashLRU is a bounded set of keys evicted least recently recorded first.
type hashLRU struct {
	cap        int
	index      map[uint64]int32
	ent        []lruEntry
	head, tail int32 // least and most recent, -1 = empty
}

type lruEntry struct {
	key        uint64
	prev, next int32
}

func newHashLRU(capacity int) hashLRU {
	return hashLRU{cap: capacity, index: make(map[uint64]int32), head: -1, tail: -1}
}

// leading counts the leading keys present.
func (l *hashLRU) leading(keys []uint64) int {
	for i, k := range keys {
		if _, ok := l.index[k]; !ok {
			return i
		}
	}
	return len(keys)
}

// record marks keys as most recently used, the first key most recent of
// all so that a prefix's tail is evicted before its head.
func (l *hashLRU) record(keys []uint64) {
	for i := len(keys) - 1; i >= 0; i-- {
		l.touch(keys[i])
	}
}

func (l *hashLRU) touch(k uint64) {
	if i, ok := l.index[k]; ok {
		if i != l.tail {
			l.unlink(i)
			l.pushTail(i)
		}
		return
	}
	var i int32
	if len(l.ent) < l.cap {
		i = int32(len(l.ent))
		l.ent = append(l.ent, lruEntry{})
	} else { // full: reuse the least recent entry
		i = l.head
		l.unlink(i)
		delete(l.index, l.ent[i].key)
	}
	l.ent[i].key = k
	l.index[k] = i
	l.pushTail(i)
}

func (l *hashLRU) pushTail(i int32) {
	l.ent[i].prev, l.ent[i].next = l.tail, -1
	if l.tail >= 0 {
		l.ent[l.tail].next = i
	} else {
		l.head = i
	}
	l.tail = i
}

func (l *hashLRU) unlink(i int32) {
	e := &l.ent[i]
	if e.prev >= 0 {
		l.ent[e.prev].next = e.next
	} else {
		l.head = e.next
	}
	if e.next >= 0 {
		l.ent[e.next].prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = -1, -1
}
