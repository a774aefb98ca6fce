package sim

import (
	"math"

	"github.com/medteam-bench/medteam/llm"
)

// The core's mechanisms, as a protocol's Behaviour uses them. Each is the
// one the core's own kinds use, so a behaviour moved out of the core draws
// exactly what it drew inside. As everywhere in the simulator, the gold
// enters an answer only through an agent's own knowledge (Know, the
// correctness draw of DrawRanking) and the quality of its reasoning
// (LatentQuality): a behaviour reads Gold only to apply what it knows.

// Purpose tags of the core's streams that behaviours draw from (Rng).
const (
	TagRoleOrder = tagRoleOrder
	TagFacts     = tagFacts
	TagText      = tagText
	TagSwitch    = tagSwitch
	TagLeader    = tagLeader
	TagQuality   = tagQuality
)

// MaxLetters bounds the options of an item.
const MaxLetters = maxLetters

// RecruitPool is how many of the most relevant specialties an unranked
// recruitment draws from.
const RecruitPool = recruitPool

// NSpecialties is the number of specialties the simulator knows.
const NSpecialties = nSpecialties

// First is the ranking's first option, -1 when empty.
func (r *Ranking) First() int8 { return r.first() }

// At is the option at position k (0-based).
func (r *Ranking) At(k int) int8 { return r.idx[k] }

// Len is the number of options ranked.
func (r *Ranking) Len() int { return r.n }

// NewStream is the stream of purpose tag under key.
func NewStream(key, tag uint64) Stream { return newStream(key, tag) }

// Float is a uniform draw in [0, 1).
func (r *Stream) Float() float64 { return r.float() }

// Intn is a uniform draw in [0, n).
func (r *Stream) Intn(n int) int { return r.intn(n) }

// Normal is a standard normal draw.
func (r *Stream) Normal() float64 { return r.normal() }

// Mix64 is the simulator's 64-bit mixer; Fnv64 its string hash; Golden
// the golden-ratio constant its keys use.
func Mix64(z uint64) uint64 { return mix64(z) }

// Fnv64 hashes s (FNV-1a).
func Fnv64(s string) uint64 { return fnv64(s) }

// Golden is the golden-ratio constant of the keys.
const Golden = golden

// Clamp limits x to [lo, hi].
func Clamp(x, lo, hi float64) float64 { return clamp(x, lo, hi) }

// DecodeTier reads the quality tier of the cue in s, -1 when none.
func DecodeTier(s string) int8 { return decodeTier(s) }

// TrimSpace trims blanks, tabs and a carriage return, as the core's
// prompt reader does.
func TrimSpace(s string) string { return trimSpace(s) }

// AppendQuoted appends s as a JSON string.
func AppendQuoted(b []byte, s string) []byte { return appendQuoted(b, s) }

// SpecialtyName is the name of specialty i.
func SpecialtyName(i uint8) string { return specialties[i].name }

// QualityCue is the k-th (0 or 1) cue sentence of quality tier t.
func QualityCue(t, k int) string { return qualityCues[t][k] }

// Request is the request being answered.
func (c *Call) Request() *llm.Request { return c.req }

// Profile is the simulator's profile.
func (c *Call) Profile() *Profile { return c.p }

// N is the item's number of options.
func (c *Call) N() int { return c.n }

// Letter is option i's letter.
func (c *Call) Letter(i int8) string { return c.it.letters[i] }

// LetterIndex is the index of the option with letter s, -1 when none.
func (c *Call) LetterIndex(s string) int { return c.it.letterIndex(s) }

// Gold is the gold option's index (see the package's note above).
func (c *Call) Gold() int8 { return c.it.gold }

// QHash is the question's hash, the key of its per-question draws.
func (c *Call) QHash() uint64 { return c.it.qhash }

// Relevance lists the specialties by relevance to the question, most
// relevant first.
func (c *Call) Relevance() [NSpecialties]uint8 { return c.it.relevance }

// Key is the call's key; SetKey replaces it (a view drawn from something
// other than the call, e.g. a report's text), so Rng draws from the new key.
func (c *Call) Key() uint64 { return c.key }

// SetKey replaces the call's key.
func (c *Call) SetKey(k uint64) { c.key = k }

// Rng is the call's stream of purpose tag.
func (c *Call) Rng(tag uint64) Stream { return c.rng(tag) }

// SetRole makes the addressed member a specialist of role (its
// SpecialistBonus, as a ReadsRole line does).
func (c *Call) SetRole(role string) { c.pr.role, c.pr.hasRole = role, role != "" }

// Skill is the addressed member's effective skill for this call.
func (c *Call) Skill() float64 { return c.skill() }

// Know is the probability of knowing the answer at skill.
func (c *Call) Know(skill float64) float64 { return c.know(skill) }

// DrawRanking draws an independent full ranking at skill.
func (c *Call) DrawRanking(skill float64) Ranking { return c.drawRanking(skill) }

// ReasoningNoise is the addressed agent's reasoning-quality noise.
func (c *Call) ReasoningNoise() float64 { return c.reasoningNoise() }

// LatentQuality is the quality of reasoning at skill for first choice first.
func (c *Call) LatentQuality(skill float64, first int8, noise float64) float64 {
	return c.latentQuality(skill, first, noise)
}

// Susceptibility multiplies a switch probability by the quality q of the
// agent's own reasoning.
func (c *Call) Susceptibility(q float64) float64 { return c.susceptibility(q) }

// Perceive is the perceived quality of reasoning of tier t (-1: unseen).
func (c *Call) Perceive(t int8, r *Stream) float64 { return c.perceive(t, r) }

// Argmax is the option of the greatest weight, a seeded draw among ties.
func (c *Call) Argmax(w *[MaxLetters]float64, r *Stream) int8 { return c.argmax(w, r) }

// Cue is a sentence carrying reasoning quality q (drawn from r).
func (c *Call) Cue(q float64, r *Stream) string {
	var a answer
	a.setCue(q, r)
	return a.cue
}

// DrawFacts draws k facts, each supportive with probability pTrue, and
// returns their texts.
func (c *Call) DrawFacts(k int, pTrue float64, r *Stream) []string {
	var a answer
	c.drawFacts(&a, k, pTrue, r)
	out := make([]string, a.nfacts)
	for i := range out {
		out[i] = factBank[a.facts[i]]
	}
	return out
}

// Finish applies the malformed and fence draws to the answer b (a JSON
// object when asJSON) whose chosen option is letter (-1: none), as the
// core's kinds do.
func (c *Call) Finish(b []byte, letter int8, asJSON bool) string {
	if c.p.MalformedRate > 0 {
		if r := c.rng(tagMalformed); r.float() < c.p.MalformedRate {
			return c.malformed(b, letter, &r)
		}
	}
	if asJSON && c.p.FenceRate > 0 {
		if r := c.rng(tagFence); r.float() < c.p.FenceRate {
			return fencePrefaces[r.intn(len(fencePrefaces))] + "```json\n" + string(b) + "\n```"
		}
	}
	return string(b)
}

// More tags, for the behaviours that answer the question.
const TagConf = tagConf

// UninformedQuality is the quality read in reasoning that shows no cue.
const UninformedQuality = uninformedQuality

// TierMid is the midpoint quality of tier t.
func TierMid(t int8) float64 { return tierMid(t) }

// CutPrefix is s without prefix p, and whether s had it.
func CutPrefix(s, p string) (string, bool) { return cutPrefix(s, p) }

// AgentNumber reads the N of "N: text" or "N, text" (1…16) and the rest.
func AgentNumber(s string) (int, string, bool) { return agentNumber(s) }

// YesNo is "yes" or "no".
func YesNo(v bool) string { return yesNo(v) }

// SpecialtyFocus is what specialty i focuses on.
func SpecialtyFocus(i uint8) string { return specialties[i].focus }

// Complete appends the options (of n) the ranking lacks, in option order.
func (r *Ranking) Complete(n int) { r.complete(n) }

// NewAnswer is an empty answer of the call's kind (no letter chosen).
func (c *Call) NewAnswer() Answer { return newAnswer() }

// Ranking is the answer's ranking.
func (a *Answer) Ranking() *Ranking { return &a.rank }

// SetRanking replaces the answer's ranking.
func (a *Answer) SetRanking(r Ranking) { a.rank = r }

// SetConfidence sets the stated confidence.
func (a *Answer) SetConfidence(v float64) { a.conf = v }

// Letter is the option the answer decides on (-1: none); SetLetter sets it.
func (a *Answer) Letter() int8 { return a.letter }

// SetLetter sets the option the answer decides on.
func (a *Answer) SetLetter(l int8) { a.letter = l }

// HasSentence reports whether the answer has its sentence.
func (a *Answer) HasSentence() bool { return a.sent != nil }

// SetSentence makes the answer's sentence s[0] l1 s[1] l2 s[2].
func (a *Answer) SetSentence(s *[3]string, l1, l2 int8) { a.sent, a.l1, a.l2 = s, l1, l2 }

// SetCue makes the answer's reasoning carry quality q.
func (a *Answer) SetCue(q float64, r *Stream) { a.setCue(q, r) }

// Difficulty is the question's difficulty (in [0, 1] around ½).
func (c *Call) Difficulty() float64 { return c.it.difficulty }

// Distractor is the question's attractive wrong option.
func (c *Call) Distractor() int8 { return c.it.distractor }

// Diagnosis is a triage item's gold diagnosis ("" otherwise).
func (c *Call) Diagnosis() string { return c.it.diagnosis }

// ReadPrompt reads the request's marker lines (FORMATS.md): self is the
// addressed agent's number (0: none), judge asks for the lines a leader
// judges reasoning by.
func (c *Call) ReadPrompt(self int, judge bool) { scanPrompt(c.req, c.it, c.m.mk, self, judge, &c.pr) }

// Peers is the number of other agents' positions the prompt shows.
func (c *Call) Peers() int { return c.pr.npeer }

// Peer is the k-th position shown: the agent's number, its first choice
// and its stated confidence (-1: none).
func (c *Call) Peer(k int) (num int, first int8, conf float64) {
	p := &c.pr.peers[k]
	return p.num, p.rank.first(), p.conf
}

// SortPeers orders the positions shown by agent number.
func (c *Call) SortPeers() { c.sortPeers() }

// Seen is the perceived quality of agent n's reasoning as the prompt shows it.
func (c *Call) Seen(n int, r *Stream) float64 { return c.seen(n, r) }

// OwnPosition is the agent's own ranking ("POSITION you") and confidence,
// or an independent ranking at skill (confidence -1) when none is shown.
func (c *Call) OwnPosition(skill float64) (Ranking, float64) { return c.ownPosition(skill) }

// Confidence draws a confidence for an answer that is (not) correct.
func (c *Call) Confidence(correct bool, r *Stream) float64 { return c.confidence(correct, r) }

// RankSentence gives the answer the sentence of its ranking.
func (c *Call) RankSentence(a *Answer, r *Stream) { c.rankSentence(a, r) }

// Reconsider is an agent's answer after seeing the others' (the peers'
// majority pulls it, its insight moves it): the Reconsider mechanism.
func (c *Call) Reconsider(a *Answer) { c.reconsidered(a, nil) }

// VerdictSentence writes a decider's sentence (its letter against the most
// common other first choice) from sents.
func (c *Call) VerdictSentence(a *Answer, sents *[2][3]string) { c.verdictSentence(a, sents) }

// AppendSentence appends the answer's sentence and cue (a JSON string when
// asJSON).
func (c *Call) AppendSentence(b []byte, a *Answer, asJSON bool) []byte {
	return c.appendSentence(b, a, asJSON)
}

// Difficulty is question id's drawn difficulty (NaN for an unknown id): a
// behaviour's tests check that what it answers follows it.
func (m *Model) Difficulty(id string) float64 {
	if it := m.items[id]; it != nil && it.err == nil {
		return it.difficulty
	}
	return math.NaN()
}

// NTiers is the number of reasoning-quality tiers.
const NTiers = nTiers

// TierOf is the tier of quality q.
func TierOf(q float64) int8 { return tierOf(q) }

// Round2 rounds x to two decimals.
func Round2(x float64) float64 { return round2(x) }

// AppendEscaped appends s escaped for a JSON string (no quotes).
func AppendEscaped(b []byte, s string) []byte { return appendEscaped(b, s) }

// EqualFoldASCII compares ASCII strings case-insensitively.
func EqualFoldASCII(a, b string) bool { return equalFoldASCII(a, b) }

// CutConfidence splits a position's body at its "(confidence x)" note and
// returns the stated confidence, -1 when none or not in [0, 1].
func CutConfidence(body string) (string, float64) { return cutConfidence(body) }

// ParseLetters reads sep-separated option letters, dropping unknown and
// repeated ones.
func (c *Call) ParseLetters(s string, sep byte) Ranking { return parseLetters(c.it, s, sep) }

// PeerRanking is the k-th position's ranking as shown (read only).
func (c *Call) PeerRanking(k int) *Ranking { return &c.pr.peers[k].rank }

// AppendLetter appends option i's letter (escaped for JSON when asJSON).
func (c *Call) AppendLetter(b []byte, i int8, asJSON bool) []byte {
	return c.appendLetter(b, i, asJSON)
}

// Confidence is the answer's stated confidence.
func (a *Answer) Confidence() float64 { return a.conf }

// HasOwnPosition reports whether the prompt shows the agent's own previous
// position ("POSITION you").
func (c *Call) HasOwnPosition() bool { return c.pr.hasYou }

// Independent is an agent's independent answer, as Ranked: ranking,
// confidence, reasoning with its quality cue.
func (c *Call) Independent(a *Answer) { c.independent(a) }

// AppendRanked writes a ranked answer: the reasoning, ranking and
// confidence as a JSON object or labelled lines (the shared first
// answer's); AppendField adds more.
func (c *Call) AppendRanked(b []byte, a *Answer, asJSON bool) []byte {
	if asJSON {
		return c.rankedJSON(b, a)
	}
	return c.rankedPlain(b, a)
}

// AppendDiagnosis adds, on a triage item, the diagnosis an agent answer
// states (see Item): a DIAGNOSIS line, or a "diagnosis" member before the
// JSON object's closing brace; nothing on another item.
func (c *Call) AppendDiagnosis(b []byte, a *Answer, asJSON bool) []byte {
	return c.appendStatedDiagnosis(b, a, asJSON)
}

// SetPositions replaces the positions the prompt showed: none, then the
// agent's own (ok) and the peers' set by SetPeer — a conversation read as
// the protocol writes it (debate's revision).
func (c *Call) SetPositions(own Ranking, conf float64, ok bool) {
	c.pr.you, c.pr.hasYou, c.pr.npeer = position{}, false, 0
	if ok {
		c.pr.you, c.pr.hasYou = position{rank: own, conf: conf}, true
	}
}

// SetPeer records agent num's position (replacing an earlier one).
func (c *Call) SetPeer(num int, r Ranking, conf float64) {
	c.pr.setPeer(position{num: num, rank: r, conf: conf})
}

// OneLetter is the ranking of option i alone.
func OneLetter(i int8) Ranking {
	var r Ranking
	r.idx[0], r.n = i, 1
	return r
}

// Letters are the item's option letters (read only).
func (c *Call) Letters() []string { return c.it.letters }

// ParseLetters reads sep-separated letters of letters (an item's options),
// dropping unknown and repeated ones, as the core reads a ranking.
func ParseLetters(letters []string, s string, sep byte) Ranking {
	return parseLetters(&item{letters: letters}, s, sep)
}

// LetterIndex is the index of s among letters (exact, else ignoring ASCII
// case), -1 when none.
func LetterIndex(letters []string, s string) int { return (&item{letters: letters}).letterIndex(s) }

// AppendField adds a field to an answer the core wrote (AppendRanked): the
// JSON member "name": value before the object's closing brace, or the line
// "label: value"; value is written as given (a JSON value when asJSON).
func AppendField(b []byte, name, label string, value []byte, asJSON bool) []byte {
	return appendField(b, name, label, value, asJSON)
}
