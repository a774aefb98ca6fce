package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/medteam-bench/medteam/stats"
)

// Names of the files the report writes into a run directory.
const (
	SummaryFile  = "summary.parquet"
	MarkdownFile = "report.md"
)

// SummarySchemaKey is the parquet key/value metadata key under which
// summary.parquet records SummarySchemaVersion.
const SummarySchemaKey = "medteam.summary_schema_version"

// groupRow fills a group's (or a subject's) columns.
func groupRow(s SummaryRow, g stats.Group) SummaryRow {
	s.Dataset, s.Model, s.Arm, s.Subject = g.Key.Dataset, g.Key.Model, g.Key.Arm, g.Key.Subject
	s.N, s.Questions, s.Repeats = n(g.Rows), n(g.Questions), n(g.Repeats)
	s.Correct, s.Answered, s.Abstained, s.Errors = n(g.Correct), n(g.Answered), n(g.Abstained), n(g.Errors)
	s.Accuracy, s.AccuracyLo, s.AccuracyHi, s.AccuracySE = f(g.Accuracy), f(g.AccuracyCI.Lo), f(g.AccuracyCI.Hi), f(g.ClusteredSE)
	s.Coverage = f(g.Coverage)
	s.SelectiveAccuracy, s.SelectiveLo, s.SelectiveHi = f(g.SelectiveAccuracy), f(g.SelectiveCI.Lo), f(g.SelectiveCI.Hi)
	s.CallsMean, s.CallsP50, s.CallsP95 = f(g.Calls.Mean), f(g.Calls.P50), f(g.Calls.P95)
	s.TokensMean, s.TokensP50, s.TokensP95 = f(g.Tokens.Mean), f(g.Tokens.P50), f(g.Tokens.P95)
	s.PromptTokensMean, s.CompletionTokensMean = f(g.PromptTokens.Mean), f(g.CompletionTokens.Mean)
	s.WallMSMean, s.WallMSP50, s.WallMSP95 = f(g.WallMS.Mean), f(g.WallMS.P50), f(g.WallMS.P95)
	if c := g.Cost; c != nil && (c.Priced || c.Total != 0) {
		s.CostTotal, s.CostPerQuestion, s.CostUnpricedRows = f(c.Total), f(c.PerQuestion), n(c.Unpriced)
		s.CostSpent, s.CostSpentPerQuestion = f(c.Spent), f(c.Spent/float64(max(g.Rows, 1)))
	}
	if c := g.Cost; c != nil {
		s.PaidTokens = n(c.PaidTokens)
	}
	if pc := g.PromptCache; pc.Reported {
		s.PromptCacheTokens, s.PromptCachedTokens = n(pc.PromptTokens), n(pc.CachedTokens)
		if pc.PromptTokens > 0 { // else undefined: null
			s.PromptCachedShare = f(pc.Share())
		}
		if c := g.Cost; c != nil && (c.Priced || c.Total != 0) {
			s.CostCacheSaved = f(c.CacheSaved)
		}
	}
	s.ECEDebiased, s.ECEDebiasedLo, s.ECEDebiasedHi = f(g.Calibration.ECEDebiased), f(g.Calibration.ECEDebiasedCI.Lo), f(g.Calibration.ECEDebiasedCI.Hi)
	s.DesignEffect, s.DesignEffectBound = f(g.DesignEffect), g.DeffBound
	s.CalibrationN, s.ECE, s.Brier, s.AURC = n(g.Calibration.N), f(g.Calibration.ECE), f(g.Calibration.Brier), f(g.RiskCoverage.AURC)
	if rs := g.Convergence.ByRound; len(rs) > 0 {
		s.AgreementInitial, s.AgreementFinal = f(rs[0].Mean), f(rs[len(rs)-1].Mean)
	}
	s.ChangesRightToWrong, s.ChangesWrongToRight = n(g.Convergence.RightToWrong), n(g.Convergence.WrongToRight)
	if g.Triage != nil {
		s = triageColumns(s, g.Triage)
	}
	return s
}

// comparisonRow fills a paired comparison's columns.
func comparisonRow(s SummaryRow, c stats.Comparison) SummaryRow {
	pb := c.Accuracy
	s.Dataset, s.Model, s.Reference, s.Candidate = c.Dataset, c.Model, c.Reference, c.Candidate
	s.N, s.Questions = n(c.Matched), n(c.Questions)
	s.RefOnly, s.CandOnly, s.Duplicates = n(c.RefOnly), n(c.CandOnly), n(c.Duplicates)
	s.RefAccuracy, s.CandAccuracy = f(pb.RefRate), f(pb.CandRate)
	s.Delta, s.DeltaSE = f(pb.Delta.Value), f(pb.Delta.SE)
	s.DeltaLo, s.DeltaHi = f(pb.Delta.Boot.Lo), f(pb.Delta.Boot.Hi)
	s.DeltaWaldLo, s.DeltaWaldHi = f(pb.Delta.Wald.Lo), f(pb.Delta.Wald.Hi)
	s.B, s.C, s.Discordance = n(pb.B), n(pb.C), f(pb.Discordance)
	s.NoDiscordant = pb.NoDiscordant
	s.P, s.PHolm, s.MDE, s.IdenticalTo = f(pb.McNemarP), f(c.HolmP), f(c.MDD), c.IdenticalTo
	s.DeltaCalls, s.DeltaCallsLo, s.DeltaCallsHi = f(c.Calls.Value), f(c.Calls.Boot.Lo), f(c.Calls.Boot.Hi)
	s.DeltaTokens, s.DeltaTokensLo, s.DeltaTokensHi = f(c.Tokens.Value), f(c.Tokens.Boot.Lo), f(c.Tokens.Boot.Hi)
	if tc := c.Triage; tc != nil {
		s.DeltaSafe, s.DeltaSafeLo, s.DeltaSafeHi = f(tc.Safe.Delta.Value), f(tc.Safe.Delta.Boot.Lo), f(tc.Safe.Delta.Boot.Hi)
		s.PSafe, s.PHolmSafe = f(tc.Safe.McNemarP), f(tc.SafeHolmP)
		s.DeltaUnder, s.DeltaUnderLo, s.DeltaUnderHi = f(tc.Under.Delta.Value), f(tc.Under.Delta.Boot.Lo), f(tc.Under.Delta.Boot.Hi)
		s.PUnder, s.PHolmUnder = f(tc.Under.McNemarP), f(tc.UnderHolmP)
	}
	return s
}

// triageColumns fills a group's triage columns.
func triageColumns(s SummaryRow, t *stats.Triage) SummaryRow {
	s.TriageN, s.NoLevel, s.Kappa = n(t.N), n(t.None), f(t.Kappa)
	s.TriageLevels = t.Levels
	for _, r := range t.Recall {
		s.TriageRecall = append(s.TriageRecall, r.Value)
	}
	s.TriageAccuracy, s.TriageAccuracyLo, s.TriageAccuracyHi = f(t.Accuracy.Value), f(t.Accuracy.CI.Lo), f(t.Accuracy.CI.Hi)
	s.UnderTriage, s.UnderTriageLo, s.UnderTriageHi, s.UnderTriageSE = f(t.Under.Value), f(t.Under.CI.Lo), f(t.Under.CI.Hi), f(t.Under.ClusteredSE)
	s.OverTriage, s.OverTriageLo, s.OverTriageHi = f(t.Over.Value), f(t.Over.CI.Lo), f(t.Over.CI.Hi)
	s.Safe, s.SafeLo, s.SafeHi, s.SafeSE = f(t.Safe.Value), f(t.Safe.CI.Lo), f(t.Safe.CI.Hi), f(t.Safe.ClusteredSE)
	s.DiagnosisScored = n(t.Diagnosis.N)
	s.DiagnosisMatch, s.DiagnosisMatchLo, s.DiagnosisMatchHi = f(t.Diagnosis.Value), f(t.Diagnosis.CI.Lo), f(t.Diagnosis.CI.Hi)
	return s
}

// factorialRows is one row per term of a fit: its effect (stats.LPM.Effects:
// 2β of the ±1-coded model, the intercept as fitted) with the Holm p.
func factorialRows(base SummaryRow, fit FactorialFit) []SummaryRow {
	out := make([]SummaryRow, 0, len(fit.Fit.Effects))
	for i, c := range fit.Fit.Effects {
		s := base
		if i < len(fit.Fit.CellDiffs) {
			s.MeanCellDiff = f(fit.Fit.CellDiffs[i])
		}
		s.Dataset, s.Model, s.Term = fit.Dataset, fit.Model, c.Name
		s.N, s.Clusters = n(fit.Fit.N), n(fit.Fit.Clusters)
		s.Estimate, s.EstimateSE, s.EstimateLo, s.EstimateHi, s.P = f(c.Estimate), f(c.SE), f(c.CI.Lo), f(c.CI.Hi), f(c.P)
		s.PHolm = f(c.HolmP)
		out = append(out, s)
	}
	return out
}

// WriteSummary writes r's SummaryRows to path as parquet (zstd, the
// schema version in SummarySchemaKey), atomically: a temporary file in the
// same directory renamed over path once complete.
func WriteSummary(path string, r *Report) error {
	err := writeFileAtomic(path, func(w *os.File) error {
		pw := parquet.NewGenericWriter[SummaryRow](w, parquet.Compression(&parquet.Zstd),
			parquet.KeyValueMetadata(SummarySchemaKey, strconv.Itoa(SummarySchemaVersion)))
		if _, err := pw.Write(SummaryRows(r)); err != nil {
			return err
		}
		return pw.Close()
	})
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	return nil
}

// WriteFiles writes report.md and summary.parquet into dir and returns
// their paths.
func WriteFiles(dir string, r *Report) (md, summary string, err error) {
	md, summary = filepath.Join(dir, MarkdownFile), filepath.Join(dir, SummaryFile)
	if err := WriteSummary(summary, r); err != nil {
		return "", "", err
	}
	if err := writeFileAtomic(md, func(w *os.File) error { return WriteMarkdown(w, r) }); err != nil {
		return "", "", fmt.Errorf("report: write %s: %w", md, err)
	}
	return md, summary, nil
}

// writeFileAtomic writes path through a temporary file renamed over it.
func writeFileAtomic(path string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
