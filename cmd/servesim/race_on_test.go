//go:build race

package main

// raceEnabled: the race detector slows the child of TestRecordKilled ~10×,
// so responses queue up before the client reads them.
const raceEnabled = true
