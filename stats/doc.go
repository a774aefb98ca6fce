// Package stats computes the statistics of DESIGN.md §8 from result rows:
// proportion intervals, question-clustered standard errors, distribution
// summaries, paired comparisons (bootstrap, Wald, exact McNemar), Holm
// adjustment, calibration, convergence, risk–coverage, component effects,
// a factorial linear probability model and McNemar power.
//
// Everything here is a pure function: no I/O, no package state, and the same
// input gives the same output. Functions over []results.QuestionRow sort what
// they use by (question id, repeat) first, so the row order of a file (the
// order in which questions finished) does not change a result; random draws
// come only from a caller's seed.
//
// Conventions:
//   - Every question row counts in a denominator: an error or an abstention
//     is "not correct".
//   - Rows are clustered by question id: repeats of one question are not
//     independent draws, so standard errors are cluster-robust (CR1, see
//     ClusteredMean) and bootstraps resample questions, not rows.
//   - A level is a two-sided confidence level in (0, 1); 0 means
//     DefaultLevel (0.95).
//   - A statistic that the data cannot define (no rows, one cluster) is NaN,
//     an interval that cannot be defined is Interval{NaN, NaN}.
package stats
