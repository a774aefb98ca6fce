package datasets

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"slices"
	"strconv"

	"github.com/medteam-bench/medteam/qa"
)

// SampleName names the embedded default sample (see Sample), e.g. for
// a --dataset flag.
const SampleName = "medqa-sample"

// SampleFile is the path of the embedded sample inside this package, used as
// the source in its error messages.
const SampleFile = "sample/medqa_test_sample50.jsonl"

//go:generate go test -run ^TestSampleFile$ -update .

//go:embed sample/medqa_test_sample50.jsonl
var sampleMedQA []byte

// Sample returns the embedded default sample: 50 questions of the official
// MedQA (USMLE, 4 options) test split, chosen as Limit(test, 50, 0) and stored
// byte for byte as in the source file (see sample/README.md). Every question
// has Dataset "medqa" and Split "test". Each call returns a fresh slice that
// the caller may modify.
func Sample() ([]qa.Question, error) {
	var qs []qa.Question
	err := ReadMedQA(bytes.NewReader(sampleMedQA), SampleFile, func(q qa.Question) error {
		q.Split = "test"
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}

// SampleSHA256 returns the hex SHA-256 of the embedded sample, which is
// what `sha256sum` prints for SampleFile in this package's folder.
func SampleSHA256() string {
	sum := sha256.Sum256(sampleMedQA)
	return hex.EncodeToString(sum[:])
}

// Limit deterministically picks n questions of qs. Questions are ranked by
// SHA-256 of the seed in decimal, a NUL byte and the question ID; the n
// smallest are kept and returned in their original order in qs. The choice
// therefore depends only on the seed and the IDs, not on the order of qs.
// When n <= 0 or n >= len(qs), Limit returns a copy of all of qs. The
// Question values are copied shallowly.
func Limit(qs []qa.Question, n int, seed int64) []qa.Question {
	if n <= 0 || n >= len(qs) {
		return slices.Clone(qs)
	}
	type ranked struct {
		key [sha256.Size]byte
		idx int
	}
	prefix := strconv.FormatInt(seed, 10) + "\x00"
	rs := make([]ranked, len(qs))
	for i, q := range qs {
		rs[i] = ranked{key: sha256.Sum256([]byte(prefix + q.ID)), idx: i}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := bytes.Compare(a.key[:], b.key[:]); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	keep := make([]int, n)
	for i := range keep {
		keep[i] = rs[i].idx
	}
	slices.Sort(keep)
	out := make([]qa.Question, n)
	for i, idx := range keep {
		out[i] = qs[idx]
	}
	return out
}
