package sim

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// The simulator reads the prompt only through marker lines: its own
// POSITION lines and the markers the registered behaviours declare
// (Marker). Any other text — the stem, the options, reports,
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

	// values are the lines of the ReadsValue markers, by marker index, in
	// prompt order (nil: none), for the behaviour (Call.Values).
	values [][]string

	// Reasoning tiers the leader can read, stored as tier+1 (0: none), by
	// agent number: from the ReadsReasoning lines (rtier) and from agent
	// N's latest statement in a ReadsStatements block (htier, hseen: a
	// latest statement without a cue leaves nothing to read); the tier of the
	// ReadsReply line (resp). Read only for the calls that judge.
	rtier [maxPeers + 1]int8
	htier [maxPeers + 1]int8
	hseen [maxPeers + 1]bool
	resp  int8
}

// tierFor is the reasoning tier the prompt shows for agent n (its latest
// statement in the discussion, else its reasoning line), or -1 for none.
func (pr *prompt) tierFor(n int) int8 {
	if n < 1 || n > maxPeers {
		return -1
	}
	if pr.hseen[n] {
		return pr.htier[n] - 1
	}
	return pr.rtier[n] - 1
}

// scanPrompt reads the marker lines of req (the markers of mk). self is the
// addressed agent's own number (Agent+1) for agent kinds, 0 otherwise: an
// "agent N" position with N == self is not a peer. judge asks for the lines
// a leader judges reasoning by (the markers with Judge set).
func scanPrompt(req *llm.Request, it *item, mk *markerSet, self int, judge bool, pr *prompt) {
	pr.leader = -1
	s := scanner{pr: pr, it: it, mk: mk, self: self, judge: judge, block: -1}
	for mi := range req.Messages {
		if req.Messages[mi].Role == llm.RoleAssistant {
			continue
		}
		s.block = -1 // a block never runs on into the next message
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
			if s.block >= 0 {
				if s.blockLine(line) {
					continue
				}
				s.block = -1
			}
			if len(line) < mk.shortest || mk.at[line[0]] == 0 {
				continue // prose
			}
			if k, rest, ok := s.marker(line); ok {
				s.read(k, rest)
			}
		}
	}
}

// scanner is the state of one scanPrompt: the prompt it fills and the block
// marker (index into mk.list; -1 for none) whose item lines follow the
// marker line that opened it.
type scanner struct {
	pr    *prompt
	it    *item
	mk    *markerSet
	self  int
	judge bool
	block int
}

// Reads is what the core reads from a marker line (Marker).
type Reads uint8

const (
	// ReadsValue keeps the rest of the line for the behaviour
	// (Call.Values); the core reads nothing in it.
	ReadsValue Reads = iota
	// ReadsPosition reads "who: A > B (confidence 0.70)": "you", "leader"
	// or "agent N"; "agent N: (no readable answer)" removes agent N.
	ReadsPosition
	// ReadsRole: the rest is the addressed member's specialty
	// (SpecialistBonus).
	ReadsRole
	// ReadsAnalysis: the member is shown a question analysis
	// (AnalysisBonus).
	ReadsAnalysis
	// ReadsFacts opens a block of "- fact" lines the member is shown
	// (FactsBonus); a later block replaces an earlier one.
	ReadsFacts
	// ReadsStatements opens (when the marker is the whole line) a block of
	// statements, one a line: Marker.Item followed by the agent's number,
	// each read for its reasoning cue (the latest of an agent counts), or
	// Marker.Also lines, passed over; any other line ends the block.
	ReadsStatements
	// ReadsReasoning reads "N: text", agent N's reasoning, for its cue.
	ReadsReasoning
	// ReadsReply reads the rest, a reply, for its cue (Call.ReplyTier).
	ReadsReply
	nReads
)

// Marker is a labelled line of the prompts a protocol writes, and what the
// core reads from it. A behaviour declares its protocol's markers
// (Behaviour.Markers); the core reads the markers of every registered
// behaviour, and its own POSITION lines, in every request.
type Marker struct {
	// Prefix starts the line (after leading blanks), at least two bytes;
	// no prefix is a prefix of another.
	Prefix string
	Reads  Reads
	// Judge: read only on the calls that judge reasoning (ReadPrompt's
	// judge).
	Judge bool
	// Item and Also are the line prefixes of a ReadsStatements block.
	Item, Also string
}

// positionMarker is the core's own marker: the positions the shared
// protocols' prompts show (protocols/kit).
var positionMarker = Marker{Prefix: "POSITION ", Reads: ReadsPosition}

// markerSet is the markers a model reads, indexed by first byte (bit i of
// at[b] stands for list[i]) so that the stem, the options and other prose
// lines are passed over at a glance. (The readers are dispatched by a
// switch, not stored as funcs: calls through func values would make the
// prompt, and with it every call, escape to the heap.)
type markerSet struct {
	list     []Marker
	at       [256]uint64
	shortest int
}

// newMarkerSet indexes ms; a marker that is malformed, or whose prefix is a
// prefix of another's, is a programming error (panics, naming both).
func newMarkerSet(ms []Marker) *markerSet {
	if len(ms) > 64 {
		panic(fmt.Sprintf("sim.New: %d prompt markers; the core reads at most 64", len(ms)))
	}
	mk := &markerSet{list: ms, shortest: 1 << 30}
	for i, m := range ms {
		if len(m.Prefix) < 2 || m.Reads >= nReads {
			panic(fmt.Sprintf("sim.New: marker %q: a prefix of 2 or more bytes and a known Reads", m.Prefix))
		}
		for _, o := range ms[:i] {
			if strings.HasPrefix(m.Prefix, o.Prefix) || strings.HasPrefix(o.Prefix, m.Prefix) {
				panic(fmt.Sprintf("sim.New: markers %q and %q: one is a prefix of the other", o.Prefix, m.Prefix))
			}
		}
		mk.at[m.Prefix[0]] |= 1 << i
		mk.shortest = min(mk.shortest, len(m.Prefix))
	}
	return mk
}

// index is the index of the marker of prefix p, -1 when none.
func (mk *markerSet) index(p string) int {
	for i := range mk.list {
		if mk.list[i].Prefix == p {
			return i
		}
	}
	return -1
}

// marker recognises a marker line and returns its index and the rest of
// the line. ok is false for any other line, and for a marker read only
// when judging when the call does not judge.
func (s *scanner) marker(line string) (k int, rest string, ok bool) {
	for at := s.mk.at[line[0]]; at != 0; at &= at - 1 {
		i := bits.TrailingZeros64(at)
		m := &s.mk.list[i]
		if line[1] != m.Prefix[1] { // cheaper than cutPrefix
			continue
		}
		if rest, ok := cutPrefix(line, m.Prefix); ok {
			return i, rest, s.judge || !m.Judge
		}
	}
	return 0, "", false
}

// read reads the rest of a line of marker k.
func (s *scanner) read(k int, rest string) {
	pr := s.pr
	switch m := &s.mk.list[k]; m.Reads {
	case ReadsPosition:
		pr.addPosition(s.it, rest, s.self)
	case ReadsRole:
		pr.role = trimSpace(rest)
		pr.hasRole = pr.role != ""
	case ReadsAnalysis:
		pr.analysis = true
	case ReadsFacts:
		// A later block replaces an earlier one.
		pr.factsTotal, pr.factsTrue, pr.factsUnknown = 0, 0, 0
		s.block = k
	case ReadsStatements:
		if rest == "" {
			s.block = k
		}
	case ReadsReasoning:
		s.reasoning(rest)
	case ReadsReply:
		pr.resp = decodeTier(rest) + 1
	default:
		if pr.values == nil {
			pr.values = make([][]string, len(s.mk.list))
		}
		pr.values[k] = append(pr.values[k], rest)
	}
}

// blockLine reads line as an item of the open block and reports whether it
// is one: a "- fact" or "* fact" line of a facts block, a statement of a
// statements block.
func (s *scanner) blockLine(line string) bool {
	if m := &s.mk.list[s.block]; m.Reads == ReadsStatements {
		return s.statementLine(m, line)
	}
	if len(line) < 2 || (line[0] != '-' && line[0] != '*') || line[1] != ' ' {
		return false
	}
	s.pr.addFact(s.it, trimSpace(line[2:]))
	return true
}

// statementLine reads a line of a statements block: one statement per
// line, m.Item followed by the agent's number, or m.Also; any other line
// ends the block.
func (s *scanner) statementLine(m *Marker, line string) bool {
	if rest, ok := cutPrefix(line, m.Item); ok && m.Item != "" {
		s.pr.addStatement(rest)
		return true
	}
	_, ok := cutPrefix(line, m.Also)
	return ok && m.Also != ""
}

// reasoning reads "N: text", agent N's reasoning.
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
