package calibrate

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// peakRunningByScan is peakRunning as a scan of every request at every
// start and end: quadratic, but plainly the definition.
func peakRunningByScan(rows []*traces.Request) (int, int64) {
	counted := func(x *traces.Request) bool {
		return x.Succeeded() && x.FirstToken != traces.Missing && !x.Warmup
	}
	held := func(t int64, in func(x *traces.Request) bool) (int, int64) {
		n, tok := 0, int64(0)
		for _, x := range rows {
			if counted(x) && in(x) {
				n++
				tok += int64(promptOf(x)) + int64(tokensBy(x, t))
			}
		}
		return n, tok
	}
	peak, peakTok := 0, int64(0)
	for _, r := range rows {
		if !counted(r) {
			continue
		}
		// After every start at r.FirstToken: those ending then leave first,
		// unless they also started then (one-token requests).
		t := r.FirstToken
		n, tok := held(t, func(x *traces.Request) bool {
			return x.FirstToken <= t && (x.LastToken > t || x.FirstToken == t && x.LastToken == t)
		})
		peak, peakTok = max(peak, n), max(peakTok, tok)
		// Just before the ends at r.LastToken.
		t = r.LastToken
		_, tok = held(t, func(x *traces.Request) bool { return x.FirstToken <= t && x.LastToken >= t })
		peakTok = max(peakTok, tok, int64(promptOf(r))+int64(max(r.UsageOutput, 0)))
	}
	return peak, peakTok
}

// randomRun is n requests on a coarse clock, so that starts, ends and
// tokens often fall on one instant; some make one token, some record no
// token times, some failed or are warm-up.
func randomRun(rng *rand.Rand, n int) []*traces.Request {
	rows := make([]*traces.Request, 0, n)
	for i := range n {
		first := float64(rng.IntN(40))
		toks := []float64{first}
		for range rng.IntN(6) {
			toks = append(toks, toks[len(toks)-1]+float64(rng.IntN(4)))
		}
		r := row(strconv.Itoa(i), int32(rng.IntN(500)), 0, toks...)
		switch rng.IntN(8) {
		case 0:
			r.TokenTimes = nil
			r.UsageOutput = int32(rng.IntN(20))
		case 1:
			r.Warmup = true
		case 2:
			r.Error = "engine gone"
		case 3:
			r.UsageOutput += int32(rng.IntN(3)) // usage beyond the streamed chunks
		}
		rows = append(rows, r)
	}
	return rows
}

func TestPeakRunningSweepMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 4))
	for i := range 500 {
		rows := randomRun(rng, 1+rng.IntN(30))
		n, tok := peakRunning(rows)
		wn, wtok := peakRunningByScan(rows)
		if n != wn || tok != wtok {
			t.Fatalf("run %d: peakRunning = %d sequences, %d tokens; the scan gives %d, %d", i, n, tok, wn, wtok)
		}
	}
}

// A long run's peak costs a sort of its events, not a scan of every
// request at each request's end: 20,000 requests, all overlapping, are
// measured in well under the second allowed here.
func TestPeakRunningLongRun(t *testing.T) {
	const n = 20_000
	rows := make([]*traces.Request, n)
	for i := range rows {
		rows[i] = row(strconv.Itoa(i), 100, 0, float64(i), float64(i)+n, float64(i)+2*n)
	}
	start := time.Now()
	peak, tok := peakRunning(rows)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("peakRunning of %d requests took %v", n, el)
	}
	// Just before the first ends, at 2n ms, each holds two tokens and
	// the first its third.
	if want := int64(n*(100+2) + 1); peak != n || tok != want {
		t.Errorf("peak %d sequences, %d tokens; want %d, %d", peak, tok, n, want)
	}
}
