package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// ContentID returns the id of a question, derived from its normalised
// content so that every copy of a question (the official file, a
// standardised copy, an HF export, a converted file) gets the same id:
// dataset, "-", and the first 16 hex digits of the SHA-256 of
//
//	for each scope string: the string, then 0x1E
//	norm(stem)
//	for each context passage: 0x1D, then norm(passage)
//	for each option, in letter order: 0x00, then norm(option text)
//
// where norm(s) drops leading and trailing white space and replaces every
// inner run of white space (unicode.IsSpace: space, tab, CR, LF, NBSP, …) by
// one space, and changes nothing else (case, punctuation, quotes and the
// Unicode form are kept). Option letters are not hashed (they are A, B, …
// in order), nor is the gold answer, the split or any metadata. Loaders use
// the dataset family (Question.Dataset: medqa, medmcqa, pubmedqa, mmlu,
// mmlu-pro, medbullets, or the name of a standardised or mapped file) as
// dataset, and MMLU its subject as the one scope string, because the same
// question appears in several MMLU subjects. MedQAID(stem, options) is
// ContentID("medqa", stem, nil, options).
func ContentID(dataset, stem string, context []string, options []qa.Option, scope ...string) string {
	h := sha256.New()
	for _, s := range scope {
		io.WriteString(h, s)
		h.Write([]byte{0x1e})
	}
	io.WriteString(h, collapseSpace(stem))
	for _, c := range context {
		h.Write([]byte{0x1d})
		io.WriteString(h, collapseSpace(c))
	}
	for _, o := range options {
		h.Write([]byte{0})
		io.WriteString(h, collapseSpace(o.Text))
	}
	return dataset + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// collapseSpace trims s and replaces each run of Unicode white space
// (unicode.IsSpace) with one ASCII space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// guessDataset names the dataset of a standardised or mapped file from its
// path ("…/medmcqa/test.jsonl" → "medmcqa"), or returns def. Only a whole
// word of a path component counts (words split at anything but letters
// and digits: "mmlu_pro", "medqa-test"), never a substring: "afrimedqa" is
// not "medqa". The name is Question.Dataset, a label for reports; the ids
// never depend on it (see fileCtx.idDataset).
func guessDataset(path, def string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	slices.Reverse(parts)
	for _, p := range parts {
		words := strings.FieldsFunc(strings.ToLower(p), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
		for i, w := range words {
			switch {
			case w == "medmcqa":
				return DatasetMedMCQA
			case w == "mmlupro" || w == "mmlu" && i+1 < len(words) && words[i+1] == "pro":
				return DatasetMMLUPro
			case w == "medbullets":
				return DatasetMedBullets
			case w == "pubmedqa":
				return DatasetPubMedQA
			case w == "medqa":
				return DatasetMedQA
			case w == "mmlu":
				return DatasetMMLU
			}
		}
	}
	return def
}
