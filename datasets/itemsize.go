package datasets

import (
	"github.com/medteam-bench/medteam/qa"
)

// DefaultMaxItemBytes is the default cap on one item's text (Source.
// MaxItemBytes): 1 MiB, a hundred times the longest question of the
// published benchmarks. Every model call of a unit carries the item's text,
// and transcripts keep each call's prompt, so an item of 10 MB costs
// gigabytes of memory and millions of tokens; an item over the cap is a
// CodeSize problem at its file:line (run --max-item-bytes raises the cap).
const DefaultMaxItemBytes = 1 << 20

// ItemBytes is the size of q's text as the prompts carry it: stem, context
// passages and option texts.
func ItemBytes(q qa.Question) int {
	n := len(q.Stem)
	for _, c := range q.Context {
		n += len(c)
	}
	for _, o := range q.Options {
		n += len(o.Text)
	}
	return n
}

// checkItemSize refuses an item whose text is over the source's cap.
func (r *Reader) checkItemSize(n normalized, rec *record) *ParseError {
	limit := r.src.MaxItemBytes
	if limit == 0 {
		limit = DefaultMaxItemBytes
	}
	if size := ItemBytes(n.q); limit > 0 && size > limit {
		return r.ctx.fail(rec, n.names.stem, CodeSize, "the item's text (stem, context and options) is %d bytes, over the cap of %d per item; raise it with --max-item-bytes if the item is meant to be this long",
			size, limit)
	}
	return nil
}
