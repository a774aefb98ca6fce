// Package cli is medteam's command line: one cobra command per file, each
// with an Options struct its flags fill and a constructor that takes the
// shared Factory and a runF hook, so flag parsing is tested without running
// anything (the shape of github.com/cli/cli). Commands only turn flags into
// Options and call the packages that do the work — plan (what to run and its
// run directory), runner, results, report — and map their typed errors to
// exit codes; the concrete model backends are wired here.
package cli
