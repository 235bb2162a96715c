package calibrate

import (
	"os"
	"strings"
	"testing"
)

// A profile's fit quality and power fit are read by people and by verify
// (the held-out error): an impossible figure or a power coefficient no fit
// gives is refused, naming the field and what it should hold.
func TestLoadProfileRejectsImpossibleQualityAndPower(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	for _, tc := range []struct{ name, from, to, want string }{
		{"negative rmse", `"rmse": 0.0011`, `"rmse": -0.0011`, `quality.rmse = -0.0011, want a finite number ≥ 0`},
		{"negative mdape", `"mdape": 0.012`, `"mdape": -0.012`, `quality.mdape = -0.012, want a finite number ≥ 0`},
		{"r2 above 1", `"r2": 0.998`, `"r2": 1.5`, `quality.r2 = 1.5, want a finite number ≤ 1`},
		{"negative held-out error", `"held_out_mdape": 0.031`, `"held_out_mdape": -0.031`, `quality.held_out_mdape = -0.031, want a finite number ≥ 0`},
		{"negative count", `"n": 2907`, `"n": -1`, `quality.n = -1, want ≥ 0`},
		{"power status", `"status": "fit"
    },
    "dynamic_watts"`, `"status": "guess"
    },
    "dynamic_watts"`, `power.idle_watts.status = "guess"`},
		{"negative power", `"value": 550`, `"value": -550`, `power.dynamic_watts.value = -550, must be finite and >= 0`},
		{"power quality", `"rmse": 5`, `"rmse": -5`, `power.quality.rmse = -5, want a finite number ≥ 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.Replace(g, tc.from, tc.to, 1)
			if s == g {
				t.Fatalf("replacement %q not found", tc.from)
			}
			if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// kv.blocks is kv.max_concurrent_tokens in blocks of block_size, and the
// simulator takes it over the tokens when the plan's block size is the
// profile's: blocks that say otherwise would size the cache unseen.
func TestLoadProfileRejectsKVBlocksThatAreNotItsTokens(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	for _, tc := range []struct{ name, from, to, want string }{
		{"blocks beyond the tokens", `"blocks": 28312`, `"blocks": 2000000`,
			`kv.blocks = 2000000: want 28312 to 28313, kv.max_concurrent_tokens 453000 in blocks of block_size 16`},
		{"blocks short of the tokens", `"blocks": 28312`, `"blocks": 10`,
			`kv.blocks = 10: want 28312 to 28313`},
		{"blocks without a block size", `"block_size": 16`, `"block_size": 0`,
			`kv.blocks = 28312 with block_size = 0: want the block size they are counted in, or kv.blocks 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.Replace(g, tc.from, tc.to, 1)
			if s == g {
				t.Fatalf("replacement %q not found", tc.from)
			}
			if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Either rounding of the tokens is those tokens in blocks.
	for _, blocks := range []string{"28312", "28313"} {
		s := strings.Replace(g, `"blocks": 28312`, `"blocks": `+blocks, 1)
		if _, err := ParseProfile([]byte(s)); err != nil {
			t.Errorf("blocks %s: %v", blocks, err)
		}
	}
}

// The measured ranges name what the fit saw; a negative one is no range.
func TestLoadProfileRejectsNegativeMeasuredRanges(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{
		"max_seqs":    "max_seqs = -4, must be >= 0 (0: not recorded)",
		"max_context": "max_context = -4, must be >= 0 (0: not recorded)",
	} {
		s := strings.Replace(string(golden), `"version": 1,`, `"version": 1, "`+field+`": -4,`, 1)
		if s == string(golden) {
			t.Fatal(`"version": 1, not found`)
		}
		if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", field, err, want)
		}
	}
}

// held_out_mdape is the error over n_held_out observations: a figure over
// none, or a count with no figure, is a profile no held-out check writes,
// and verify would report the figure as the step model's accuracy.
func TestLoadProfileRejectsHeldOutErrorWithoutItsCount(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	for _, tc := range []struct{ name, from, to, want string }{
		{"count without error", `"held_out_mdape": 0.031`, `"held_out_mdape": null`,
			`quality.held_out_mdape = null with n_held_out = 900: want both set (a held-out check) or null and 0 (none)`},
		{"error without count", `"n_held_out": 900`, `"n_held_out": 0`,
			`quality.held_out_mdape = 0.031 with n_held_out = 0: want both set (a held-out check) or null and 0 (none)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.Replace(g, tc.from, tc.to, 1)
			if s == g {
				t.Fatalf("replacement %q not found", tc.from)
			}
			if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Neither, as a fit with no held-out check writes, loads.
	s := strings.Replace(strings.Replace(g, `"held_out_mdape": 0.031`, `"held_out_mdape": null`, 1), `"n_held_out": 900`, `"n_held_out": 0`, 1)
	if _, err := ParseProfile([]byte(s)); err != nil {
		t.Errorf("no held-out check: %v", err)
	}
}
