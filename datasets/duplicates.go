package datasets

import (
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// seenQuestion is what the duplicate check keeps of a question (24 bytes;
// seenSrc keeps 16 more per question with a SourceID):
// where it was first seen (see packLoc), a fingerprint of its content (see
// contentPrint) and its gold letter, for the message when a copy disagrees.
type seenQuestion struct {
	loc  uint64
	fp   uint64
	gold byte
}

// maxDupPairs is how many collapsed (or kept) duplicates a note names.
const maxDupPairs = 5

// keptPrefix marks checkDuplicate's answer for a content duplicate kept
// under its distinct source id.
const keptPrefix = "kept:"

// packLoc packs where a question was first seen into one word (a map slot
// of 16 bytes): the file index in the top 16 bits, a row flag in bit 47 and
// the line or row in the low 47 bits.
func packLoc(file int, loc int, row bool) uint64 {
	v := uint64(file)<<48 | uint64(loc)&(1<<47-1)
	if row {
		v |= 1 << 47
	}
	return v
}

func unpackLoc(v uint64) (file int, loc int, row bool) {
	return int(v >> 48), int(v & (1<<47 - 1)), v&(1<<47) != 0
}

// checkDuplicate looks the question's id up among those seen. A new id is
// recorded. A repeated id with the same content (an exact duplicate) returns
// where the two copies are ("line 9 = line 2") for the caller to collapse;
// with other content it is a problem.
func (r *Reader) checkDuplicate(n normalized, rec *record) (string, *ParseError) {
	if r.seen == nil {
		return "", nil
	}
	h := fnv.New64a()
	io.WriteString(h, n.q.ID)
	key := h.Sum64()
	loc := packLoc(r.fileNo, rec.line, false)
	if rec.line == 0 {
		loc = packLoc(r.fileNo, rec.row, true)
	}
	fp := contentPrint(n.q)
	prev, dup := r.seen[key]
	if !dup {
		if n.q.SourceID != "" {
			h.Reset()
			io.WriteString(h, n.q.SourceID)
			skey := h.Sum64()
			if at, used := r.seenSrc[skey]; used {
				field := n.names.id
				if field == "" {
					field = "id"
				}
				return "", r.ctx.fail(rec, n.names.id, CodeDuplicate, "duplicate %s %s: already used at %s for a different question; the source's ids must be unique — remove the copy or correct its %s",
					field, n.q.SourceID, r.locString(at), field)
			}
			r.seenSrc[skey] = loc
		}
		r.seen[key] = seenQuestion{loc: loc, fp: fp, gold: goldByte(n.q.Gold)}
		return "", nil
	}
	where := r.locString(prev.loc)
	if prev.fp == fp {
		here := fmt.Sprintf("line %d", rec.line)
		if rec.line == 0 {
			here = fmt.Sprintf("row %d", rec.row)
		}
		if len(r.files) > 1 {
			here = r.files[r.fileNo] + ":" + strings.TrimPrefix(here, "line ")
		}
		if r.keepCopy(n.q.SourceID, loc) {
			return keptPrefix + here + " (id " + n.q.SourceID + ") = " + where, nil
		}
		return here + " = " + where, nil
	}
	if !n.keepID {
		if g := goldByte(n.q.Gold); g != prev.gold && prev.gold != 0 {
			return "", r.ctx.fail(rec, n.names.gold, CodeDuplicate,
				"same question (stem and options) as %s (id %s) but gold %s here and %c there; the copies contradict each other — remove the wrong one",
				where, n.q.ID, n.q.Gold, prev.gold)
		}
		return "", r.ctx.fail(rec, "", CodeDuplicate,
			"same question (stem and options) as %s (id %s) but a different split, context or metadata; remove one copy or make them agree", where, n.q.ID)
	}
	return "", r.ctx.fail(rec, n.names.id, CodeDuplicate, "duplicate id %s: already used at %s for a different question; ids must be unique — remove the copy or correct its id", n.q.ID, where)
}

// keepCopy reports whether an exact content duplicate is kept: it has a
// source id of its own, not seen before (a question of the published
// dataset; see Source.Dedupe), which is then recorded at loc.
func (r *Reader) keepCopy(sourceID string, loc uint64) bool {
	if sourceID == "" || r.src.Dedupe {
		return false
	}
	h := fnv.New64a()
	io.WriteString(h, sourceID)
	if _, used := r.seenSrc[h.Sum64()]; used {
		return false
	}
	r.seenSrc[h.Sum64()] = loc
	return true
}

// locString names a packed location for a message: "line 3", "row 3", or
// with the file when it is not the one being read.
func (r *Reader) locString(v uint64) string {
	file, at, row := unpackLoc(v)
	other := file != r.fileNo
	switch {
	case row && other:
		return fmt.Sprintf("%s: row %d", r.files[file], at)
	case row:
		return fmt.Sprintf("row %d", at)
	case other:
		return fmt.Sprintf("%s:%d", r.files[file], at)
	}
	return fmt.Sprintf("line %d", at)
}

func goldByte(g string) byte {
	if len(g) != 1 {
		return 0
	}
	return g[0]
}

// contentPrint is the FNV-64a fingerprint of everything the duplicate check
// compares: dataset, split, stem, context passages and option texts (each
// with runs of white space collapsed to one space, as in ContentID), the gold
// letter, and the metadata except keys containing "link" or "url" (any case;
// MedBullets publishes some questions twice under two links). Two records
// with the same id and the same print are exact duplicates.
func contentPrint(q qa.Question) uint64 {
	h := fnv.New64a()
	put := func(s string) {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	put(q.Dataset)
	put(q.Split)
	put(collapseSpace(q.Stem))
	for _, c := range q.Context {
		put("\x1d" + collapseSpace(c))
	}
	for _, o := range q.Options {
		put(o.Letter + "\x1f" + collapseSpace(o.Text))
	}
	put(q.Gold)
	for _, k := range slices.Sorted(maps.Keys(q.Meta)) {
		if isLinkKey(k) {
			continue
		}
		put(k + "\x1f" + q.Meta[k])
	}
	return h.Sum64()
}

// isLinkKey reports whether a metadata key names a link or URL.
func isLinkKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "link") || strings.Contains(k, "url")
}
