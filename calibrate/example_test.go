package calibrate_test

import (
	"fmt"
	"os"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
)

// Compare the non-attention step time of Vidur's measured operator profile
// with the roofline prior for Llama-2-7B on one H100.
func ExampleCompareVidurRoofline() {
	rows, err := calibrate.LoadVidurCSV("testdata/vidur/h100/meta-llama/Llama-2-7b-hf/mlp.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	cat := model.DefaultCatalog()
	a, _ := cat.Arch("Llama-2-7B")
	h, _ := cat.Hardware("H100-SXM-80G")
	prior, err := calibrate.NewVidurPrior(rows, calibrate.VidurShapeOf(a, 1), a.Layers)
	if err != nil {
		fmt.Println(err)
		return
	}
	roof, err := model.NewRoofline(a, h, model.MemoryConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pts := calibrate.CompareVidurRoofline(prior, roof, []float64{1, 64, 512, 4096})
	if err := calibrate.WritePriorComparison(os.Stdout, pts); err != nil {
		fmt.Println(err)
	}
	// Output:
	//   tokens     vidur_ms   vidur_line  roofline_ms   roofline+ovh
	//        1        5.600        4.748        4.733          6.733
	//       64        5.856        5.924        4.733          6.745
	//      512       11.984       14.289        9.967         11.967
	//     4096       83.208       81.204       79.736         81.736
}
