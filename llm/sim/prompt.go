package sim

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// The simulator reads the prompt only through its marker lines (listed
// in doc.go). Any other text — the stem, the options, reports,
// trust lines, anything that looks like a hint — is ignored. Lines are
// scanned in every non-assistant message, in order; a later marker line
// replaces an earlier one of the same kind (the latest position wins).

const (
	maxLetters = 10
	maxPeers   = 16
)

// Ranking is an ordered list of option indexes (a partial ranking is allowed).
type Ranking struct {
	idx [maxLetters]int8
	n   int
}

// ranking is the core's name for a Ranking.
type ranking = Ranking

func (r *ranking) has(i int8) bool {
	for k := 0; k < r.n; k++ {
		if r.idx[k] == i {
			return true
		}
	}
	return false
}

func (r *ranking) first() int8 {
	if r.n == 0 {
		return -1
	}
	return r.idx[0]
}

// moveFront moves option i to the front, keeping the others' relative order.
func (r *ranking) moveFront(i int8) {
	pos := -1
	for k := 0; k < r.n; k++ {
		if r.idx[k] == i {
			pos = k
			break
		}
	}
	if pos < 0 {
		if r.n < maxLetters {
			r.n++
		}
		pos = r.n - 1
	}
	copy(r.idx[1:pos+1], r.idx[:pos])
	r.idx[0] = i
}

// complete appends the options the ranking lacks, in option order.
func (r *ranking) complete(n int) {
	for i := 0; i < n && r.n < n; i++ {
		if !r.has(int8(i)) {
			r.idx[r.n] = int8(i)
			r.n++
		}
	}
}

// position is one "POSITION who: …" line.
type position struct {
	num  int // agent number (1-based) for "agent N"
	rank ranking
	conf float64 // -1 when not stated
}

// prompt is what the simulator learns from a request's marker lines.
type prompt struct {
	you    position
	hasYou bool
	leader int8 // leader's leaning, -1 when absent
	peers  [maxPeers]position
	npeer  int

	role         string
	hasRole      bool
	analysis     bool
	factsTotal   int
	factsTrue    int
	factsUnknown int

	teamSize  int
	rankSpecs bool
	tied      ranking
	hasTied   bool
	target    int
	concern   bool

	// Reasoning tiers the leader can read, stored as tier+1 (0: none), by
	// agent number: from "REASONING agent N:" lines (rtier) and from agent
	// N's latest statement in the DISCUSSION SO FAR block (htier, hseen: a
	// latest statement without a cue leaves nothing to read); the tier of the
	// "RESPONSE:" line (resp). Read only for the leader kinds that judge.
	rtier [maxPeers + 1]int8
	htier [maxPeers + 1]int8
	hseen [maxPeers + 1]bool
	resp  int8
}

// tierFor is the reasoning tier the prompt shows for agent n (its latest
// statement in the discussion, else its REASONING line), or -1 for none.
func (pr *prompt) tierFor(n int) int8 {
	if n < 1 || n > maxPeers {
		return -1
	}
	if pr.hseen[n] {
		return pr.htier[n] - 1
	}
	return pr.rtier[n] - 1
}

// scanPrompt reads the marker lines of req. self is the addressed agent's
// own number (Agent+1) for agent kinds, 0 otherwise: an "agent N" line with
// N == self is not a peer. judge asks for the lines a leader judges
// reasoning by: "REASONING agent N:", the agents' statements in the
// DISCUSSION SO FAR block and "RESPONSE:".
func scanPrompt(req *llm.Request, it *item, self int, judge bool, pr *prompt) {
	pr.leader = -1
	s := scanner{pr: pr, it: it, self: self, judge: judge}
	for mi := range req.Messages {
		if req.Messages[mi].Role == llm.RoleAssistant {
			continue
		}
		s.block = noBlock // a block never runs on into the next message
		text := req.Messages[mi].Content
		for len(text) > 0 {
			line := text
			if j := strings.IndexByte(text, '\n'); j >= 0 {
				line, text = text[:j], text[j+1:]
			} else {
				text = ""
			}
			// A line is an item of the open block, else a marker line
			// (which may open a block), else nothing.
			line = trimSpace(line)
			if s.block != noBlock {
				if s.blockLine(line) {
					continue
				}
				s.block = noBlock
			}
			if len(line) < 5 || markersAt[line[0]] == 0 {
				continue // prose: 5 is the shortest marker
			}
			if k, rest, ok := s.marker(line); ok {
				s.read(k, rest)
			}
		}
	}
}

// scanner is the state of one scanPrompt: the prompt it fills and the block
// (if any) whose item lines follow the marker line that opened it.
type scanner struct {
	pr    *prompt
	it    *item
	self  int
	judge bool
	block block
}

// block is a marker line whose item lines follow it.
type block uint8

const (
	noBlock      block = iota
	factsBlock         // "VERIFIED FACTS:", then "- fact" lines
	historyBlock       // "DISCUSSION SO FAR:", then one statement a line
)

// markerKind says which marker a line is.
type markerKind uint8

const (
	markPosition markerKind = iota
	markRole
	markAnalysis
	markFacts
	markTeamSize
	markTied
	markTarget
	markRankSpecialties
	markConcern
	markHistory
	markReasoning
	markResponse
)

// markers recognise the marker lines by prefix. No prefix is a prefix of
// another, so a line is at most one marker. (The readers are dispatched by
// a switch, not stored here as funcs: calls through func values would make
// the prompt, and with it every call, escape to the heap.)
var markers = [...]struct {
	prefix string
	kind   markerKind
	judge  bool // read only when the call judges reasoning
}{
	{"POSITION ", markPosition, false},
	{"YOUR ROLE:", markRole, false},
	{"QUESTION ANALYSIS:", markAnalysis, false},
	{"VERIFIED FACTS:", markFacts, false},
	{"TEAM SIZE:", markTeamSize, false},
	{"TIED:", markTied, false},
	{"TARGET:", markTarget, false},
	{"RANK SPECIALTIES:", markRankSpecialties, false},
	{"CONCERN:", markConcern, false},
	{"DISCUSSION SO FAR:", markHistory, true},
	{"REASONING agent ", markReasoning, true},
	{"RESPONSE:", markResponse, true},
}

// markersAt lists, by first byte, the markers that start with it (bit i
// stands for markers[i]), so that the stem, the options and other prose
// lines are passed over at a glance.
var markersAt = func() (at [256]uint16) {
	for i := range markers {
		at[markers[i].prefix[0]] |= 1 << i
	}
	return at
}()

// marker recognises a marker line (of 5 bytes or more) and returns its kind
// and the rest of the line. ok is false for any other line, and for a
// marker read only when judging when the call does not judge.
func (s *scanner) marker(line string) (k markerKind, rest string, ok bool) {
	for at := markersAt[line[0]]; at != 0; at &= at - 1 {
		m := &markers[bits.TrailingZeros16(at)]
		if line[1] != m.prefix[1] { // cheaper than cutPrefix
			continue
		}
		if rest, ok := cutPrefix(line, m.prefix); ok {
			return m.kind, rest, s.judge || !m.judge
		}
	}
	return 0, "", false
}

// read reads the rest of a marker line of kind k.
func (s *scanner) read(k markerKind, rest string) {
	pr := s.pr
	switch k {
	case markPosition:
		pr.addPosition(s.it, rest, s.self)
	case markRole:
		pr.role = trimSpace(rest)
		pr.hasRole = pr.role != ""
	case markAnalysis:
		pr.analysis = true
	case markFacts:
		// A later block replaces an earlier one.
		pr.factsTotal, pr.factsTrue, pr.factsUnknown = 0, 0, 0
		s.block = factsBlock
	case markTeamSize:
		s.teamSize(rest)
	case markTied:
		pr.tied = parseLetters(s.it, rest, ',')
		pr.hasTied = pr.tied.n > 0
	case markTarget:
		s.target(rest)
	case markRankSpecialties:
		pr.rankSpecs = equalFoldASCII(trimSpace(rest), "yes")
	case markConcern:
		pr.concern = true
	case markHistory:
		s.history(rest)
	case markReasoning:
		s.reasoning(rest)
	case markResponse:
		pr.resp = decodeTier(rest) + 1
	}
}

// blockLine reads line as an item of the open block and reports whether it
// is one: a "- fact" or "* fact" line of the VERIFIED FACTS block, a
// statement of the DISCUSSION SO FAR block.
func (s *scanner) blockLine(line string) bool {
	if s.block == historyBlock {
		return s.statementLine(line)
	}
	if len(line) < 2 || (line[0] != '-' && line[0] != '*') || line[1] != ' ' {
		return false
	}
	s.pr.addFact(s.it, trimSpace(line[2:]))
	return true
}

func (s *scanner) teamSize(rest string) {
	if n, err := strconv.Atoi(trimSpace(rest)); err == nil {
		s.pr.teamSize = n
	}
}

// target reads "TARGET: agent N".
func (s *scanner) target(rest string) {
	if r, ok := cutPrefix(trimSpace(rest), "agent "); ok {
		if n, err := strconv.Atoi(trimSpace(r)); err == nil {
			s.pr.target = n
		}
	}
}

// history opens the DISCUSSION SO FAR block (the marker is the whole line).
func (s *scanner) history(rest string) {
	if rest == "" {
		s.block = historyBlock
	}
}

// statementLine reads a line of the DISCUSSION SO FAR block: one statement
// per line, "Agent N…" or "Leader…"; any other line ends the block.
func (s *scanner) statementLine(line string) bool {
	if rest, ok := cutPrefix(line, "Agent "); ok {
		s.pr.addStatement(rest)
		return true
	}
	_, ok := cutPrefix(line, "Leader")
	return ok
}

// reasoning reads "REASONING agent N: text".
func (s *scanner) reasoning(rest string) {
	if n, body, ok := agentNumber(rest); ok {
		s.pr.rtier[n] = decodeTier(body) + 1
	}
}

func (pr *prompt) addFact(it *item, f string) {
	if n := len(f); n > 0 && f[n-1] == '.' {
		f = f[:n-1]
	}
	if f == "" {
		return
	}
	pr.factsTotal++
	id, ok := factIndex[f]
	if !ok {
		pr.factsUnknown++
		return
	}
	for _, t := range it.truePool {
		if t == id {
			pr.factsTrue++
			return
		}
	}
}

// agentNumber reads the "N" of "N: text" or "N, text" (N in 1…maxPeers)
// and returns the rest.
func agentNumber(s string) (int, string, bool) {
	n, i := 0, 0
	for i < len(s) && i < 3 && '0' <= s[i] && s[i] <= '9' {
		n = 10*n + int(s[i]-'0')
		i++
	}
	if i == 0 || i == len(s) || (s[i] != ':' && s[i] != ',' && s[i] != ' ') || n < 1 || n > maxPeers {
		return 0, "", false
	}
	return n, s[i:], true
}

// addStatement reads one "Agent N[ (role)], what: text" line of the
// discussion: the latest statement of an agent replaces the earlier ones.
func (pr *prompt) addStatement(s string) {
	n, body, ok := agentNumber(s)
	if !ok {
		return
	}
	pr.hseen[n] = true
	pr.htier[n] = decodeTier(body) + 1
}

// addPosition parses "who: A > B (confidence 0.70)"; "agent N: (no readable
// answer)" removes agent N from the peers.
func (pr *prompt) addPosition(it *item, s string, self int) {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return
	}
	who, body := trimSpace(s[:colon]), s[colon+1:]
	body, conf := cutConfidence(body)
	sep := byte('>')
	if strings.IndexByte(body, '>') < 0 {
		sep = ','
	}
	rk := parseLetters(it, body, sep)
	if rk.n == 0 {
		if n, ok := agentWho(who); ok && trimSpace(s[colon+1:]) == "(no readable answer)" {
			pr.dropPeer(n)
		}
		return
	}
	switch who {
	case "you":
		pr.you = position{rank: rk, conf: conf}
		pr.hasYou = true
	case "leader":
		pr.leader = rk.idx[0]
	default:
		if n, ok := agentWho(who); ok && n >= 1 && n != self {
			pr.setPeer(position{num: n, rank: rk, conf: conf})
		}
	}
}

// cutConfidence splits a position's body at its "(confidence x)" note and
// returns the stated confidence, -1 when there is none or it is not in [0, 1].
func cutConfidence(body string) (string, float64) {
	j := strings.IndexByte(body, '(')
	if j < 0 {
		return body, -1
	}
	note := body[j+1:]
	body = body[:j]
	r, ok := cutPrefix(trimSpace(note), "confidence")
	if !ok {
		return body, -1
	}
	r = trimSpace(r)
	if k := strings.IndexByte(r, ')'); k >= 0 {
		r = r[:k]
	}
	if v, err := strconv.ParseFloat(trimSpace(r), 64); err == nil && v >= 0 && v <= 1 {
		return body, v
	}
	return body, -1
}

// agentWho reads the N of an "agent N" position.
func agentWho(who string) (int, bool) {
	r, ok := cutPrefix(who, "agent ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(trimSpace(r))
	return n, err == nil
}

// setPeer records p as agent p.num's position, replacing an earlier one.
func (pr *prompt) setPeer(p position) {
	for k := 0; k < pr.npeer; k++ {
		if pr.peers[k].num == p.num {
			pr.peers[k] = p
			return
		}
	}
	if pr.npeer < maxPeers {
		pr.peers[pr.npeer] = p
		pr.npeer++
	}
}

// dropPeer removes agent n's position.
func (pr *prompt) dropPeer(n int) {
	for k := 0; k < pr.npeer; k++ {
		if pr.peers[k].num == n {
			copy(pr.peers[k:pr.npeer], pr.peers[k+1:pr.npeer])
			pr.npeer--
			return
		}
	}
}

// parseLetters reads sep-separated option letters, dropping unknown and
// repeated ones.
func parseLetters(it *item, s string, sep byte) ranking {
	var rk ranking
	for len(s) > 0 && rk.n < len(it.letters) {
		var tok string
		if j := strings.IndexByte(s, sep); j >= 0 {
			tok, s = s[:j], s[j+1:]
		} else {
			tok, s = s, ""
		}
		tok = trimSpace(tok)
		for len(tok) > 0 && (tok[len(tok)-1] == ')' || tok[len(tok)-1] == '.') {
			tok = tok[:len(tok)-1]
		}
		i := it.letterIndex(tok)
		if i >= 0 && !rk.has(int8(i)) {
			rk.idx[rk.n] = int8(i)
			rk.n++
		}
	}
	return rk
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\r') {
		j--
	}
	return s[i:j]
}
