package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// moments gives what gonum's stat package gives, in fewer passes.
func TestMomentsAsStat(t *testing.T) {
	x := expSample(rand.New(rand.NewPCG(7, 7)), 9000, 0.3)
	m, sd, skew := moments(x)
	wm, wsd := stat.MeanStdDev(x, nil)
	wskew := stat.Skew(x, nil)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"mean", m, wm}, {"sd", sd, wsd}, {"skew", skew, wskew}} {
		if math.Abs(c.got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("%s %.12g, stat gives %.12g", c.name, c.got, c.want)
		}
	}
}

// A few requests stalled among thousands are drawn one by one and the
// rest from their normal limit: the resampled means are distributed as
// resampling every request gives them, in clusters by how often the
// stalled requests were drawn, each spread by the rest.
func TestResampleMeanPeelsTheStalledRequests(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, stalled := range [][]float64{
		{3000},          // most of an hour: clusters far apart
		{150, 150, 150}, // minutes: clusters as wide as the rest spreads them
	} {
		sorted := append(expSample(rng, 20000, 1), stalled...)
		slices.Sort(sorted)
		fast, slow := resampledMeans(rng, sorted, 2000)
		if d := ksDistance(fast, slow); d > 0.07 {
			t.Errorf("stalled %v: resampled means as drawn and by resampling differ by %.3f (Kolmogorov–Smirnov)", stalled, d)
		}
		if fast[0] < sorted[0] {
			t.Errorf("stalled %v: a resampled mean of %.4f, below the fastest request", stalled, fast[0])
		}
	}
}

// Peeling keeps a skewed sample's interval cheap: one stalled request
// among 100,000 costs a few binomial draws a resample, not 100,000.
func BenchmarkChangeIntervalStalled(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := expSample(rng, 100_000, 1), expSample(rng, 100_000, 1.1)
	x[len(x)-1], y[len(y)-1] = 3000, 3000
	for b.Loop() {
		changeInterval(x, y, meanOf, rng)
	}
}

// countingSource counts the random numbers a draw takes: its cost.
type countingSource struct {
	src   rand.Source
	calls int
}

func (c *countingSource) Uint64() uint64 {
	c.calls++
	return c.src.Uint64()
}

// ksDistance is the largest gap between the empirical distributions of
// sorted a and b (the two-sample Kolmogorov–Smirnov statistic).
func ksDistance(a, b []float64) float64 {
	var i, j int
	gap := 0.0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		gap = max(gap, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return gap
}

// resampledMeans draws means of resamples of sorted twice: as the
// resampler draws them and by resampling every request, both sorted.
func resampledMeans(rng *rand.Rand, sorted []float64, draws int) (fast, slow []float64) {
	draw := meanOf.resampler(sorted)
	fast, slow = make([]float64, draws), make([]float64, draws)
	for i := range draws {
		fast[i] = draw(rng)
		sum := 0.0
		for range sorted {
			sum += sorted[rng.IntN(len(sorted))]
		}
		slow[i] = sum / float64(len(sorted))
	}
	slices.Sort(fast)
	slices.Sort(slow)
	return fast, slow
}

// A sample with a stalled request and a failed one (answered at once)
// among steady ones is skewed both ways: both are drawn one by one, so a
// resample costs a few random numbers, not one per request, and its mean
// is distributed as resampling every request gives it.
func TestResampleMeanPeelsBothTails(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	sorted := expSample(rng, 20000, 0.01)
	for i := range sorted {
		sorted[i] += 10
	}
	sorted = append(sorted, 3000, 0.05)
	slices.Sort(sorted)
	src := &countingSource{src: rand.NewPCG(12, 13)}
	draw := meanOf.resampler(sorted)
	counted := rand.New(src)
	for range 100 {
		draw(counted)
	}
	if perDraw := src.calls / 100; perDraw > 100 {
		t.Errorf("a resampled mean of %d requests takes %d random numbers", len(sorted), perDraw)
	}
	fast, slow := resampledMeans(rng, sorted, 2000)
	if d := ksDistance(fast, slow); d > 0.07 {
		t.Errorf("resampled means as drawn and by resampling differ by %.3f (Kolmogorov–Smirnov)", d)
	}
}
