package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/traces"
)

// PartialPath is where Record keeps run output while the run is going:
// out + ".partial.arrows", an Arrow IPC stream flushed (and fsynced) at
// least every second. After a crash or kill -9 it holds every row flushed
// so far; read it with traces.OpenTolerant (or traces.Open, which also
// returns the complete batches but reports the cut-off tail as an error).
func PartialPath(out string) string { return out + traces.PartialSuffix }

// createTrace starts the partial stream; tests replace it to inject
// write errors.
var createTrace = traces.Create

// linkFile names the partial stream's temporary file; tests replace it
// to see a file system without hard links.
var linkFile = os.Link

// RunPath is run k's output path when there are n runs: out itself for a
// single run, else name.runK.ext.
func RunPath(out string, k, n int) string {
	if n <= 1 {
		return out
	}
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".run" + strconv.Itoa(k) + ext
}

// Record replays cfg.Trace cfg.Repeat times and writes run k's measured
// trace to RunPath(cfg.Out, k, cfg.Repeat). Rows are streamed, in
// completion order, to PartialPath(out) while the run goes; when it ends
// (normally, or interrupted through ctx) the rows are rewritten in input
// order to out in out's format, atomically, and the partial file is
// removed; an interrupt before a run starts ends Record there, that run
// and the later ones not begun (log names them), and a run interrupted
// before any row completed (the rows it cut short, canceled, do not
// count, nor do rows the source trace marks failed, never sent) writes
// no trace (its summary says so: Written is false). The text model is
// calibrated once, before the first run, when cfg.Text is zero. Progress lines go to log (may be nil). With several
// runs, raw bodies go to cfg.SaveRaw/runK, and a given cfg.Salt is run 1's:
// each later run derives its own from it, so no run repeats another's
// prompts.
func Record(ctx context.Context, cfg Config, log io.Writer) ([]*Summary, error) {
	if log == nil {
		log = io.Discard
	}
	if err := cfg.ValidateRecord(); err != nil {
		return nil, err
	}
	if cfg.Text.IsZero() {
		tm, err := Calibrate(ctx, cfg)
		if err != nil {
			return nil, err
		}
		tm.Prefix = cfg.Text.Prefix // given on its own: kept
		cfg.Text = tm
		fmt.Fprintf(log, "calibrated text model: tokens = %.4f × bytes + %.2f\n", tm.TokensPerByte, tm.Overhead)
	}
	var sums []*Summary
	for k := 1; k <= cfg.Repeat; k++ {
		if err := ctx.Err(); err != nil {
			// Interrupted before this run started: it measured nothing,
			// and an empty trace would replace an earlier one of its name.
			notStartedNote(log, cfg, k)
			return sums, err
		}
		rc := cfg
		if cfg.Salt != 0 && k > 1 {
			// Run k's own prompts, still reproducible: prompts run 1 sent
			// would hit the engine's prompt cache.
			rc.Salt = cfg.Salt + uint64(k-1)*0x9e3779b97f4a7c15
		}
		if cfg.SaveRaw != "" && cfg.Repeat > 1 {
			rc.SaveRaw = filepath.Join(cfg.SaveRaw, "run"+strconv.Itoa(k))
		}
		out := RunPath(cfg.Out, k, cfg.Repeat)
		s, err := recordOnce(ctx, rc, out, k, log)
		if s != nil {
			s.Run = k
			sums = append(sums, s)
		}
		if err != nil {
			return sums, err
		}
	}
	return sums, nil
}

// notStartedNote says that runs from..cfg.Repeat did not start, and names
// the earlier files of their names, left as they were: else those read as
// the runs' own.
func notStartedNote(log io.Writer, cfg Config, from int) {
	runs := fmt.Sprintf("run %d", from)
	if from < cfg.Repeat {
		runs = fmt.Sprintf("runs %d–%d", from, cfg.Repeat)
	}
	var earlier []string
	for k := from; k <= cfg.Repeat; k++ {
		out := RunPath(cfg.Out, k, cfg.Repeat)
		if _, err := os.Lstat(out); err == nil {
			earlier = append(earlier, out)
		}
	}
	left := ""
	switch len(earlier) {
	case 0:
	case 1:
		left = "; an earlier " + earlier[0] + " left as it was"
	default:
		left = "; earlier " + strings.Join(earlier, ", ") + " left as they were"
	}
	fmt.Fprintf(log, "interrupted: %s of %d not started%s\n", runs, cfg.Repeat, left)
}

// Outcome says what Record, having returned sums, left of cfg's runs, for
// the files that go with their traces: written when it wrote any run's
// trace (with several runs, a failed run's predecessors wrote theirs);
// rowsLeft is the partial file the last run kept its rows in, or "" when
// it kept none.
func Outcome(cfg Config, sums []*Summary) (written bool, rowsLeft string) {
	if len(sums) == 0 {
		return false, "" // no run started: a partial file there is an earlier one's
	}
	written = slices.ContainsFunc(sums, func(s *Summary) bool { return s.Written })
	// Record stops at the first run that fails: only the last can have
	// left its rows.
	if last := sums[len(sums)-1]; !last.Written {
		rowsLeft = last.RowsKeptIn
	}
	return written, rowsLeft
}

// ValidateRecord is Validate plus the checks of Record's files, done
// before any request: the trace opens and holds a row, every output has
// an existing directory, is not the trace, and has no partial file left
// by an interrupted run, and SaveRaw lies in an existing directory and
// holds no raw bodies of an earlier recording.
func (c *Config) ValidateRecord() error {
	if err := c.Validate(); err != nil {
		return err
	}
	var errs []error
	if c.Trace == "" {
		errs = append(errs, fieldErr("Trace", "required"))
	} else if _, err := traces.FormatOf(c.Trace); err != nil {
		errs = append(errs, fieldErr("Trace", err.Error()))
	} else if in, err := traces.Open(c.Trace); err != nil {
		errs = append(errs, fieldErr("Trace", err.Error()))
	} else {
		// One row read: a trace of none would be recorded as an empty
		// trace, measuring nothing. A bad row is the run's to report.
		if !in.Next() && in.Err() == nil {
			errs = append(errs, fieldErr("Trace", fmt.Sprintf("%s holds no requests: nothing to send", c.Trace)))
		}
		in.Close()
	}
	if c.Out == "" {
		errs = append(errs, fieldErr("Out", "required"))
	} else if _, err := traces.FormatOf(c.Out); err != nil {
		errs = append(errs, fieldErr("Out", err.Error()))
	} else if err := atomicfile.CheckDir(c.Out); err != nil {
		errs = append(errs, fieldErr("Out", err.Error()))
	} else {
		for k := 1; k <= c.Repeat; k++ {
			out := RunPath(c.Out, k, c.Repeat)
			if c.Trace != "" && traces.SamePath(out, c.Trace) {
				errs = append(errs, fieldErr("Out", fmt.Sprintf("%s is the input trace: writing it would destroy the input", out)))
				break
			}
			if _, err := os.Lstat(PartialPath(out)); err == nil {
				errs = append(errs, fieldErr("Out", stalePartial(PartialPath(out))))
				break
			}
			// The raw bodies' directory there would leave the trace no room,
			// found only once the run is over.
			if c.SaveRaw != "" && traces.SamePath(out, c.SaveRaw) {
				errs = append(errs, fieldErr("SaveRaw", fmt.Sprintf("%s is the output trace's path: name another directory for the raw bodies", c.SaveRaw)))
				break
			}
		}
	}
	if c.SaveRaw != "" {
		// Run creates the directory only after probing the engine.
		if fi, err := os.Stat(c.SaveRaw); err == nil && !fi.IsDir() {
			errs = append(errs, fieldErr("SaveRaw", fmt.Sprintf("%s is not a directory: name an empty or new directory for the raw bodies", c.SaveRaw)))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fieldErr("SaveRaw", err.Error()))
		} else if err != nil {
			// Run would make the ones above it too, which a typo would
			// have named. Clean: "raw/" lies in ".", not in "raw".
			if err := atomicfile.CheckDir(filepath.Clean(c.SaveRaw)); err != nil {
				errs = append(errs, fieldErr("SaveRaw", err.Error()))
			}
		} else if old := rawBodyIn(c.SaveRaw); old != "" {
			// This run writes only its own requests' names: an earlier
			// recording's other bodies would sit among them unmarked.
			errs = append(errs, fieldErr("SaveRaw", fmt.Sprintf("%s holds raw bodies of an earlier recording (%s); name an empty or new directory", c.SaveRaw, old)))
		}
	}
	return errors.Join(errs...)
}

// rawBodyIn is the first raw body (.sse) under dir, or "" when it has none
// or does not exist.
func rawBodyIn(dir string) string {
	found := ""
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".sse") {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

func stalePartial(path string) string {
	return fmt.Sprintf("%s exists, left by an interrupted run (servesim trace convert reads back its rows); move it away or delete it first%s", path, atomicfile.TempLinksNote(path))
}

func recordOnce(ctx context.Context, cfg Config, out string, k int, log io.Writer) (*Summary, error) {
	sum, err := traces.FileChecksum(cfg.Trace)
	if err != nil {
		return nil, err
	}
	f, err := traces.Open(cfg.Trace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Rows are recorded in input order: a row whose arrival goes back in
	// time stops the run as a bad row does, else the recording would be
	// one that simulate, trace slice and trace stats refuse.
	in := traces.CheckOrder(f, cfg.Trace)
	if cfg.Salt == 0 {
		// Drawn here rather than by run, so the output records it.
		cfg.Salt = rand.Uint64() | 1
	}
	meta := OutputMeta(in.Meta(), cfg, k)
	if !traces.IsConversion(in.Meta()) { // as simulate's input names it
		meta.SetChecksum(filepath.Base(cfg.Trace), sum)
	}
	partial := PartialPath(out)
	if _, err := os.Lstat(partial); err == nil {
		return nil, fmt.Errorf("replay: %s", stalePartial(partial))
	}
	// The partial stream is what a kill leaves behind: its rows must not
	// read as a complete run.
	pmeta := meta
	pmeta.Extra = maps.Clone(meta.Extra)
	pmeta.Extra["replay.status"] = "partial"
	w, err := createTrace(partial, pmeta)
	if err != nil {
		return nil, err
	}
	tmp := ""
	if tp, ok := w.(interface{ TempPath() string }); ok {
		tmp = tp.TempPath()
		// Give the temporary file a readable .arrows name: a hard link
		// shares its data, so a crash leaves partial's rows readable.
		// A caller that repeats runs itself (verify) sends each as run 1
		// of 1: the file names the run.
		run := ""
		if cfg.Repeat > 1 {
			run = fmt.Sprintf("run %d: ", k)
		}
		kept := partial
		if err := linkFile(tmp, partial); err == nil {
			fmt.Fprintf(log, "%srows go to %s as they complete\n", run, partial)
		} else {
			kept = tmp
			fmt.Fprintf(log, "%srows go to %s (an Arrow IPC stream) as they complete\n", run, tmp)
		}
		// The flushes make the rows durable, but not the name they are
		// under (the link, or the temporary file where there is none):
		// unsynced, a machine crash may take it with the rows.
		if err := atomicfile.SyncDir(filepath.Dir(partial)); err != nil {
			fmt.Fprintf(log, "%swarning: %s: its directory was not synced (%v): a machine crash may lose it and its rows\n", run, kept, err)
		}
	}
	var order []int32
	finished := 0 // measured rows sent and not cut short by the interrupt
	s, runErr := run(ctx, cfg, in, w, func(idx int, r *traces.Request) {
		order = append(order, int32(idx))
		// A warm-up row measures nothing: the summary leaves it out.
		if !r.Warmup && ErrorKind(r.Error) != KindCanceled && !r.SourceFailed {
			finished++
		}
	})
	// As run read it, with its result: an interrupt that lands later,
	// while the files are closed, found every row done and Record returns
	// nil; a write or read error followed by an interrupt lost rows, and
	// is a failure.
	interrupted := s != nil && s.Interrupted
	if s == nil || (runErr != nil && !interrupted) {
		// Configuration, calibration, read or write failure: keep what was
		// flushed for inspection, under the partial name.
		ours := ownsPartial(tmp, partial)
		w.Abort()
		switch {
		case s == nil || len(order) == 0:
			if ours {
				os.Remove(partial) // nothing was written
			}
		case ours:
			// Said now: else the file turns up only when the next run
			// refuses to start beside it.
			runErr = fmt.Errorf("%w (%s)", runErr, keepRows(s, partial, len(order)))
		default:
			runErr = fmt.Errorf("%w (the rows written so far were not kept: %s is another file)", runErr, partial)
		}
		return s, runErr
	}
	if finished == 0 && interrupted {
		// Interrupted before any measured row completed: it measured
		// nothing, and a trace that is empty or holds only warm-up rows and
		// the requests it cut short (canceled) would replace an earlier one
		// of its name.
		ours := ownsPartial(tmp, partial)
		w.Abort()
		if ours {
			os.Remove(partial)
		}
		return s, runErr
	}
	// Asked before Close, which removes the temporary file when it fails.
	linked := tmp != "" && sameFile(tmp, partial)
	// A stream renamed into place whose directory was not synced holds
	// every row: the trace is written from it, and it is then removed, so
	// its directory's entry need not survive a crash.
	if err := w.Close(); err != nil && !atomicfile.OnlyNotSynced(err) {
		if !linked {
			return s, errors.Join(runErr, fmt.Errorf("%w (the rows written so far were not kept)", err))
		}
		return s, errors.Join(runErr, fmt.Errorf("%w (%s)", err, keepRows(s, partial, len(order))))
	}
	if tmp != "" {
		os.Remove(tmp) // still there when Close renamed it onto its own hard link
	}
	if interrupted {
		meta.Extra["replay.status"] = "interrupted"
	}
	err = reorder(partial, out, meta, order)
	// A trace renamed into place whose directory was not synced is
	// written: its rows need not stay in the partial file, which would
	// make the next run refuse to start.
	if err != nil && !atomicfile.OnlyNotSynced(err) {
		s.RowsKeptIn = partial
		return s, errors.Join(runErr, fmt.Errorf("replay: writing %s (rows stay in %s): %w", out, partial, err))
	}
	os.Remove(partial)
	s.Written = true
	if err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("replay: writing %s: %w", out, err))
	}
	return s, runErr
}

// keepRows leaves the rows flushed to partial, the run's stream, there
// (traces.KeepRows), records where in s, and says how many of the written
// rows it holds.
func keepRows(s *Summary, partial string, written int) string {
	note, kept := traces.KeepRows(partial, written)
	if kept {
		s.RowsKeptIn = partial
	}
	return note
}

// ownsPartial says whether the file named partial is the run's stream,
// whose temporary file is tmp ("" when the writer has none): its hard link,
// or, when it has no link there (the file system refused one), tmp renamed
// to it, so that aborting the writer, which removes tmp, does not delete
// its rows. A file of that name that is not the stream (another run's) is
// neither replaced nor the run's to remove.
func ownsPartial(tmp, partial string) bool {
	if tmp == "" {
		_, err := os.Lstat(partial)
		return err == nil
	}
	if sameFile(tmp, partial) {
		return true
	}
	if _, err := os.Lstat(partial); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, partial) == nil
	}
	return false
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// OutputMeta is the metadata of a run's output: the input's, with Source
// "live", the model, cfg's tool version, the block size the prompts were
// built with, and the run's settings under Extra "replay.*" (the base URL
// without any user info, query or fragment; never the key; the prompt
// salt unless 0). What describes how the input was run (its source, engine, device
// and batching, tool version, a recording's proxy.* and replay.* notes, a
// simulation's plan, profile, catalog and closed loop: traces.IsRunKey) is
// kept under input_ names (traces.MoveRunToInput), as simulate keeps it:
// this run ran none of it.
func OutputMeta(in traces.Meta, cfg Config, run int) traces.Meta {
	m := in.Clone()
	m.MoveRunToInput(true)
	m.Source = "live"
	m.Model = cfg.Model
	m.ToolVersion = cfg.ToolVersion
	if cfg.BlockSize > 0 && cfg.BlockSize != in.BlockSize {
		// The prompts shared one block of this many tokens per prefix
		// hash: that is what the measured trace's hashes stand for.
		m.BlockSize = cfg.BlockSize
		m.Set("replay.input_block_size", strconv.Itoa(in.BlockSize))
	}
	base := urlshow.String(cfg.BaseURL)
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		u.User = nil
		base = urlshow.URL(u) // and no query or fragment
	}
	f := strconv.FormatFloat
	set := map[string]string{
		"replay.base_url":         base,
		"replay.endpoint":         string(cfg.Endpoint),
		"replay.arrival":          string(cfg.Arrival),
		"replay.concurrency":      strconv.Itoa(cfg.Concurrency),
		"replay.time_scale":       f(cfg.TimeScale, 'g', -1, 64),
		"replay.temperature":      f(cfg.Temperature, 'g', -1, 64),
		"replay.timeout":          cfg.Timeout.String(), // a slower request fails: the latency tail is cut there
		"replay.ignore_eos":       strconv.FormatBool(cfg.IgnoreEOS),
		"replay.continuous_usage": strconv.FormatBool(cfg.ContinuousUsage),
		"replay.session_wait":     strconv.FormatBool(cfg.SessionWait),
		"replay.max_tokens":       maxTokensNote(cfg.MaxTokens),
		"replay.tokens_per_byte":  f(cfg.Text.TokensPerByte, 'g', 6, 64),
		"replay.prompt_overhead":  f(cfg.Text.Overhead, 'g', 6, 64),
		"replay.prompt_prefix":    f(cfg.Text.Prefix, 'g', 6, 64),
		"replay.run":              strconv.Itoa(run) + "/" + strconv.Itoa(cfg.Repeat),
		"replay.status":           "complete",
	}
	if cfg.Salt != 0 { // 0: each run draws its own
		set["replay.prompt_salt"] = strconv.FormatUint(cfg.Salt, 10)
	}
	for k, v := range set {
		m.Set(k, v)
	}
	return m
}

// maxTokensNote says what max_tokens each request was sent.
func maxTokensNote(limit int) string {
	if limit > 0 {
		return "output_tokens, at least 1 (servers refuse 0), at most " + strconv.Itoa(limit)
	}
	return "output_tokens, at least 1 (servers refuse 0)"
}

// reorder copies the completion-ordered rows of partial to out in input
// order; order[i] is the input index of partial's i-th row. Only rows that
// finished out of order are held in memory.
func reorder(partial, out string, meta traces.Meta, order []int32) error {
	r, err := traces.Open(partial)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := traces.Create(out, meta)
	if err != nil {
		return err
	}
	want := slices.Clone(order)
	slices.Sort(want)
	pending := map[int32]*traces.Request{}
	next, i := 0, 0
	for r.Next() {
		if i >= len(order) {
			w.Abort()
			return fmt.Errorf("%s holds more rows than were written", partial)
		}
		idx := order[i]
		i++
		if idx != want[next] {
			pending[idx] = r.At().Clone()
			continue
		}
		if err := w.Write(r.At()); err != nil {
			w.Abort()
			return err
		}
		for next++; next < len(want); next++ {
			p, ok := pending[want[next]]
			if !ok {
				break
			}
			delete(pending, want[next])
			if err := w.Write(p); err != nil {
				w.Abort()
				return err
			}
		}
	}
	if err := r.Err(); err != nil {
		w.Abort()
		return err
	}
	if i != len(order) || len(pending) > 0 {
		w.Abort()
		return fmt.Errorf("%s holds %d rows, %d were written", partial, i, len(order))
	}
	return w.Close()
}
