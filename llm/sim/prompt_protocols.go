package sim

import (
	"strconv"
	"strings"
)

// The marker lines of the protocols of protocols/ (protocols/FORMATS.md):
// labelled answers for a council reviewer, the chairman's peer ranking and
// strategy.

// readProtocol reads the rest of a marker line of the protocols' kinds.
func (s *scanner) readProtocol(k markerKind, rest string) {
	switch k {
	case markStrategy:
		s.pr.strategy = strategyOf(trimSpace(rest))
	case markPeerRank:
		s.peerRank(rest)
	case markLabelReasoning:
		s.labelReasoning(rest)
	}
}

// addLabel records the answer shown under label name (a later line for the
// same label replaces its position).
func (pr *prompt) addLabel(name string, pos position, has bool) {
	l := pr.label(name)
	if l == nil {
		return
	}
	l.pos, l.has = pos, has
}

// label returns the entry of label name, adding it in the order first seen;
// nil when the prompt already holds maxPeers labels or name is empty.
func (pr *prompt) label(name string) *labelled {
	if name == "" {
		return nil
	}
	for k := 0; k < pr.nlabel; k++ {
		if pr.labels[k].name == name {
			return &pr.labels[k]
		}
	}
	if pr.nlabel == maxPeers {
		return nil
	}
	pr.labels[pr.nlabel] = labelled{name: name}
	pr.nlabel++
	return &pr.labels[pr.nlabel-1]
}

// labelReasoning reads "REASONING response Alpha: text".
func (s *scanner) labelReasoning(rest string) {
	colon := strings.IndexByte(rest, ':')
	if colon < 0 {
		return
	}
	if l := s.pr.label(trimSpace(rest[:colon])); l != nil {
		l.tier = decodeTier(rest[colon+1:]) + 1
	}
}

// peerRank reads "PEER RANK agent N: 1.50 (…)" ("unranked" leaves none).
func (s *scanner) peerRank(rest string) {
	n, body, ok := agentNumber(rest)
	if !ok {
		return
	}
	body = trimSpace(strings.TrimPrefix(body, ":"))
	if j := strings.IndexByte(body, ' '); j >= 0 {
		body = body[:j]
	}
	if v, err := strconv.ParseFloat(body, 64); err == nil && v >= 1 {
		s.pr.peerRank[n] = v + 1
	}
}

// strategyOf reads a strategy name; anything unknown is balanced (the seed's
// default).
func strategyOf(s string) strategy {
	switch {
	case equalFoldASCII(s, "risk-averse"):
		return strategyRiskAverse
	case equalFoldASCII(s, "goal-seeking"):
		return strategyGoalSeeking
	case equalFoldASCII(s, "novelty"):
		return strategyNovelty
	}
	return strategyBalanced
}

// rankOf is agent n's mean peer rank, 0 when the prompt shows none.
func (pr *prompt) rankOf(n int) float64 {
	if n < 1 || n > maxPeers || pr.peerRank[n] == 0 {
		return 0
	}
	return pr.peerRank[n] - 1
}
