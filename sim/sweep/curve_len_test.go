package sweep

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// A load curve is the rows of every curve column together: a file whose
// curve columns hold lists of different lengths for a row (written by
// another tool, or edited) is refused, naming the column and the row,
// rather than read as points with zero or missing values.
func TestReadFileCurveLengthsDiffer(t *testing.T) {
	saved := slices.Clone(columns)
	defer func() { columns = saved }()
	for i, c := range columns {
		if c.field.Name == "curve_req_per_s" {
			columns[i].put = func(b array.Builder, r *Row) { // one value short
				lb := b.(*array.ListBuilder)
				lb.Append(true)
				for _, p := range r.Curve[1:] {
					lb.ValueBuilder().(*array.Float64Builder).Append(p.ReqPerSec)
				}
			}
		}
	}
	row := Row{Index: 0, Label: "a", Outcome: OutcomeOK, Strategy: "continuous", MaxWaitMs: math.NaN(), RateScale: math.NaN(),
		Curve: []CurvePoint{{Scale: 1, ReqPerSec: 2, OutTokPerSec: 3}, {Scale: 2, ReqPerSec: 4, OutTokPerSec: 5}}}
	for _, f := range []*float64{&row.Scale, &row.ArrivalRate, &row.GoodputFraction, &row.GoodputReqPerSec, &row.GoodputOutTokPerSec,
		&row.GoodputOutTokPerSecPerDevice, &row.ReqPerSec, &row.OutTokPerSec, &row.TTFTP50, &row.TTFTP99, &row.TPOTMean, &row.TPOTP99,
		&row.E2EP99, &row.DeviceSeconds, &row.USDPerMOutEst, &row.USDPerMTotalEst, &row.USDPerMOutBilled,
		&row.SatScale, &row.SatOutTokPerSec, &row.SatUSDPerMOut, &row.TailPenalty, &row.KneeScale, &row.GPUMemoryUtilization} {
		*f = math.NaN()
	}
	path := filepath.Join(t.TempDir(), "results.parquet")
	if err := WriteFile(path, &Results{Rows: []Row{row}, Meta: Meta{Shard: Shard{0, 1}, TotalConfigs: 1}}); err != nil {
		t.Fatal(err)
	}
	columns = saved
	res, err := ReadFile(path)
	if err == nil {
		t.Fatalf("read a curve of %d points: %+v", len(res.Rows[0].Curve), res.Rows[0].Curve)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `row 1: column "curve_req_per_s" holds 1 curve points, curve_scale 2`) {
		t.Errorf("error %q; want the file and the column named", err)
	}
}
