package traces

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// completed gives n rows, ids 0 to n-1 with arrival(seq), in a drawn
// completion order.
func completed(n int, arrival func(seq int) int64, rng *rand.Rand) []*Request {
	rows := make([]*Request, n)
	for seq := range rows {
		var row Request
		row.Reset()
		row.ID, row.Arrival, row.PromptTokens, row.OutputTokens = strconv.Itoa(seq), arrival(seq), 1, 1
		rows[seq] = &row
	}
	rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// arrivalIDs reads rows through ArrivalOrder and gives the ids in the
// order read.
func arrivalIDs(t *testing.T, rows []*Request) []string {
	t.Helper()
	r := ArrivalOrder(&sliceReader{rows: rows}, "run.parquet"+PartialSuffix)
	var got []string
	for r.Next() {
		got = append(got, r.At().ID)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// Rows come out as a stable sort of the completion order by arrival
// gives them: ties in their completion order.
func TestArrivalOrderTiesInCompletionOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, group := range []int{1, 3, 50} {
		rows := completed(2000, func(seq int) int64 { return int64(seq / group) }, rng)
		want := slices.Clone(rows)
		slices.SortStableFunc(want, func(x, y *Request) int { return cmp.Compare(x.Arrival, y.Arrival) })
		got := arrivalIDs(t, rows)
		if len(got) != len(want) {
			t.Fatalf("group %d: %d rows, want %d", group, len(got), len(want))
		}
		for i, row := range want {
			if got[i] != row.ID {
				t.Fatalf("group %d: row %d is id %s, want %s", group, i+1, got[i], row.ID)
			}
		}
	}
}

// Many rows of one arrival (requests landing within the clock's
// resolution) keep their completion order.
func TestArrivalOrderManyTies(t *testing.T) {
	const n = 30000
	rows := completed(n, func(int) int64 { return 7 }, rand.New(rand.NewPCG(3, 4)))
	got := arrivalIDs(t, rows)
	for i, row := range rows {
		if got[i] != row.ID {
			t.Fatalf("row %d is id %s, want %s: ties keep their completion order", i+1, got[i], row.ID)
		}
	}
}

// BenchmarkArrivalOrderTies reads 30,000 rows of one arrival: ordering
// them once is linear in the rows, once per row given was quadratic
// (about 8 s).
func BenchmarkArrivalOrderTies(b *testing.B) {
	const n = 30000
	rows := completed(n, func(int) int64 { return 7 }, rand.New(rand.NewPCG(3, 4)))
	for b.Loop() {
		r := ArrivalOrder(&sliceReader{rows: rows}, "run.parquet"+PartialSuffix)
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
}
