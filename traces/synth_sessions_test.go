package traces

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// sessionConfig is a session trace whose turns interleave: sessions start
// at 2/s and take 5 s between turns, so several are open at once.
func sessionConfig() SynthConfig {
	c := DefaultSynthConfig()
	c.Requests = 300
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Rate: 2}
	c.Prompt = LengthSpec{Kind: LengthFixed, Value: 100}
	c.Output = LengthSpec{Kind: LengthUniform, Min: 10, Max: 50}
	c.Turns = LengthSpec{Kind: LengthFixed, Value: 4}
	c.ThinkTime = 5
	c.BlockSize = 16
	return c
}

func bySession(t *testing.T, rows []*Request) map[string][]*Request {
	t.Helper()
	s := map[string][]*Request{}
	for _, r := range rows {
		if r.SessionID == "" {
			t.Fatalf("row %s has no session", r.ID)
		}
		s[r.SessionID] = append(s[r.SessionID], r)
	}
	return s
}

func commonPrefix(a, b []uint64) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Each turn's prompt is the conversation so far plus a new message, and
// its hashes share exactly the previous turn's full prompt blocks: the
// previous turn's partial last block held other tokens than the block
// that now fills it.
func TestSynthSessionsShareHistory(t *testing.T) {
	c := sessionConfig()
	_, rows := synthAll(t, c)
	if len(rows) != c.Requests {
		t.Fatalf("rows = %d, want %d (requests count rows, not sessions)", len(rows), c.Requests)
	}
	sessions := bySession(t, rows)
	multi := 0
	for id, turns := range sessions {
		if len(turns) > 4 {
			t.Fatalf("session %s has %d turns, want at most 4", id, len(turns))
		}
		if turns[0].PromptTokens != 100 {
			t.Errorf("session %s: first turn prompt %d, want 100", id, turns[0].PromptTokens)
		}
		for k, r := range turns {
			if want := (int(r.PromptTokens) + 15) / 16; len(r.PrefixHashes) != want {
				t.Errorf("session %s turn %d: %d hashes for %d tokens, want %d", id, k, len(r.PrefixHashes), r.PromptTokens, want)
			}
			if k == 0 {
				continue
			}
			multi++
			prev := turns[k-1]
			if want := prev.PromptTokens + prev.OutputTokens + 100; r.PromptTokens != want {
				t.Errorf("session %s turn %d: prompt %d, want history %d + output %d + 100", id, k, r.PromptTokens, prev.PromptTokens, prev.OutputTokens)
			}
			if got, want := commonPrefix(prev.PrefixHashes, r.PrefixHashes), int(prev.PromptTokens)/16; got != want {
				t.Errorf("session %s turn %d: shares %d blocks with the previous turn, want its %d full blocks", id, k, got, want)
			}
			if r.Arrival <= prev.Arrival {
				t.Errorf("session %s turn %d arrives at %d, not after the previous turn's %d", id, k, r.Arrival, prev.Arrival)
			}
		}
	}
	if multi == 0 {
		t.Fatal("no session has a second turn")
	}
	// Sessions do not share history: first blocks differ across sessions.
	firsts := map[uint64]string{}
	for id, turns := range sessions {
		if other, ok := firsts[turns[0].PrefixHashes[0]]; ok {
			t.Fatalf("sessions %s and %s share their first block", id, other)
		}
		firsts[turns[0].PrefixHashes[0]] = id
	}
}

// Rows come in arrival order, ids in row order, and a session's turns
// interleave with other sessions'.
func TestSynthSessionsArrivalsOrdered(t *testing.T) {
	c := sessionConfig()
	c.Warmup = 3
	_, rows := synthAll(t, c)
	if len(rows) != c.Requests+c.Warmup {
		t.Fatalf("rows = %d, want %d", len(rows), c.Requests+c.Warmup)
	}
	interleaved := false
	for i, r := range rows {
		if r.ID != fmt.Sprint(i) || r.Warmup != (i < c.Warmup) {
			t.Errorf("row %d: id %q warmup %v", i, r.ID, r.Warmup)
		}
		if i > 0 && r.Arrival < rows[i-1].Arrival {
			t.Fatalf("row %d arrives at %d, before row %d's %d", i, r.Arrival, i-1, rows[i-1].Arrival)
		}
		if i > 0 && r.SessionID != rows[i-1].SessionID {
			cur, _ := strconv.Atoi(r.SessionID)
			prev, _ := strconv.Atoi(rows[i-1].SessionID)
			interleaved = interleaved || cur < prev
		}
	}
	if !interleaved {
		t.Error("no earlier session's turn follows a later session's: turns do not interleave")
	}
}

func TestSynthSessionsDeterministic(t *testing.T) {
	c := sessionConfig()
	c.Turns = LengthSpec{Kind: LengthUniform, Min: 1, Max: 6}
	c.PrefixGroups, c.PrefixTokens = 3, 64
	m1, a := synthAll(t, c)
	m2, b := synthAll(t, c)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(m1, m2) {
		t.Fatal("same seed, different traces")
	}
	c.Seed++
	_, d := synthAll(t, c)
	if reflect.DeepEqual(a, d) {
		t.Fatal("different seeds, same trace")
	}
	if m1.Extra["turns"] != "uniform(1,6)" || m1.Extra["think_time"] != "5" {
		t.Errorf("meta turns %q think_time %q, want uniform(1,6) and 5", m1.Extra["turns"], m1.Extra["think_time"])
	}
}

// A group's shared prefix opens a session's first turn only; every later
// turn carries it in its history.
func TestSynthSessionsPrefixOnce(t *testing.T) {
	c := sessionConfig()
	c.PrefixGroups, c.PrefixTokens = 2, 64
	_, rows := synthAll(t, c)
	for id, turns := range bySession(t, rows) {
		if turns[0].PromptTokens != 164 {
			t.Errorf("session %s: first prompt %d, want prefix 64 + 100", id, turns[0].PromptTokens)
		}
		for k := 1; k < len(turns); k++ {
			prev := turns[k-1]
			if want := prev.PromptTokens + prev.OutputTokens + 100; turns[k].PromptTokens != want {
				t.Errorf("session %s turn %d: prompt %d, want %d", id, k, turns[k].PromptTokens, want)
			}
		}
	}
}

// A conversation whose next prompt would pass the token bound ends there.
func TestSynthSessionsEndAtMaxTokens(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 10
	c.Prompt = LengthSpec{Kind: LengthFixed, Value: 4_000_000}
	c.Output = LengthSpec{Kind: LengthFixed, Value: 1_000_000}
	c.Turns = LengthSpec{Kind: LengthFixed, Value: 5}
	c.ThinkTime = 1
	_, rows := synthAll(t, c)
	if len(rows) != 10 {
		t.Fatalf("rows = %d", len(rows))
	}
	for _, r := range rows {
		if r.PromptTokens > DefaultMaxTokens {
			t.Fatalf("row %s: prompt %d past %d", r.ID, r.PromptTokens, DefaultMaxTokens)
		}
	}
	for id, turns := range bySession(t, rows) {
		if len(turns) > 2 {
			t.Errorf("session %s has %d turns; a third would be 14,000,000 tokens", id, len(turns))
		}
	}
}

func TestSynthSessionsValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		set   func(*SynthConfig)
		field string
	}{
		"zero turns":   {func(c *SynthConfig) { c.Turns = LengthSpec{Kind: LengthFixed, Value: 0} }, "Turns"},
		"no think":     {func(c *SynthConfig) { c.ThinkTime = 0 }, "ThinkTime"},
		"inf think":    {func(c *SynthConfig) { c.ThinkTime = 1e300 }, "ThinkTime"},
		"matrix":       {func(c *SynthConfig) { c.PromptLengths = []int32{10} }, "Turns"},
		"uniform zero": {func(c *SynthConfig) { c.Turns = LengthSpec{Kind: LengthUniform, Min: 0, Max: 3} }, "Turns"},
	} {
		c := sessionConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "SynthConfig."+tc.field+":") {
			t.Errorf("%s: err = %v, want one naming %s", name, err, tc.field)
		}
	}
}

// One turn per session, the default, makes the trace it made before
// sessions existed, row for row.
func TestSynthOneTurnUnchanged(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 300
	c.Arrival = ArrivalSpec{Kind: ArrivalGamma, Rate: 10, CV: 3}
	c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 1000, CV: 1}
	c.Output = LengthSpec{Kind: LengthUniform, Min: 10, Max: 20}
	c.PrefixGroups, c.PrefixTokens, c.BlockSize, c.Warmup = 4, 1024, 256, 2
	m, rows := synthAll(t, c)
	h := fnv.New64a()
	for _, r := range rows {
		fmt.Fprintf(h, "%s %d %d %d %v %q %v\n", r.ID, r.Arrival, r.PromptTokens, r.OutputTokens, r.PrefixHashes, r.SessionID, r.Warmup)
	}
	if got, want := h.Sum64(), uint64(0x16818a58a75a3480); got != want {
		t.Errorf("rows digest %#x, want %#x", got, want)
	}
	for _, k := range []string{"turns", "think_time"} {
		if _, ok := m.Extra[k]; ok {
			t.Errorf("meta has %q for a trace without sessions", k)
		}
	}
}

// A think time near the clock's bound draws gaps whose ns pass int64: the
// sessions end rather than wrap to arrivals before their start.
func TestSynthSessionsLongThinkTime(t *testing.T) {
	c := sessionConfig()
	c.ThinkTime = maxSeconds
	c.Requests = 50
	_, rows := synthAll(t, c)
	for i, r := range rows {
		if r.Arrival < 0 || r.Arrival > maxSeconds*1e9 || (i > 0 && r.Arrival < rows[i-1].Arrival) {
			t.Fatalf("row %d arrives at %d (previous %d)", i, r.Arrival, rows[max(i-1, 0)].Arrival)
		}
	}
}

// A session whose first turn would arrive past the clock does not end
// the trace while open sessions still have turns to give (seed 1 draws
// the second session's start past 2^32 s).
func TestSynthSessionsStartPastClock(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 3
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Rate: 2.0001 / maxSeconds}
	c.Turns, c.ThinkTime = LengthSpec{Kind: LengthFixed, Value: 3}, 1
	_, rows := synthAll(t, c)
	if len(rows) != 3 || rows[2].SessionID != "0" {
		t.Fatalf("got %d rows, want the first session's 3 turns", len(rows))
	}
}

// A think time without sessions would be dropped unseen: the trace would
// have no turns to space and its metadata no think_time.
func TestSynthThinkTimeWithoutSessions(t *testing.T) {
	for _, turns := range []LengthSpec{{}, {Kind: LengthFixed, Value: 1}} {
		c := DefaultSynthConfig()
		c.Turns, c.ThinkTime = turns, 2
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "SynthConfig.ThinkTime: ") || !strings.Contains(err.Error(), "more than one turn") {
			t.Errorf("turns %+v: err = %v, want ThinkTime refused without sessions", turns, err)
		}
	}
}
