//go:build !(linux && cgo)

package telemetry

import "fmt"

// OpenNVML always fails on this build: NVML needs Linux and cgo.
func OpenNVML() (Source, func() error, error) {
	return nil, nil, fmt.Errorf("%w: this build has no NVML support (needs linux and cgo)", ErrNoDriver)
}
