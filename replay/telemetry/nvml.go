//go:build linux && cgo

package telemetry

import (
	"fmt"
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// nvmlSource samples every device NVML reports.
type nvmlSource struct {
	devs []nvmlDev
}

type nvmlDev struct {
	index      int
	dev        nvml.Device
	uuid, name string
	total      int64
}

// OpenNVML initialises NVML and returns a Source over every NVIDIA GPU and
// the function that shuts NVML down again. Without a driver (or without
// libnvidia-ml.so.1) it returns an error wrapping ErrNoDriver.
func OpenNVML() (src Source, closeFn func() error, err error) {
	defer func() {
		// go-nvml dlopens libnvidia-ml; be safe if a broken install panics.
		if p := recover(); p != nil {
			src, closeFn, err = nil, nil, fmt.Errorf("%w: %v", ErrNoDriver, p)
		}
	}()
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		return nil, nil, fmt.Errorf("%w: nvml.Init: %v", ErrNoDriver, ret)
	}
	shutdown := func() error {
		if ret := nvml.Shutdown(); ret != nvml.SUCCESS {
			return fmt.Errorf("nvml.Shutdown: %v", ret)
		}
		return nil
	}
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		shutdown()
		return nil, nil, fmt.Errorf("%w: nvml.DeviceGetCount: %v", ErrNoDriver, ret)
	}
	s := &nvmlSource{}
	for i := 0; i < n; i++ {
		d, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			shutdown()
			return nil, nil, fmt.Errorf("telemetry: nvml device %d: %v", i, ret)
		}
		nd := nvmlDev{index: i, dev: d, total: Missing}
		if v, ret := d.GetUUID(); ret == nvml.SUCCESS {
			nd.uuid = v
		}
		if v, ret := d.GetName(); ret == nvml.SUCCESS {
			nd.name = v
		}
		s.devs = append(s.devs, nd)
	}
	if len(s.devs) == 0 {
		shutdown()
		return nil, nil, fmt.Errorf("%w: NVML reports no devices", ErrNoDriver)
	}
	return s, shutdown, nil
}

// Sample reads each device; a reading the device does not support stays
// Missing or NaN.
func (s *nvmlSource) Sample() ([]DeviceSample, error) {
	out := make([]DeviceSample, 0, len(s.devs))
	for _, d := range s.devs {
		x := NewDeviceSample(d.index)
		x.UUID, x.Name = d.uuid, d.name
		if m, ret := d.dev.GetMemoryInfo(); ret == nvml.SUCCESS {
			x.MemUsed, x.MemTotal = clampInt64(m.Used), clampInt64(m.Total)
		}
		if mw, ret := d.dev.GetPowerUsage(); ret == nvml.SUCCESS {
			x.PowerW = float64(mw) / 1e3
		}
		if mj, ret := d.dev.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
			x.EnergyMJ = clampInt64(mj)
		}
		if u, ret := d.dev.GetUtilizationRates(); ret == nvml.SUCCESS {
			x.SMUtil = int32(u.Gpu)
		}
		if c, ret := d.dev.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
			x.SMClockMHz = int32(c)
		}
		if c, ret := d.dev.GetClockInfo(nvml.CLOCK_MEM); ret == nvml.SUCCESS {
			x.MemClockMHz = int32(c)
		}
		out = append(out, x)
	}
	return out, nil
}

func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
