// Package triage is the triage task (Task, registered in tasks.All): a case
// to route to a level of an ordinal urgency scale, scored as multiple choice
// (the levels are the options), by rank (under-triage, over-triage, safe),
// and by what the team states beside the level: its most likely diagnosis
// against the dataset's correct diagnosis and its specialty against the
// correct specialty (pure functions of the two texts, below), or, with
// --diagnosis-judge, the model's verdict on the diagnosis (JudgeDiagnosis).
//
// # Diagnosis match (method "normalized")
//
// The gold diagnosis is free text that may list acceptable alternatives in
// parentheses, as the Semigran vignettes do: "Acute liver failure
// (acetaminophen poisoning acceptable)", "Asthma (or acute asthma, status
// asthmaticus, exacerbation of asthma)", "Myocardial infarction (heart
// attack)", "COPD exacerbation (severe) (diagnosis may include acute
// bronchitis)". Acceptable splits it into its acceptable answers: the text
// outside the parentheses, and each parenthesised phrase with its framing
// words ("or", "diagnosis may include", "acceptable") removed, split at
// commas and "or". A parenthesis that is only a qualifier ("(severe)") is
// not an alternative.
//
// Both texts are normalised (Normalize): Unicode compatibility-decomposed
// with the combining marks dropped and lower-cased ("Ménière" → "meniere"),
// every character other than a letter or digit a space, a footnote digit
// glued to a word of letters dropped ("syndrome1" → "syndrome"), British spellings
// made American (haem → hem, oedema → edema, diarrhoea → diarrhea, …), a
// small table of abbreviations and synonyms rewritten to one phrase (MI,
// STEMI → myocardial infarction; PE; DVT; COPD; UTI; URI; HUS; RMSF; flu →
// influenza; paracetamol → acetaminophen; overdose, toxicity → poisoning;
// herpes zoster → shingles; hordeolum → stye; …: see synonyms), and a final
// plural "s" dropped from words longer than four letters that do not end in
// "ss", "us" or "is" ("stones" → "stone", "meningitis" kept).
//
// Content tokens are the normalised words minus fillers: articles and
// linking words (a, an, the, of, and, with, to, in, on, due, from, by, for)
// and qualifiers that do not change the diagnosis (acute, chronic, severe,
// mild, moderate, viral, simple, uncomplicated, likely, probable, possible,
// suspected, disease, disorder).
//
// A stated diagnosis matches when every content token of at least one
// acceptable answer is among its content tokens: "Low back pain" matches
// "Back pain", "Bacterial meningitis" matches "Meningitis", "Liver failure"
// matches "Acute liver failure"; "Otitis externa" does not match "Acute
// otitis media", "Pulmonary edema" does not match "Pulmonary embolism". An
// acceptable answer without content tokens never matches; nor does an empty
// statement.
//
// # Specialty match
//
// SpecialtyMatch is equality of the normalised texts ("General practice"
// = "general-practice").
package triage

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Method is the DiagnosisMethod of a match computed here.
const Method = "normalized"

// DiagnosisMatch reports whether the stated diagnosis matches the gold one
// (see the package comment). ok is false when either is empty: the row is
// not scored.
func DiagnosisMatch(stated, gold string) (match, ok bool) {
	st := contentTokens(Normalize(stated))
	if len(st) == 0 || strings.TrimSpace(gold) == "" {
		return false, false
	}
	for _, a := range Acceptable(gold) {
		want := contentTokens(Normalize(a))
		if len(want) == 0 {
			continue
		}
		if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(st, w) }) {
			return true, true
		}
	}
	return false, true
}

// SpecialtyMatch reports whether the stated specialty is the gold one,
// compared normalised; ok is false when either is empty.
func SpecialtyMatch(stated, gold string) (match, ok bool) {
	s, g := Normalize(stated), Normalize(gold)
	if s == "" || g == "" {
		return false, false
	}
	return s == g, true
}

var (
	reParen = regexp.MustCompile(`\(([^()]*)\)`)
	// Framing words of a parenthesised alternative.
	reAltLead  = regexp.MustCompile(`(?i)^\s*(?:or|also|diagnosis\s+may\s+include|may\s+include|including|i\.?e\.?|e\.?g\.?)\s+`)
	reAltTrail = regexp.MustCompile(`(?i)\s+(?:(?:is|are)\s+)?(?:also\s+)?acceptable\s*$`)
	reAltSplit = regexp.MustCompile(`(?i)\s*,\s*|\s+or\s+`)
)

// Acceptable splits a gold diagnosis into its acceptable answers, the main
// one first (see the package comment). The answers are as written (not
// normalised), trimmed; none is empty.
func Acceptable(gold string) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(reParen.ReplaceAllString(gold, " "))
	for _, m := range reParen.FindAllStringSubmatch(gold, -1) {
		p := reAltTrail.ReplaceAllString(reAltLead.ReplaceAllString(m[1], ""), "")
		for _, part := range reAltSplit.Split(p, -1) {
			if len(contentTokens(Normalize(part))) > 0 {
				add(part)
			}
		}
	}
	return out
}

// Normalize is the normal form of a diagnosis or specialty text (see the
// package comment): words separated by single spaces.
func Normalize(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		words[i] = spelling(stripFootnote(w))
	}
	return stem(applySynonyms(strings.Join(words, " ")))
}

// stripFootnote drops one footnote digit glued to the end of a word of
// letters ("syndrome1"; "covid19" is kept).
func stripFootnote(w string) string {
	t := strings.TrimRightFunc(w, unicode.IsDigit)
	if len(w)-len(t) == 1 && len(t) > 3 && !strings.ContainsFunc(t, unicode.IsDigit) {
		return t
	}
	return w
}

// britishAmerican are spelling prefixes and words made American.
var britishAmerican = []struct{ from, to string }{
	{"haem", "hem"}, {"oedema", "edema"}, {"oesophag", "esophag"}, {"diarrhoea", "diarrhea"},
	{"uraem", "urem"}, {"anaem", "anem"}, {"paediatr", "pediatr"}, {"orthopaed", "orthoped"},
	{"gynaecolog", "gynecolog"}, {"leukaem", "leukem"}, {"ischaem", "ischem"}, {"septicaem", "septicem"},
	{"tumour", "tumor"}, {"oestrogen", "estrogen"}, {"foetal", "fetal"},
}

func spelling(w string) string {
	for _, p := range britishAmerican {
		if rest, ok := strings.CutPrefix(w, p.from); ok {
			return p.to + rest
		}
	}
	return w
}

// stem drops a plural "s" (see the package comment) from every word.
func stem(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			words[i] = w[:len(w)-1]
		}
	}
	return strings.Join(words, " ")
}

// fillers are the words that are not content tokens.
var fillers = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "and": true, "with": true, "to": true, "in": true, "on": true,
	"due": true, "from": true, "by": true, "for": true,
	"acute": true, "chronic": true, "severe": true, "mild": true, "moderate": true, "viral": true, "simple": true,
	"uncomplicated": true, "likely": true, "probable": true, "possible": true, "suspected": true,
	"disease": true, "disorder": true,
}

// contentTokens are the words of a normalised text that are not fillers.
func contentTokens(n string) []string {
	var out []string
	for _, w := range strings.Fields(n) {
		if !fillers[w] {
			out = append(out, w)
		}
	}
	return out
}
