// Package check is medteam's CI gate (DESIGN.md §8, issue 13): a thresholds
// file of bounds on a report's metrics — point values or interval ends, per
// arm, model, dataset or subject, and paired comparisons between arms —
// parsed with file:line errors (Parse, Load), checked against a report
// before anything is evaluated (Validate) and evaluated (Evaluate); and the
// baseline gate, a paired non-inferiority test of a candidate's accuracy
// against a stored run with a stated margin and three verdicts — pass,
// fail, insufficient evidence (Baseline, NonInferior; its checks share α,
// and an undecided one passes with a warning unless the caller requires
// evidence: Red). The results render as a table,
// Markdown, JSON and JUnit XML.
//
// Evaluation is pure: the same report and thresholds give the same results.
// The statistics come from package stats through report.Build
// (design-effect-corrected Wilson intervals, the seeded question bootstrap
// of paired differences, question-clustered standard errors).
package check
