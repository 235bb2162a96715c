package calibrate

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/traces"
)

// Admission is how the engine takes in a request that arrives while it is
// busy (sim.Admission): measured by the admission runs (KindAdmission),
// nil when none was.
type Admission struct {
	Delay float64 `json:"delay_s"` // until it reaches the scheduler, as if it then joined the next step: median over the probes, seconds
	P10   float64 `json:"p10_s"`
	P90   float64 `json:"p90_s"`
	N     int     `json:"n"` // probes measured
	// SlotSteps is the median over NSlot requests that had to wait for a
	// sequence slot of the steps from the last token of the request that
	// finished before them to their own first token: 1 where the
	// scheduler holds them and starts one in the next step, 3 on Ollama's
	// runner (sim.Admission.Lock). 0 when none was seen.
	SlotSteps float64 `json:"slot_steps"`
	NSlot     int     `json:"n_slot"`
	// Lock is read off SlotSteps (at least 2, over at least 3 requests):
	// the engine takes requests in under its step loop's lock. Latency is
	// then the probes' delay until they reached the loop (one step less
	// than Delay's), seconds.
	Lock    bool    `json:"lock"`
	Latency float64 `json:"latency_s"`
}

// admissionDelays reads an admission run's probes: each was sent while
// the carrier (request 0) was decoding, and the carrier's tokens mark the
// engine's step boundaries. A probe's prompt was computed in the step that
// ended with its first token, which started at the carrier's token
// before; it had not reached the scheduler when the step before that
// started, or it would have joined it. So its delay lies between the
// starts of those two steps less its send time; next has the midpoint
// (seconds), for every probe admitted while the carrier still ran. Under
// a step loop's lock (sim.Admission.Lock) a request that waits alone is
// passed over once, so it reached the loop a step earlier: lock has the
// midpoints one step back (0 where that is before the send). tol is the
// run's clustering tolerance: tokens of different requests within it end
// the same step. A carrier whose token times were spread over chunks of
// several tokens (spreadTimes) measures nothing.
func admissionDelays(rows []*traces.Request, tol int64) (next, lock []float64) {
	var carrier *traces.Request
	for _, r := range rows {
		if strings.HasSuffix(r.ID, "/0") {
			carrier = r
		}
	}
	// A carrier whose token times were spread over chunks of several
	// tokens (spreadTimes) has times that are no step's end.
	if carrier == nil || !carrier.Succeeded() || len(carrier.TokenTimes) < 3 || spreadTimes(carrier) {
		return nil, nil
	}
	bounds := carrier.TokenTimes
	for _, r := range rows {
		if r == carrier || !timed(r) {
			continue
		}
		send, first := r.ActualSend, r.TokenTimes[0]
		if send <= bounds[0] || first >= bounds[len(bounds)-1]-tol {
			continue // sent before the carrier decoded, or no slot until it ended
		}
		// bounds[j] starts the probe's prefill step, bounds[j-1] the one before.
		j, _ := slices.BinarySearch(bounds, first-tol)
		j--
		if j < 1 || bounds[j] < send {
			continue
		}
		lo := max(0, bounds[j-1]-send)
		next = append(next, float64(lo+bounds[j]-send)/2e9)
		lockLo := int64(0)
		if j >= 2 {
			lockLo = max(0, bounds[j-2]-send)
		}
		lock = append(lock, float64(lockLo+lo)/2e9)
	}
	return next, lock
}

// slotSteps reads how a run's requests that had to wait for a sequence
// slot got one. It replays the slots in the order the requests got their
// first token: each takes the slot freed earliest (at the last token of the
// request that held it) of those free, as a FIFO queue for slots hands
// them out; the slots count as free from the start. A request whose slot
// was freed after it was sent waited for it: its count is the step
// boundaries (every token time of the run, clustered within tol) from that
// last token to its own first token. Taking the latest request to finish
// before the first token instead counts too few steps whenever another
// request finished in between. A wait beside a request whose token times
// there were spread over a chunk of several tokens is not counted.
func slotSteps(rows []*traces.Request, tol int64, slots int) []float64 {
	var ts []int64
	var started []*traces.Request
	var spread [][2]int64 // spans of requests whose times between first and last are made up
	for _, r := range rows {
		if r.Succeeded() {
			ts = append(ts, r.TokenTimes...)
		}
		if timed(r) {
			started = append(started, r)
		}
		if len(r.TokenTimes) > 0 && spreadTimes(r) {
			spread = append(spread, [2]int64{r.TokenTimes[0], r.TokenTimes[len(r.TokenTimes)-1]})
		}
	}
	slices.Sort(ts)
	var bounds []int64
	for _, t := range ts {
		if len(bounds) == 0 || t-bounds[len(bounds)-1] > tol {
			bounds = append(bounds, t)
		}
	}
	// boundary is the index of the cluster holding token time t.
	boundary := func(t int64) int {
		i, found := slices.BinarySearch(bounds, t)
		if !found {
			i--
		}
		return i
	}
	slices.SortStableFunc(started, func(a, b *traces.Request) int { return cmp.Compare(a.TokenTimes[0], b.TokenTimes[0]) })
	free := make([]int64, slots) // when each free slot was freed, ascending
	for i := range free {
		free[i] = math.MinInt64
	}
	var out []float64
	for _, r := range started {
		freed := free[0]
		free = free[1:]
		// Steps are counted only where every time is a step's end: not
		// beside a request whose times there were spread over a chunk.
		clean := !slices.ContainsFunc(spread, func(s [2]int64) bool { return s[0] < r.TokenTimes[0] && s[1] > freed })
		if freed > r.ActualSend && freed < r.TokenTimes[0]-tol && inFlight(started, r) >= slots && clean {
			out = append(out, float64(boundary(r.TokenTimes[0])-boundary(freed)))
		}
		i, _ := slices.BinarySearch(free, r.LastToken)
		free = slices.Insert(free, i, r.LastToken)
	}
	return out
}

// inFlight counts the requests sent before r that were still streaming
// when r was sent. With prompts of different lengths the order of first
// tokens is not the order the slots were handed out in, so slotSteps
// counts a wait only where every slot was busy.
func inFlight(rows []*traces.Request, r *traces.Request) int {
	n := 0
	for _, o := range rows {
		if o != r && o.ActualSend < r.ActualSend && o.LastToken > r.ActualSend {
			n++
		}
	}
	return n
}

// timed says that r succeeded with its send and token times recorded.
func timed(r *traces.Request) bool {
	return r.Succeeded() && len(r.TokenTimes) > 0 && r.ActualSend != traces.Missing
}

// summarizeAdmission is the Admission of the probes' delays under the two
// models (admissionDelays) and of the slot waits' steps (slotSteps); nil
// without probes.
func summarizeAdmission(next, lock, slot []float64) *Admission {
	if len(next) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(next))
	// The median as Latency's and SlotSteps' (the middle two's mean for an
	// even count), so that Latency is Delay's step less.
	a := &Admission{Delay: median(s), P10: pct(s, 0.1), P90: pct(s, 0.9), N: len(s)}
	if len(slot) > 0 {
		a.SlotSteps, a.NSlot = median(slot), len(slot)
	}
	if a.Lock = a.NSlot >= 3 && a.SlotSteps >= 2; a.Lock {
		a.Latency = median(lock)
	}
	return a
}
