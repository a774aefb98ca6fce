package results

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"time"
)

// Names of the files of a run directory written by this package.
const (
	QuestionsFile = "questions.parquet"
	CallsFile     = "calls.parquet"
	ManifestFile  = "manifest.json"
)

// runIDTimeLayout is the UTC timestamp prefix of a run id.
const runIDTimeLayout = "20060102T150405Z"

// NewRunID returns a run identifier such as "20261122T014700Z-a3f09c": the
// start time in UTC to the second, then 6 hex digits from crypto/rand so that
// two runs started in the same second differ. Ids sort lexically by start
// time. The seed is used only if the system random source fails (which Go
// documents it does not), to keep the suffix well defined.
func NewRunID(now time.Time, seed int64) string {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		h := fnv.New64a()
		var buf [16]byte
		binary.LittleEndian.PutUint64(buf[:8], uint64(seed))
		binary.LittleEndian.PutUint64(buf[8:], uint64(now.UnixNano()))
		_, _ = h.Write(buf[:])
		sum := h.Sum64()
		b = [3]byte{byte(sum), byte(sum >> 8), byte(sum >> 16)}
	}
	return now.UTC().Format(runIDTimeLayout) + "-" + hex.EncodeToString(b[:])
}
