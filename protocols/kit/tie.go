package kit

import (
	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/qa"
)

// How a tie among options was broken without a model call
// (protocol.Outcome.TieBrokenBy, the row's tie_broken_by).
const (
	TieSeededDraw = "seeded_draw" // a multiple-choice item: a seeded draw among the tied options
	TieEscalated  = "escalated"   // a triage item: the most urgent of the tied levels
)

// BreakTie is the one tie rule of the protocols that break a tie among
// options without a model call — sc, debate's last round, and teamwork
// without a leader (or with a leader whose tie-break could not be read).
// On a triage item the tie escalates to the most urgent of the tied levels
// (by rank, never by option position): under-triage is the unsafe error,
// and docs/arms.md#triage-items promises that a tie escalates (DESIGN §5
// "Triage items").
// On a multiple-choice item a draw seeded by seed picks one of the tied
// options (aggregator.BreakTie: reproducible, never "the first letter").
// how is TieEscalated or TieSeededDraw; winner is "" (and how "") when tied
// is empty. A triage tie among letters that are none of the item's levels
// (which a caller should never pass) falls back to the seeded draw.
func BreakTie(item qa.Item, tied []string, seed uint64) (winner, how string) {
	if len(tied) == 0 {
		return "", ""
	}
	if item.IsTriage() {
		best := -1
		for _, l := range tied {
			if r := item.Rank(l); r > best {
				best, winner = r, l
			}
		}
		if best >= 0 {
			return winner, TieEscalated
		}
	}
	return aggregator.BreakTie(tied, seed), TieSeededDraw
}

// Plurality is the plurality of votes (option letters, "" for none) over
// the session's item, a tie broken by BreakTie with the session's tie-draw
// seed (DrawSeed(KindTieDraw, -1)). The Decision keeps Tie and Tied; its
// Winner is the rule's choice whenever anyone voted. how is "" without a
// tie.
func (s *Session) Plurality(votes []string) (d aggregator.Decision, how string) {
	d = aggregator.Plurality(s.Item.Letters(), votes)
	if d.Tie {
		d.Winner, how = BreakTie(s.Item, d.Tied, s.DrawSeed(KindTieDraw, -1))
	}
	return d, how
}
