package sweep

import (
	"context"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/traces"
)

// BenchmarkProbe is one complete capacity probe of the default continuous
// plan over the whole Azure 2023 conversation trace (19,366 requests),
// replayed from memory at scale 2, and one that aborts early at scale 8.
func BenchmarkProbe(b *testing.B) {
	in, err := traces.Import(azureConv, traces.FormatAuto, traces.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	tr, err := LoadTrace("azure-conv", in)
	in.Close()
	if err != nil {
		b.Fatal(err)
	}
	s, err := ParseSpec([]byte("base = \"../../cmd/servesim/defaults/4-continuous.toml\"\n[slo]\nttft_p99_ms = 2000\ntpot_p99_ms = 50\n"), "bench.toml")
	if err != nil {
		b.Fatal(err)
	}
	ex, err := Expand(s, model.DefaultCatalog())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		scale float64
	}{{"complete", 2}, {"aborted", 8}} {
		b.Run(tc.name, func(b *testing.B) {
			var ev evaluator
			ev.reset(tr, s, &ex.Configs[0])
			b.ReportAllocs()
			for b.Loop() {
				clear(ev.cache)
				if _, err := ev.run(context.Background(), tc.scale, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExpand builds the 1,216 configs of the example sweep: the
// time a big sweep spends before its first simulation.
func BenchmarkExpand(b *testing.B) {
	s, err := LoadSpec("testdata/llama8b-h100-azure-conv.toml")
	if err != nil {
		b.Fatal(err)
	}
	cat := model.DefaultCatalog()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Expand(s, cat); err != nil {
			b.Fatal(err)
		}
	}
}
