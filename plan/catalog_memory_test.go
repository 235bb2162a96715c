package plan

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// hugeGPU is a hardware entry whose memory holds more KV blocks than the
// simulator can count (a mistyped memory_bytes, say).
const hugeGPU = "[[hardware]]\nname = \"huge\"\nmemory_bytes = 1e20\nbandwidth_bytes_per_sec = 1e12\ntdp_watts = 100\nidle_watts = 10\nprice_per_hour = 1\n[hardware.flops]\nbf16 = 4e14\n"

// A memory layout the catalog's hardware entry makes impossible is named
// by the plan key that chose the entry, at its line, as other values the
// catalog refuses are. It was "Llama-3.1-8B on 1× huge: model: ..." with
// neither key nor line.
func TestResolveNamesTheDeviceWhoseMemoryCannotBeLaidOut(t *testing.T) {
	cat := model.DefaultCatalog()
	if err := cat.LoadTOMLData([]byte(hugeGPU), "huge.toml"); err != nil {
		t.Fatal(err)
	}
	p, err := Load(writePlan(t, strings.Replace(valid, `model = "H100-SXM-80G"`, `model = "huge"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(cat)
	if err == nil || !strings.Contains(err.Error(), "line 15: device.model: ") || !strings.Contains(err.Error(), "more than can be counted") {
		t.Errorf("err = %v\nwant line 15: device.model: ... more than can be counted", err)
	}
}
