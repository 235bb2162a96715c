package model

import (
	"strings"
	"testing"
)

// A new hardware entry that leaves out its power figures or price is
// refused naming them, instead of a device drawing 0 W (whose energy then
// costs nothing) at $0 an hour; an entry overriding a built-in one still
// gives only what it changes.
func TestLoadTOMLNewHardwareNeedsEveryKey(t *testing.T) {
	const newGPU = "[[hardware]]\nname = \"my-gpu\"\nmemory_bytes = 25_769_803_776\nbandwidth_bytes_per_sec = 1.0e12\n[hardware.flops]\nbf16 = 2.0e14\n"
	c := DefaultCatalog()
	err := c.LoadTOMLData([]byte(newGPU), "user.toml")
	if err == nil || !strings.Contains(err.Error(), "user.toml: line 1: hardware my-gpu: missing required key tdp_watts, idle_watts, price_per_hour") {
		t.Errorf("err %v: want the missing keys named", err)
	}
	if _, err := c.Hardware("my-gpu"); err == nil {
		t.Error("the incomplete entry was added")
	}
	full := strings.Replace(newGPU, "[hardware.flops]", "tdp_watts = 300\nidle_watts = 0\nprice_per_hour = 0\n[hardware.flops]", 1)
	if err := c.LoadTOMLData([]byte(full), "user.toml"); err != nil {
		t.Errorf("every key given (0 W idle, free): %v", err)
	}
	if err := c.LoadTOMLData([]byte("[[hardware]]\nname = \"A100-80G\"\nprice_per_hour = 1.5\n"), "user.toml"); err != nil {
		t.Errorf("override of one key: %v", err)
	}
}
