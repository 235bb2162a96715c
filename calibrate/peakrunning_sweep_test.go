package calibrate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

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

// Every request overlaps every other: the peak is all of them, each
// holding its prompt and two tokens, the first its third.
func TestPeakRunningAllOverlapping(t *testing.T) {
	const n = 2_000
	peak, tok := peakRunning(overlapping(n))
	if want := int64(n*(100+2) + 1); peak != n || tok != want {
		t.Errorf("peak %d sequences, %d tokens; want %d, %d", peak, tok, n, want)
	}
}

// overlapping is n requests of 100-token prompts, request i sent at i ms
// with its first token at i+n and its end at i+2n.
func overlapping(n int) []*traces.Request {
	rows := make([]*traces.Request, n)
	for i := range rows {
		rows[i] = row(strconv.Itoa(i), 100, 0, float64(i), float64(i)+float64(n), float64(i)+float64(2*n))
	}
	return rows
}

// The sweep against the test's quadratic scan, on runs where every request
// overlaps every other.
func BenchmarkPeakRunning(b *testing.B) {
	for _, n := range []int{1_000, 5_000} {
		rows := overlapping(n)
		b.Run(fmt.Sprintf("sweep/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				peakRunning(rows)
			}
		})
		b.Run(fmt.Sprintf("scan/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				peakRunningByScan(rows)
			}
		})
	}
}
