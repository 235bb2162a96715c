// Command kvtrace compares the cells an engine's decode steps attended
// over, as a traced engine logged them (scripts/kv-trace.sh), with the slot
// model's, run by run, and prints how long the engine's decode steps took
// (the time from one decode ubatch to the next of the same width: 10th,
// 50th and 90th percentile).
//
//	go run ./scripts/kvtrace CALIBRATE_LOG ENGINE_LOG
//	go run ./scripts/kvtrace -decode ENGINE_LOG...
//	go run ./scripts/kvtrace -widths ENGINE_LOG DECISIONS
//	go run ./scripts/kvtrace -model PROFILE ENGINE_LOG...
//
// CALIBRATE_LOG is `servesim calibrate`'s output with every line prefixed
// by its time in µs since the epoch: the progress lines ("[k/n] run 2.1s
// ...") date each run and its "by run" lines give the model's median
// resident tokens. ENGINE_LOG holds the engine's "SSKV t=µs n=cells ..."
// lines, one per ubatch; ubatches of at most 8 tokens are decode steps.
//
// With -decode it reads only engine logs and prints how a decode step's
// time depends on its width and on the cells it attends over (see
// decode.go). With -widths it counts an engine log's steps by kind beside
// a simulator decision log's (see widths.go). With -model it times every
// step of each engine log against a calibrated profile's step model, by
// kind of step (see model.go).
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	progress = regexp.MustCompile(`^(\d+)\s+\[\s*\d+/\d+\]\s+(\S+)\s+([\d.]+)s\b`)
	byRun    = regexp.MustCompile(`^\d+\s+(\S+)\s+n=\d+\s+resident\s+(\d+)\s`)
)

// usage lists every form main takes.
const usage = `usage: kvtrace CALIBRATE_LOG ENGINE_LOG
       kvtrace -decode ENGINE_LOG...
       kvtrace -widths ENGINE_LOG DECISIONS
       kvtrace -model PROFILE ENGINE_LOG...`

// misused says whether args, which no flag form took, do not fit
// CALIBRATE_LOG ENGINE_LOG either: a flag form short of arguments lands
// here, and a flag is no log's name.
func misused(args []string) bool {
	return len(args) != 3 || strings.HasPrefix(args[1], "-")
}

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "-decode" {
		decodeSteps(os.Args[2:])
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "-model" {
		modelSteps(os.Args[2], os.Args[3:])
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "-widths" {
		widths(os.Args[2], os.Args[3])
		return
	}
	if misused(os.Args) {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	type run struct {
		name       string
		start, end int64
	}
	var runs []run
	model := map[string]string{}
	err := lines(os.Args[1], func(l string) error {
		if m := progress.FindStringSubmatch(l); m != nil {
			end, _ := strconv.ParseInt(m[1], 10, 64)
			dur, _ := strconv.ParseFloat(m[3], 64)
			runs = append(runs, run{m[2], end - int64(dur*1e6), end})
		} else if m := byRun.FindStringSubmatch(l); m != nil {
			model[m[1]] = m[2]
		}
		return nil
	})
	if err != nil {
		fail(err)
	}
	steps, err := readUbatches(os.Args[2])
	if err != nil {
		fail(err)
	}
	if len(runs) == 0 || len(steps) == 0 {
		fail(fmt.Errorf("no runs in %s or no traced steps in %s", os.Args[1], os.Args[2]))
	}
	fmt.Printf("%-22s %8s %8s   %s\n", "run", "engine", "model", "(median cells a decode step attends over; the engine's decode step, ms: p10 p50 p90)")
	for _, r := range runs {
		cells, gaps := runDecodeSteps(steps, r.start, r.end)
		eng, m := "-", "-"
		if len(cells) > 0 {
			eng = strconv.FormatInt(quantile(cells, 0.5), 10)
		}
		if v, ok := model[r.name]; ok {
			m = v
		}
		times := ""
		if len(gaps) > 0 {
			times = fmt.Sprintf("%5.1f %5.1f %5.1f", float64(quantile(gaps, 0.1))/1e3, float64(quantile(gaps, 0.5))/1e3, float64(quantile(gaps, 0.9))/1e3)
		}
		fmt.Printf("%-22s %8s %8s   %s\n", r.name, eng, m, times)
	}
}

// runDecodeSteps returns, for the decode ubatches (at most 8 tokens) placed
// from start to end µs, the cells each attended over, and the gaps from the
// previous ubatch of the same width when that one too lies in the window,
// stamped no later.
func runDecodeSteps(steps []ubatchLine, start, end int64) (cells, gaps []int64) {
	for i, s := range steps {
		if s.t < start || s.t > end || s.tokens > 8 {
			continue
		}
		cells = append(cells, int64(s.cells))
		if i == 0 {
			continue
		}
		if p := steps[i-1]; p.t >= start && p.t <= s.t && p.tokens == s.tokens {
			gaps = append(gaps, s.t-p.t)
		}
	}
	return cells, gaps
}

// quantile sorts v and returns its q-quantile (nearest rank below).
func quantile(v []int64, q float64) int64 {
	slices.Sort(v)
	return v[min(len(v)-1, int(q*float64(len(v))))]
}

// lines calls f on each line of path in turn; an error of f stops it and
// is returned naming the file and the line.
func lines(path string, f func(string) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if err := f(sc.Text()); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		// The scanner's error ("token too long") names neither.
		return fmt.Errorf("%s: line %d: %w", path, n+1, err)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kvtrace:", err)
	os.Exit(1)
}
