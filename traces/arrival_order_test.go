package traces

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// stageIDs writes rows of the given ids, in that order, as a staging stream.
func stageIDs(t *testing.T, ids ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.parquet"+PartialSuffix)
	w, err := Create(path, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		var row Request
		row.Reset()
		row.ID, row.Arrival, row.PromptTokens, row.OutputTokens = id, int64(i), 1, 1
		if err := w.Write(&row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyIDs converts the staging stream of ids and gives the ids written.
func copyIDs(t *testing.T, ids ...string) ([]string, error) {
	t.Helper()
	src := stageIDs(t, ids...)
	r, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dst := filepath.Join(t.TempDir(), "out.jsonl")
	w, err := Create(dst, r.Meta())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(context.Background(), w, ArrivalOrder(r, src)); err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, rows, err := ReadAll(dst)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range rows {
		got = append(got, row.ID)
	}
	return got, nil
}

// Rows staged in completion order come out in arrival order; a row a
// failed write never staged (3) leaves the later ones held to the end,
// still in order.
func TestArrivalOrderAcrossAGap(t *testing.T) {
	got, err := copyIDs(t, "2", "0", "5", "4", "1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "0 1 2 4 5"; strings.Join(got, " ") != want {
		t.Errorf("ids %v, want %s", got, want)
	}
}

// A staging stream whose ids are not each arrival's once is refused,
// naming the file, the row (counted from 1, as the traces' readers count)
// and the id.
func TestArrivalOrderRefusesBadIDs(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{[]string{"0", "0"}, `row 2: id "0"`},
		{[]string{"2", "2"}, `row 2: id "2"`},
		{[]string{"1", "x"}, `row 2: id "x"`},
		{[]string{"-1"}, `row 1: id "-1"`},
	} {
		_, err := copyIDs(t, tc.ids...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), PartialSuffix) {
			t.Errorf("ids %v: error %v, want one naming the staging stream and %s", tc.ids, err, tc.want)
		}
	}
}
