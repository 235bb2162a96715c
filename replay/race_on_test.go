//go:build race

package replay

// raceEnabled: the race detector slows the child of TestKillMidRun ~10×,
// so responses queue up before the client reads them.
const raceEnabled = true
