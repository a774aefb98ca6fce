//go:build !race

package answer_test

const raceEnabled = false
