package report

import "testing"

// A simulate --out folder and its plan's trace given beside it are two
// runs of one name and one path (the summary's run takes its latencies
// from that trace): their names still differ.
func TestRunsOfOneNameAndPathAreToldApart(t *testing.T) {
	a, b := handRun("continuous", 0.1), handRun("continuous", 0.1)
	a.Path, b.Path = "one/continuous.parquet", "one/continuous.parquet"
	b.Result = nil
	d, err := Build("t", &Inputs{Runs: []*Run{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	rows := d.Sections[0].Blocks[0].(*Table).Rows
	if rows[0][0] == rows[1][0] {
		t.Errorf("both runs are named %q", rows[0][0])
	}
}
