//go:build race

package answer_test

// raceEnabled: the race detector slows the 27,277-reply corpus test about
// thirtyfold (327 s), so under -race it is left to the plain run that
// `make test` makes after the race run.
const raceEnabled = true
