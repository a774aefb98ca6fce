package sim

import (
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// A debate revision (protocols/debate, after Du et al. 2023) is a
// conversation: the agent's own earlier replies are its assistant messages,
// and the latest user message shows the other agents' replies of the
// previous round as they wrote them, each after a "One agent solution:"
// line, up to the closing "Using the reasoning from other agents…"
// instruction. The simulator reads its own position from its latest reply
// and each peer's from that peer's reply, in the format the simulator
// writes: the ranking and confidence of a JSON object ("ranking",
// "confidence") or of RANKING: and CONFIDENCE: lines, else a bare "**B**" or
// "$B$" as a one-letter ranking. A reply it cannot read (prose, empty, cut
// before its ranking) is no position: its own → it answers afresh, a
// peer's → not counted. Then a revision behaves as discuss.

const (
	peerSolutionMarker = "One agent solution:"
	peersEndMarker     = "Using the reasoning from other agents"
)

// readConversation sets the addressed agent's own position and its peers'
// from a multi-turn revision; a revision without an assistant message keeps
// what its POSITION lines said.
func (pr *prompt) readConversation(req *llm.Request, it *item) {
	last := -1
	for i := range req.Messages {
		if req.Messages[i].Role == llm.RoleAssistant {
			last = i
		}
	}
	if last < 0 {
		return
	}
	pr.you, pr.hasYou, pr.npeer = position{}, false, 0
	if pos, ok := readReply(it, req.Messages[last].Content); ok {
		pr.you, pr.hasYou = pos, true
	}
	user := ""
	for i := len(req.Messages) - 1; i > last; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			user = "\n" + req.Messages[i].Content
			break
		}
	}
	if end := strings.LastIndex(user, "\n"+peersEndMarker); end >= 0 {
		user = user[:end]
	}
	parts := strings.Split(user, "\n"+peerSolutionMarker)
	for k, part := range parts[1:] {
		if pos, ok := readReply(it, part); ok {
			pos.num = k + 1
			pr.setPeer(pos)
		}
	}
}

// readReply reads the position of one reply as written: its ranking (at
// least one known letter) and its confidence (-1 when none in [0, 1]).
func readReply(it *item, text string) (position, bool) {
	p := position{conf: -1}
	if rest, ok := afterKey(text, `"ranking"`); ok && len(rest) > 0 && rest[0] == '[' {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			p.rank = parseLetters(it, strings.ReplaceAll(rest[1:j], `"`, ""), ',')
		}
		if c, ok := afterKey(text, `"confidence"`); ok {
			p.conf = leadConfidence(c)
		}
	}
	if p.rank.n == 0 {
		p = readLines(it, text)
	}
	if p.rank.n == 0 {
		if l := bareLetter(it, text); l >= 0 {
			p.rank.idx[0], p.rank.n = l, 1
		}
	}
	return p, p.rank.n > 0
}

// afterKey returns what follows `key`: in text, after the colon.
func afterKey(text, key string) (string, bool) {
	i := strings.Index(text, key)
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(text[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return "", false
	}
	return strings.TrimLeft(rest[1:], " \t\r\n"), true
}

// readLines reads RANKING: and CONFIDENCE: lines.
func readLines(it *item, text string) position {
	p := position{conf: -1}
	for len(text) > 0 {
		line := text
		if j := strings.IndexByte(text, '\n'); j >= 0 {
			line, text = text[:j], text[j+1:]
		} else {
			text = ""
		}
		line = trimSpace(line)
		if rest, ok := cutPrefix(line, "RANKING:"); ok {
			p.rank = parseLetters(it, rest, ',')
		} else if rest, ok := cutPrefix(line, "CONFIDENCE:"); ok {
			p.conf = leadConfidence(trimSpace(rest))
		}
	}
	return p
}

// leadConfidence reads the number at the start of s, -1 when there is none
// or it is not in [0, 1].
func leadConfidence(s string) float64 {
	j := 0
	for j < len(s) && (s[j] == '.' || '0' <= s[j] && s[j] <= '9') {
		j++
	}
	if v, err := strconv.ParseFloat(s[:j], 64); err == nil && v >= 0 && v <= 1 {
		return v
	}
	return -1
}

// bareLetter reads the malformed shapes that name one letter: "**B**" and
// "… $B$ …"; -1 for anything else.
func bareLetter(it *item, text string) int8 {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(text), "`"))
	if inner, ok := strings.CutPrefix(t, "**"); ok {
		if inner, ok := strings.CutSuffix(inner, "**"); ok {
			return int8(it.letterIndex(inner))
		}
	}
	if i := strings.IndexByte(t, '$'); i >= 0 {
		if j := strings.IndexByte(t[i+1:], '$'); j >= 0 {
			return int8(it.letterIndex(t[i+1 : i+1+j]))
		}
	}
	return -1
}
