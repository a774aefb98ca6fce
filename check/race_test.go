//go:build race

package check

// raceEnabled: the race detector slows the simulation twentyfold.
const raceEnabled = true
