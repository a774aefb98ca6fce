// Package plot draws the figures of medteam's report as standalone SVG.
//
// Each figure is one pure function: typed data in, the bytes of one <svg>
// element out. The SVG has no XML prolog, a viewBox and width="100%" (it
// scales to its container and prints), role="img" with an aria-label, and a
// data-plot attribute naming the kind of figure ("forest", "frontier", ...).
// Text is set in Liberation Sans, which gonum/plot measures for the layout
// and which every SVG carries as an embedded @font-face (a data: URL), so a
// figure needs neither the network nor a font installed on the reader's
// machine. The same input gives byte-identical output. Figure.PDF draws the
// same figure as a vector PDF with the font embedded as Unicode (package
// pdfcanvas), so its text reads and extracts exactly as the SVG's.
//
// Units: every proportion in this package's input types (accuracy, coverage,
// agreement, confidence, risk, and the paired differences of the forest plot)
// is a fraction in [0, 1] (differences in [-1, 1]); the figures show them as
// percent and percentage points. Costs are in the caller's unit, named by the
// caller.
//
// Robustness: empty input gives a small SVG that says "no data" (its root
// carries data-empty="true"); a non-finite value (NaN, ±Inf) or one larger
// in magnitude than 1e12 is skipped; labels are cleaned (invalid UTF-8 and
// control characters) and long ones are cut with an ellipsis. An error is
// returned only if drawing itself fails.
package plot
