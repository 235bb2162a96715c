package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servesim/servesim/internal/urlshow"
)

// ErrNoMetrics means the engine has no /metrics endpoint (it answered 404,
// or 501 as llama.cpp's server does without --metrics).
var ErrNoMetrics = errors.New("telemetry: engine has no /metrics endpoint")

// maxMetricsPage caps a /metrics page; a longer one is a failed scrape.
const maxMetricsPage = 16 << 20

// PreRunWait caps a /metrics read made before a run starts (the
// scraper's first scrape, ReadEngineCapacity): a hung page must not hold
// the run back, and what it would give is only a report.
const PreRunWait = 3 * time.Second

// ScrapeConfig configures StartScrapeWith. Zero fields take the defaults
// named on each.
type ScrapeConfig struct {
	URL      string        // the engine's base URL or its /metrics URL; a URL without a path, or an API root ending in /v1, gets /metrics in its place
	Interval time.Duration // poll interval; default 1s
	Path     string        // CSV output, put there by Publish; "" writes nothing
	Origin   time.Time     // t_ns counts from here; default: when scraping starts
	Client   *http.Client  // default: a client with a timeout of the interval, at least 2s
	Logger   *slog.Logger  // default slog.Default()
}

// ScrapeSummary summarises a scrape. Means and maxima cover the scrapes
// that carried the gauge; a gauge never seen is NaN, never zero.
type ScrapeSummary struct {
	Engine                  string
	Scrapes                 int // successful scrapes
	Failed                  int // scrapes that failed (network, status, unparsable)
	Missed                  int // polls that came due while a slower scrape ran, up to Stop, so were not made
	MeanRunning, MaxRunning float64
	MeanWaiting, MaxWaiting float64
	MeanKVUsage, MaxKVUsage float64
	Err                     error // ErrNoMetrics, or the first write error
}

// Scraper polls an engine's /metrics page and writes the gauges to a CSV
// file. Stop ends it; then Publish puts the file at its path, or Discard
// or Keep leaves the path as it was.
type Scraper struct {
	cfg    ScrapeConfig
	shown  string // cfg.URL with any password masked and no query, for logs and errors
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	// Owned by the polling goroutine until done is closed.
	out           *sidecar
	sum           ScrapeSummary
	agg           [3]meanMax
	points        []enginePoint // every page read, for Between
	failedAt      []int64       // t_ns of each failed scrape, for Between
	missedAt      []int64       // t_ns each missed poll was due, for Between
	loggedErr     bool
	loggedNoGauge bool
	loggedBadLine bool
}

// enginePoint is one page's gauges at t_ns, kept so that a run's
// measured window can be summarised after Stop.
type enginePoint struct {
	t  int64
	st EngineState
}

type meanMax struct {
	sum, max float64
	n        int
}

func (m *meanMax) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if m.n == 0 || v > m.max {
		m.max = v
	}
	m.sum += v
	m.n++
}

func (m *meanMax) values() (mean, max float64) {
	if m.n == 0 {
		return math.NaN(), math.NaN()
	}
	return m.sum / float64(m.n), m.max
}

// StartScrape polls url's /metrics every interval and writes the engine's
// running, waiting and KV-usage gauges to the CSV file that Publish puts
// at path. See StartScrapeWith.
func StartScrape(ctx context.Context, url string, interval time.Duration, path string) (*Scraper, error) {
	return StartScrapeWith(ctx, ScrapeConfig{URL: url, Interval: interval, Path: path})
}

// StartScrapeWith scrapes once before returning, waiting PreRunWait
// (3 s) at most for the page. When the engine answers 404 or 501 it
// returns a nil *Scraper and an error wrapping ErrNoMetrics, and polls no
// more; a nil *Scraper's Stop is safe and returns an all-NaN
// summary. Other failures (the engine not up yet, 5xx) are logged once and
// polling goes on. Scraping stops when ctx ends or Stop is called.
func StartScrapeWith(ctx context.Context, cfg ScrapeConfig) (*Scraper, error) {
	u, shown, err := metricsURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	cfg.URL = u
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Origin.IsZero() {
		cfg.Origin = time.Now()
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: max(cfg.Interval, 2*time.Second)}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Scraper{cfg: cfg, shown: shown, done: make(chan struct{})}
	s.sum = emptyScrapeSummary()
	if cfg.Path != "" {
		// Made before the first scrape: a run whose scrapes all fail
		// still replaces an earlier run's file, with one holding no rows.
		if s.out, err = createSidecar(cfg.Path, scrapeHeader); err != nil {
			return nil, err
		}
	}
	ctx, s.cancel = context.WithCancel(ctx)
	if err := s.scrape(ctx, PreRunWait); errors.Is(err, ErrNoMetrics) {
		s.cancel()
		s.out.discard()
		cfg.Logger.Info("engine has no /metrics; not recording engine gauges", "url", shown)
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	if s.sum.Err != nil {
		s.cancel()
		s.out.discard()
		return nil, s.sum.Err
	}
	go s.loop(ctx)
	return s, nil
}

func emptyScrapeSummary() ScrapeSummary {
	n := math.NaN()
	return ScrapeSummary{MeanRunning: n, MaxRunning: n, MeanWaiting: n, MaxWaiting: n, MeanKVUsage: n, MaxKVUsage: n}
}

// metricsURL returns the URL to poll, and it with any password masked and
// its query left out (the one form that may be logged or put in an error).
func metricsURL(raw string) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// The parse error would quote the URL, password and all.
		return "", "", errors.New("telemetry: metrics URL does not parse: want http(s)://host[:port][/path]")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("telemetry: metrics URL %q: want http(s)://host[:port][/path]", urlshow.URL(u))
	}
	// An API root as record's --base-url takes it (http://h:8000/v1): the
	// engines serve /metrics beside /v1, not under it.
	// The escaped path too: an escape in it (%40) is the server's to read.
	if p := strings.TrimSuffix(u.Path, "/"); p == "" || strings.HasSuffix(p, "/v1") {
		u.Path, u.RawPath = besideV1(p), besideV1(strings.TrimSuffix(u.EscapedPath(), "/"))
	}
	return u.String(), urlshow.URL(u), nil
}

// besideV1 is the metrics path beside an API root's path p (/v1 or "").
func besideV1(p string) string {
	m := strings.TrimSuffix(p, "v1") + "metrics"
	if !strings.HasPrefix(m, "/") {
		m = "/" + m
	}
	return m
}

func (s *Scraper) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	due := time.Now().Add(s.cfg.Interval)
	for {
		var tick time.Time
		select {
		case <-ctx.Done():
		case tick = <-t.C:
		}
		if ctx.Err() != nil {
			s.countMissedUntil(time.Now(), due)
			return
		}
		due = s.countMissed(tick, due)
		if err := s.scrape(ctx, 0); errors.Is(err, ErrNoMetrics) {
			s.cfg.Logger.Info("engine /metrics went away (404 or 501); stopped polling", "url", s.shown)
			return
		}
		if s.sum.Err != nil {
			return
		}
	}
}

// countMissed counts the polls that came due from due (the tick expected
// next) until tick, the time the tick now taken came due: a ticker drops
// the ticks that fall while a scrape slower than the interval runs, and
// those pages are rows the file does not have. The tick's own time, not
// when the loop got to it, keeps the tick taken from being counted. It
// returns the tick expected after this one.
func (s *Scraper) countMissed(tick, due time.Time) time.Time {
	every := s.cfg.Interval
	// Rounded: due is set just after the ticker starts, a little off
	// its grid.
	for n := (tick.Sub(due) + every/2) / every; n > 0; n-- {
		s.miss(due)
		due = due.Add(every)
	}
	return tick.Add(every)
}

// countMissedUntil counts the polls due from due up to stop, when polling
// ended: those that came due while the scrape cut short by the stop ran
// were not made either.
func (s *Scraper) countMissedUntil(stop, due time.Time) {
	for ; !due.After(stop); due = due.Add(s.cfg.Interval) {
		s.miss(due)
	}
}

// miss counts the poll due at due as missed.
func (s *Scraper) miss(due time.Time) {
	s.sum.Missed++
	s.missedAt = append(s.missedAt, int64(due.Sub(s.cfg.Origin)))
}

// scrape fetches and records one page, giving up after wait when it is
// not 0 (the client's timeout applies too). It returns ErrNoMetrics on 404
// or 501 and logs other failures once per run.
func (s *Scraper) scrape(ctx context.Context, wait time.Duration) error {
	body, err := s.fetchWithin(ctx, wait)
	// Stamped when the page came, not when it was asked for: an engine
	// renders its gauges when it gets to the request, which on a busy one
	// (its event loop serves /metrics too) is near the end of the wait,
	// and Between cuts a run's window by this stamp. A failure is dated
	// when it was known, alike.
	now := time.Now()
	switch {
	case errors.Is(err, ErrNoMetrics):
		return err
	case err != nil:
		if ctx.Err() == nil { // stopped, not the engine failing
			s.fail(now, err)
		}
		return err
	}
	samples, perr := ParseMetrics(body)
	if len(samples) == 0 && perr != nil {
		s.fail(now, perr)
		return perr
	}
	if perr != nil && !s.loggedBadLine {
		// The lines that parsed are kept; a gauge on a bad one would be
		// an empty cell, read as a gauge the engine does not export.
		s.loggedBadLine = true
		s.cfg.Logger.Warn("some /metrics lines do not parse; a gauge on them is left empty (logged once)", "url", s.shown, "err", perr)
	}
	st := EngineStateOf(samples)
	// SGLang and TGI may write their gauges only once a request has
	// run: a fresh engine's first pages carry none.
	if st.Engine == "" && s.sum.Engine == "" && !s.loggedNoGauge {
		s.loggedNoGauge = true
		s.cfg.Logger.Info("/metrics has no known engine gauges yet (vLLM, SGLang, TGI, llama.cpp); some engines write theirs once a request has run", "url", s.shown)
	}
	s.record(now, st)
	return nil
}

// fetchWithin fetches one page, giving up after wait when it is not 0.
func (s *Scraper) fetchWithin(ctx context.Context, wait time.Duration) ([]byte, error) {
	if wait <= 0 {
		return fetchMetrics(ctx, s.cfg.Client, s.cfg.URL, s.shown)
	}
	return fetchMetricsWithin(ctx, s.cfg.Client, s.cfg.URL, s.shown, wait)
}

// fetchMetricsWithin is fetchMetrics giving up after wait, with an error
// that names the page and the wait (not a bare deadline).
func fetchMetricsWithin(ctx context.Context, client *http.Client, url, shown string, wait time.Duration) ([]byte, error) {
	fctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	body, err := fetchMetrics(fctx, client, url, shown)
	if err != nil && ctx.Err() == nil && fctx.Err() != nil {
		return nil, fmt.Errorf("%s: no page within %v", shown, wait)
	}
	return body, err
}

// fetchMetrics GETs one /metrics page from url, named as shown in every
// error: ErrNoMetrics on 404 or 501 (llama.cpp's server started without
// --metrics).
func fetchMetrics(ctx context.Context, client *http.Client, url, shown string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot make the request", shown) // err would quote the URL
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, urlshow.Error(err, shown) // it quoted the URL, password and all
	}
	defer resp.Body.Close()
	// One byte over the cap tells a page cut short, whose last line could
	// read as another value, from one that fits.
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetricsPage+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err // stopped while the page came in
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusNotImplemented:
		return nil, ErrNoMetrics
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: HTTP %d", shown, resp.StatusCode)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", shown, err)
	case len(body) > maxMetricsPage:
		return nil, fmt.Errorf("%s: metrics page over %d MiB: not read", shown, maxMetricsPage>>20)
	}
	return body, nil
}

func (s *Scraper) fail(at time.Time, err error) {
	s.sum.Failed++
	s.failedAt = append(s.failedAt, int64(at.Sub(s.cfg.Origin)))
	if !s.loggedErr {
		s.loggedErr = true
		s.cfg.Logger.Warn("scraping engine metrics failed; will keep trying (logged once)", "url", s.shown, "err", err)
	}
}

var scrapeHeader = []string{"t_ns", "unix_ns", "engine", "running", "waiting", "kv_usage"}

func (s *Scraper) record(at time.Time, st EngineState) {
	s.sum.Scrapes++
	if s.sum.Engine == "" {
		s.sum.Engine = st.Engine
	}
	s.agg[0].add(st.Running)
	s.agg[1].add(st.Waiting)
	s.agg[2].add(st.KVUsage)
	s.points = append(s.points, enginePoint{int64(at.Sub(s.cfg.Origin)), st})
	if s.out == nil || s.sum.Err != nil {
		return
	}
	s.sum.Err = s.out.write([]string{
		strconv.FormatInt(int64(at.Sub(s.cfg.Origin)), 10),
		strconv.FormatInt(at.UnixNano(), 10),
		st.Engine, formatFloat(st.Running), formatFloat(st.Waiting), formatFloat(st.KVUsage),
	})
}

// Stop ends polling, syncs the CSV file (still under its temporary name)
// and returns the summary. It is safe to call on a nil *Scraper and more
// than once.
func (s *Scraper) Stop() ScrapeSummary {
	if s == nil {
		return emptyScrapeSummary()
	}
	s.once.Do(func() {
		s.cancel()
		<-s.done
		if err := s.out.sync(); err != nil && s.sum.Err == nil {
			s.sum.Err = err
		}
		s.sum.MeanRunning, s.sum.MaxRunning = s.agg[0].values()
		s.sum.MeanWaiting, s.sum.MaxWaiting = s.agg[1].values()
		s.sum.MeanKVUsage, s.sum.MaxKVUsage = s.agg[2].values()
	})
	return s.sum
}

// Between stops the scraper and summarises the scrapes stamped from from
// to to (a run's measured window), on the monotonic clock as Origin: the
// whole scrape's summary counts the idle pages before the window (probes,
// warm-ups) and between runs too, which pull its means toward 0. Err is
// nil, as a write error is not the window's; on a nil *Scraper it is all
// NaN.
func (s *Scraper) Between(from, to time.Time) ScrapeSummary {
	sum := emptyScrapeSummary()
	if s == nil {
		return sum
	}
	s.Stop()
	lo, hi := int64(from.Sub(s.cfg.Origin)), int64(to.Sub(s.cfg.Origin))
	var agg [3]meanMax
	for _, p := range s.points {
		if p.t < lo || p.t > hi {
			continue
		}
		sum.Scrapes++
		if sum.Engine == "" {
			sum.Engine = p.st.Engine
		}
		agg[0].add(p.st.Running)
		agg[1].add(p.st.Waiting)
		agg[2].add(p.st.KVUsage)
	}
	sum.Failed = countWithin(s.failedAt, lo, hi)
	sum.Missed = countWithin(s.missedAt, lo, hi)
	sum.MeanRunning, sum.MaxRunning = agg[0].values()
	sum.MeanWaiting, sum.MaxWaiting = agg[1].values()
	sum.MeanKVUsage, sum.MaxKVUsage = agg[2].values()
	return sum
}

// countWithin counts the times in ts from lo to hi.
func countWithin(ts []int64, lo, hi int64) int {
	n := 0
	for _, t := range ts {
		if t >= lo && t <= hi {
			n++
		}
	}
	return n
}

// Publish stops the scraper and puts its CSV file at its path, replacing
// an earlier run's: call it once the trace the gauges belong with is in
// place. It does nothing on a nil scraper or one without a file.
func (s *Scraper) Publish() error {
	if s == nil {
		return nil
	}
	s.Stop()
	return s.out.publish()
}

// Discard stops the scraper and removes its CSV file, leaving an earlier
// run's at the path: for a run whose trace was not written.
func (s *Scraper) Discard() {
	if s == nil {
		return
	}
	s.Stop()
	s.out.discard()
}

// Keep stops the scraper and leaves its CSV file under its temporary
// name, which it returns ("" without a file): for the gauges of a run
// whose trace was not written but whose rows were kept. Its error is the
// file's close error, which names it.
func (s *Scraper) Keep() (string, error) {
	if s == nil {
		return "", nil
	}
	s.Stop()
	return s.out.keep()
}

// formatFloat writes NaN as an empty cell.
func formatFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
