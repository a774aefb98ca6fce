package debate

import (
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols/kit"
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
//
// In the shared layout (layout.go) a revision has no assistant message: its
// user message holds one block per earlier round, each reply after an
// "Agent N's solution:" line. The simulator reads the latest block (round
// Meta.Turn's, its header found after every earlier round's), its replies
// in agent order (agent j's line found after agent j−1's): agent
// Meta.Agent+1's reply as its own, the others' as its peers', numbered in
// agent order as the source layout's "One agent solution:" replies are — so
// a revision decides the same in both layouts, even when a reply quotes
// another agent's line or a round header.

const (
	peerSolutionMarker = "One agent solution:"
	peersEndMarker     = "Using the reasoning from other agents"
	roundMarker        = "These are the solutions to the problem from all agents in round "
	agentMarker        = "Agent "
	solutionMarker     = "'s solution:"
	tailMarker         = "You are agent "
)

// Sim is debate's simulated behaviour (llm/sim's Behaviour): a revision,
// read as above, answered as the core's discuss. The code seeds every draw
// of a call: it never changes.
var Sim = sim.Behaviour{
	Protocol: "debate",
	Kinds:    map[string]uint64{kit.KindRevise: 15},
	Answer:   simAnswer,
}

// simAnswer answers a revision as the core answers an agent's kind: the
// prompt read as the agent's own, then its conversation; discuss; the
// ranked answer and the diagnosis it states on a triage item; the
// malformed and fence draws.
func simAnswer(c *sim.Call) string {
	self := 0
	if c.Request().Meta.Agent >= 0 {
		self = c.Request().Meta.Agent + 1
	}
	c.ReadPrompt(self, false)
	readConversation(c)
	a := c.NewAnswer()
	c.Reconsider(&a)
	asJSON := c.Request().Schema != nil
	var arr [1024]byte
	b := c.AppendRanked(arr[:0], &a, asJSON)
	b = c.AppendDiagnosis(b, &a, asJSON)
	return c.Finish(b, a.Ranking().First(), asJSON)
}

// reply is one reply's position as read.
type reply struct {
	rank sim.Ranking
	conf float64
}

// readConversation sets the addressed agent's own position and its peers'
// from a multi-turn revision; a revision without an assistant message keeps
// what its POSITION lines said.
func readConversation(c *sim.Call) {
	req := c.Request()
	last := -1
	for i := range req.Messages {
		if req.Messages[i].Role == llm.RoleAssistant {
			last = i
		}
	}
	if last < 0 {
		readBoard(c)
		return
	}
	own, ok := readReply(c.Letters(), req.Messages[last].Content)
	c.SetPositions(own.rank, own.conf, ok)
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
		if pos, ok := readReply(c.Letters(), part); ok {
			c.SetPeer(k+1, pos.rank, pos.conf)
		}
	}
}

// readBoard sets the addressed agent's own position and its peers' from the
// latest round block of a shared-layout revision; a request without one
// keeps what its POSITION lines said. The blocks are found in order — round
// 1's header, then round 2's after it, … up to the request's turn (the
// round before the one it answers) — so a reply that echoes a header
// cannot move the block read.
func readBoard(c *sim.Call) {
	req := c.Request()
	user := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			user = req.Messages[i].Content
			break
		}
	}
	block, ok := latestBlock(user, req.Meta.Turn)
	if !ok {
		return
	}
	self := req.Meta.Agent + 1
	replies := splitBlock(block)
	own, ok := readReply(c.Letters(), replies[self])
	c.SetPositions(own.rank, own.conf, ok)
	k := 0
	for j := 1; j <= maxBlockAgents; j++ {
		text, shown := replies[j]
		if !shown || j == self {
			continue
		}
		k++
		if pos, ok := readReply(c.Letters(), text); ok {
			c.SetPeer(k, pos.rank, pos.conf)
		}
	}
}

// latestBlock is round latest's block of a shared-layout user message: the
// text after its header, found after every earlier round's, up to the tail
// (the last "You are agent" paragraph, which the layout appends last).
func latestBlock(user string, latest int) (string, bool) {
	pos := 0
	for r := 1; r <= latest; r++ {
		h := "\n\n" + roundMarker + strconv.Itoa(r) + ":"
		k := strings.Index(user[pos:], h)
		if k < 0 {
			return "", false
		}
		pos += k + len(h)
	}
	if latest < 1 {
		return "", false
	}
	block := user[pos:]
	if end := strings.LastIndex(block, "\n\n"+tailMarker); end >= 0 {
		block = block[:end]
	}
	return block, true
}

// maxBlockAgents bounds the agent numbers a block is read for.
const maxBlockAgents = 64

// splitBlock splits a round block into its replies by agent number: agent
// j's is the text after the first "Agent j's solution: ```" line that
// follows agent j−1's, up to agent j+1's line (or the block's end), without
// its closing fence. Agents are read in order, so a reply that quotes
// another agent's line cannot take that agent's slot; only a reply holding
// the next agent's exact line (with its fence) can cut itself short.
func splitBlock(block string) map[int]string {
	out := map[int]string{}
	pos, start := 0, -1
	j := 1
	for ; j <= maxBlockAgents; j++ {
		m := agentLineOf(j)
		k := strings.Index(block[pos:], m)
		if k < 0 {
			break
		}
		if start >= 0 {
			out[j-1] = strings.TrimSuffix(block[start:pos+k], "\n```")
		}
		start = pos + k + len(m)
		pos = start
	}
	if start >= 0 {
		out[j-1] = strings.TrimSuffix(block[start:], "\n```")
	}
	return out
}

// agentLineOf is the line that opens agent j's reply in a round block.
func agentLineOf(j int) string {
	return "\n\n" + agentMarker + strconv.Itoa(j) + solutionMarker + " ```\n"
}

// readReply reads the position of one reply as written: its ranking (at
// least one known letter) and its confidence (-1 when none in [0, 1]).
func readReply(letters []string, text string) (reply, bool) {
	p := reply{conf: -1}
	if rest, ok := afterKey(text, `"ranking"`); ok && len(rest) > 0 && rest[0] == '[' {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			p.rank = sim.ParseLetters(letters, strings.ReplaceAll(rest[1:j], `"`, ""), ',')
		}
		if c, ok := afterKey(text, `"confidence"`); ok {
			p.conf = leadConfidence(c)
		}
	}
	if p.rank.Len() == 0 {
		p = readLines(letters, text)
	}
	if p.rank.Len() == 0 {
		if l := bareLetter(letters, text); l >= 0 {
			p.rank = sim.OneLetter(l)
		}
	}
	return p, p.rank.Len() > 0
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
func readLines(letters []string, text string) reply {
	p := reply{conf: -1}
	for len(text) > 0 {
		line := text
		if j := strings.IndexByte(text, '\n'); j >= 0 {
			line, text = text[:j], text[j+1:]
		} else {
			text = ""
		}
		line = sim.TrimSpace(line)
		if rest, ok := sim.CutPrefix(line, "RANKING:"); ok {
			p.rank = sim.ParseLetters(letters, rest, ',')
		} else if rest, ok := sim.CutPrefix(line, "CONFIDENCE:"); ok {
			p.conf = leadConfidence(sim.TrimSpace(rest))
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
func bareLetter(letters []string, text string) int8 {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(text), "`"))
	if inner, ok := strings.CutPrefix(t, "**"); ok {
		if inner, ok := strings.CutSuffix(inner, "**"); ok {
			return int8(sim.LetterIndex(letters, inner))
		}
	}
	if i := strings.IndexByte(t, '$'); i >= 0 {
		if j := strings.IndexByte(t[i+1:], '$'); j >= 0 {
			return int8(sim.LetterIndex(letters, t[i+1:i+1+j]))
		}
	}
	return -1
}
