package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/numfmt"
)

// The report and compare write a latency as simulate's table does
// ("8m27s", "42.1ms"), so that one figure reads the same in all three.
func TestLatenciesReadAsSimulatePrintsThem(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{{507, "8m27s"}, {3.21, "3.21s"}, {0.0421, "42.1ms"}, {0.00085, "850µs"}, {3600, "1h0m0s"}, {-2, "-2.00s"}} {
		if got := numfmt.Secs(c.s); got != c.want {
			t.Errorf("numfmt.Secs(%v) = %q, want %q", c.s, got, c.want)
		}
	}
	a, b := handRun("a", 253.5), handRun("b", 253.5) // P99 E2E 507 s
	var out strings.Builder
	if err := WriteComparison(&out, a, b, compareRuns(t, a, b, 0.1), 0.1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "8m27s") {
		t.Errorf("compare does not write 507 s as 8m27s:\n%s", out.String())
	}
	d, err := Build("t", &Inputs{Runs: []*Run{a}})
	if err != nil {
		t.Fatal(err)
	}
	if row := d.Sections[0].Blocks[0].(*Table).Rows[0]; !strings.Contains(strings.Join(row, "|"), "|8m27s|") {
		t.Errorf("the comparison table's row does not write 507 s as 8m27s: %q", row)
	}
}
