package sim

import (
	"math"
	"strconv"
	"strings"
)

// The call kinds of protocols/mdagents (MDAgents, Kim et al. 2024), in the
// formats its prompts ask for (docs/protocols.md#mdagents): one JSON object
// with Schema set, else the labelled lines. The same mechanisms as the other
// kinds, and nothing else: the gold enters only through an agent's own
// knowledge (the correctness draw) and the quality of its reasoning.
//
//   - md_route: the router perceives the question's difficulty d with noise
//     (d + mdRouteNoise·N(0,1)) and answers basic below 1/3, intermediate
//     below 2/3, else advanced — never the gold.
//   - md_exemplar_reason, md_team_delivery: a fixed sentence (no letter).
//   - md_basic, md_opinion: an independent answer (as cot).
//   - md_recruit: 5 experts, the question's most relevant specialties in a
//     per-question order, each independent or (probability 0.3) under the
//     first; md_mdt_recruit: an initial assessment, a diagnostic evidence
//     and a final review and decision team of 3 specialties each, the first
//     member leading.
//   - md_participate: the expert compares its "POSITION you" with the other
//     experts' positions it has been shown (the latest per expert, in its
//     whole conversation) and wants to talk with probability
//     (mdTalkBase + mdTalkDisagree·share disagreeing)·mdTalkDecay^(t−1),
//     t the discussion's turn counted over the rounds: experts tire.
//   - md_choose: the experts that disagree with it (one, or with
//     probability 0.3 two, in a seeded order), else any other expert.
//   - md_message: the expert argues its own position (reasoning with the
//     cue of its quality), answer its first choice.
//   - md_final: discuss (the peers' majority pulls the expert by
//     Persuadability × share × susceptibility; insight).
//   - md_moderator: the plurality of the positions shown (ties: a seeded
//     draw); with none shown, an independent answer at the leader's skill.
//   - md_team_investigation: an independent answer written as the
//     investigation's text (its ranking sentence and quality cue).
//   - md_team_report: an independent answer of the lead whose skill rises
//     by mdTeamBonus × the mean quality it reads in the investigations
//     shown (their cues; 0.5 each without one).
//   - md_decision: the judge's rule over the team reports shown (POSITION
//     and REASONING lines): the gold when it knows it, else the perceived
//     best supported option.

const (
	kindMDRoute       = "md_route"
	kindMDReason      = "md_exemplar_reason"
	kindMDBasic       = "md_basic"
	kindMDRecruit     = "md_recruit"
	kindMDOpinion     = "md_opinion"
	kindMDParticipate = "md_participate"
	kindMDChoose      = "md_choose"
	kindMDMessage     = "md_message"
	kindMDFinal       = "md_final"
	kindMDModerator   = "md_moderator"
	kindMDTeams       = "md_mdt_recruit"
	kindMDDelivery    = "md_team_delivery"
	kindMDInvestigate = "md_team_investigation"
	kindMDReport      = "md_team_report"
	kindMDDecision    = "md_decision"
)

// The knobs of the mdagents kinds (the same in every profile).
const (
	mdRouteNoise   = 0.15
	mdTalkBase     = 0.1
	mdTalkDisagree = 0.8
	mdTalkDecay    = 0.8
	mdTeamBonus    = 0.08
	mdExperts      = 5
	mdTeams        = 3
	mdMembers      = 3
)

// Purpose tags of the mdagents kinds' draws (apart from the iota tags).
const (
	tagMDRoute uint64 = 0x6d64_0000_0000_0001 + iota
	tagMDTalk
	tagMDChoose
	tagMDRoles
	tagMDHierarchy
	tagMDTie
)

// mdagentsKindCodes are the codes of the mdagents kinds.
var mdagentsKindCodes = map[string]uint64{
	kindMDRoute:       101,
	kindMDReason:      102,
	kindMDBasic:       103,
	kindMDRecruit:     104,
	kindMDOpinion:     105,
	kindMDParticipate: 106,
	kindMDChoose:      107,
	kindMDMessage:     108,
	kindMDFinal:       109,
	kindMDModerator:   110,
	kindMDTeams:       111,
	kindMDDelivery:    112,
	kindMDInvestigate: 113,
	kindMDReport:      114,
	kindMDDecision:    115,
}

// mdagentsKindCode codes the mdagents kinds.
func mdagentsKindCode(k string) (uint64, bool) {
	code, ok := mdagentsKindCodes[k]
	return code, ok
}

var mdRouteNames = [3]string{"basic", "intermediate", "advanced"}

var mdRouteSentences = [3]string{
	"One clinician can answer this from the findings given.",
	"Several specialists should weigh the findings together.",
	"The case needs teams from several departments working together.",
}

const (
	mdReasonSentence   = "The findings in the stem are explained by the stated answer better than by the alternatives."
	mdDeliverySentence = "Each assistant should review the findings of the case that bear on the leading options."
	mdRecruitSentence  = "These specialties cover the findings of the case."
)

var mdTalkSentences = [2]string{
	"The other experts broadly agree with my answer.",
	"Some experts hold a different answer that I want to discuss.",
}

var mdChooseSentence = "These experts hold answers that differ from mine."

// mdTeamNames are the simulated teams, in the order named.
var mdTeamNames = [mdTeams]string{"Initial Assessment Team (IAT)", "Diagnostic Evidence Team (DET)", "Final Review and Decision Team (FRDT)"}

// mdagents answers a kind of protocols/mdagents; ok is false for any other
// kind.
func (c *call) mdagents() (string, bool) {
	kind := c.req.Meta.Kind
	if len(kind) < 3 || kind[:3] != "md_" {
		return "", false
	}
	self, judge := 0, false
	if kind == kindMDModerator || kind == kindMDDecision {
		judge = true
	} else if c.req.Meta.Agent >= 0 {
		self = c.req.Meta.Agent + 1
	}
	scanPrompt(c.req, c.it, self, judge, &c.pr)
	var a answer
	a.kind = kind
	a.letter, a.l1, a.l2 = -1, -1, -1
	asJSON := c.req.Schema != nil
	b := make([]byte, 0, 1024)
	switch kind {
	case kindMDRoute:
		b = c.mdRoute(b, asJSON)
	case kindMDReason:
		b = mdText(b, asJSON, "", "", mdReasonSentence)
	case kindMDDelivery:
		b = mdText(b, asJSON, "investigations", "INVESTIGATIONS", mdDeliverySentence)
	case kindMDRecruit:
		b = c.mdRecruit(b, asJSON)
	case kindMDTeams:
		b = c.mdTeams(b, asJSON)
	case kindMDParticipate:
		b = c.mdParticipate(b, asJSON)
	case kindMDChoose:
		b = c.mdChoose(b, asJSON)
	case kindMDInvestigate:
		c.mdIndependent(&a, 0)
		b = c.mdInvestigation(b, &a, asJSON)
	default: // the answers
		c.mdAnswerKind(&a)
		b = c.mdAnswer(b, &a, asJSON)
	}
	return c.mdFinish(b, &a, asJSON), true
}

// mdAnswerKind computes the answer of the mdagents kinds that answer the
// question; the letter defaults to the top of the ranking.
func (c *call) mdAnswerKind(a *answer) {
	switch a.kind {
	case kindMDBasic, kindMDOpinion:
		c.mdIndependent(a, 0)
	case kindMDReport:
		c.mdIndependent(a, mdTeamBonus*c.mdInvestigationQuality())
	case kindMDMessage:
		c.mdMessage(a)
	case kindMDFinal:
		c.discuss(a)
	case kindMDModerator:
		c.mdModerator(a)
	case kindMDDecision:
		c.mdDecide(a)
	}
	if a.letter < 0 {
		a.letter = a.rank.first()
	}
}

// mdFinish applies the malformed and fence draws, as format does.
func (c *call) mdFinish(b []byte, a *answer, asJSON bool) string {
	if c.p.MalformedRate > 0 {
		if r := c.rng(tagMalformed); r.float() < c.p.MalformedRate {
			return c.malformed(b, a, &r)
		}
	}
	if asJSON && c.p.FenceRate > 0 {
		if r := c.rng(tagFence); r.float() < c.p.FenceRate {
			return fencePrefaces[r.intn(len(fencePrefaces))] + "```json\n" + string(b) + "\n```"
		}
	}
	return string(b)
}

// mdText writes a reply of one sentence: {"reasoning": s} (and field
// key: s) or the REASONING line (and the label line).
func mdText(b []byte, asJSON bool, key, label, s string) []byte {
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = appendQuoted(b, s)
		if key != "" {
			b = append(b, `,"`...)
			b = append(b, key...)
			b = append(b, `":`...)
			b = appendQuoted(b, s)
		}
		return append(b, '}')
	}
	b = append(append(b, "REASONING: "...), s...)
	if label != "" {
		b = append(append(append(append(b, '\n'), label...), ": "...), s...)
	}
	return b
}

// mdRoute perceives the difficulty and names a level.
func (c *call) mdRoute(b []byte, asJSON bool) []byte {
	r := c.rng(tagMDRoute)
	x := c.it.difficulty + mdRouteNoise*r.normal()
	k := 2
	switch {
	case x < 1.0/3:
		k = 0
	case x < 2.0/3:
		k = 1
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = appendQuoted(b, mdRouteSentences[k])
		b = append(b, `,"complexity":`...)
		b = appendQuoted(b, mdRouteNames[k])
		return append(b, '}')
	}
	b = append(append(b, "REASONING: "...), mdRouteSentences[k]...)
	return append(append(b, "\nCOMPLEXITY: "...), mdRouteNames[k]...)
}

// mdSpecialties returns n specialties for the question: the most relevant
// max(recruitPool, n) in a per-question order.
func (c *call) mdSpecialties(n int) []uint8 {
	pool := max(recruitPool, n)
	var list [nSpecialties]uint8
	copy(list[:], c.it.relevance[:])
	r := newStream(c.it.qhash, tagMDRoles)
	for i := pool - 1; i > 0; i-- {
		j := r.intn(i + 1)
		list[i], list[j] = list[j], list[i]
	}
	return list[:n:n]
}

// mdRecruit names the experts and their hierarchy.
func (c *call) mdRecruit(b []byte, asJSON bool) []byte {
	roles := c.mdSpecialties(mdExperts)
	r := c.rng(tagMDHierarchy)
	hier := make([]string, len(roles))
	for i := range roles {
		hier[i] = "Independent"
		if i > 0 && r.float() < 0.3 {
			hier[i] = specialties[roles[0]].name + " > " + specialties[roles[i]].name
		}
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = appendQuoted(b, mdRecruitSentence)
		b = append(b, `,"experts":[`...)
		for i, s := range roles {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"role":`...)
			b = appendQuoted(b, specialties[s].name)
			b = append(b, `,"description":`...)
			b = appendQuoted(b, "Specializes in "+specialties[s].focus+".")
			b = append(b, `,"hierarchy":`...)
			b = appendQuoted(b, hier[i])
			b = append(b, '}')
		}
		return append(b, "]}"...)
	}
	b = append(append(b, "REASONING: "...), mdRecruitSentence...)
	b = append(b, "\nEXPERTS:"...)
	for i, s := range roles {
		b = append(b, '\n')
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ". "...)
		b = append(b, specialties[s].name...)
		b = append(b, " - Specializes in "...)
		b = append(b, specialties[s].focus...)
		b = append(b, ". - Hierarchy: "...)
		b = append(b, hier[i]...)
	}
	return b
}

// mdTeams organises the teams: 3 teams of 3 distinct specialties.
func (c *call) mdTeams(b []byte, asJSON bool) []byte {
	roles := c.mdSpecialties(mdTeams * mdMembers)
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = appendQuoted(b, mdRecruitSentence)
		b = append(b, `,"teams":[`...)
		for t := 0; t < mdTeams; t++ {
			if t > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendQuoted(b, mdTeamNames[t])
			b = append(b, `,"members":[`...)
			for m := 0; m < mdMembers; m++ {
				s := &specialties[roles[t*mdMembers+m]]
				if m > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"role":`...)
				b = appendQuoted(b, s.name)
				b = append(b, `,"lead":`...)
				b = strconv.AppendBool(b, m == 0)
				b = append(b, `,"expertise":`...)
				b = appendQuoted(b, "Reviews "+s.focus+".")
				b = append(b, '}')
			}
			b = append(b, "]}"...)
		}
		return append(b, "]}"...)
	}
	b = append(append(b, "REASONING: "...), mdRecruitSentence...)
	for t := 0; t < mdTeams; t++ {
		b = append(b, "\n\nGroup "...)
		b = strconv.AppendInt(b, int64(t+1), 10)
		b = append(b, " - "...)
		b = append(b, mdTeamNames[t]...)
		for m := 0; m < mdMembers; m++ {
			s := &specialties[roles[t*mdMembers+m]]
			b = append(b, "\nMember "...)
			b = strconv.AppendInt(b, int64(m+1), 10)
			b = append(b, ": "...)
			b = append(b, s.name...)
			if m == 0 {
				b = append(b, " (Lead)"...)
			}
			b = append(b, " - Reviews "...)
			b = append(b, s.focus...)
			b = append(b, '.')
		}
	}
	return b
}

// mdOwn is the expert's own first choice ("POSITION you"), or an
// independent one when the prompt shows none.
func (c *call) mdOwn() ranking {
	own, _ := c.ownPosition(c.skill())
	return own
}

// mdOwnFirst is mdOwn's first choice.
func (c *call) mdOwnFirst() int8 {
	own := c.mdOwn()
	return own.first()
}

// mdParticipate decides whether the expert wants to talk.
func (c *call) mdParticipate(b []byte, asJSON bool) []byte {
	own := c.mdOwnFirst()
	share := 0.0
	if n := c.pr.npeer; n > 0 {
		d := 0
		for k := 0; k < n; k++ {
			if c.pr.peers[k].rank.first() != own {
				d++
			}
		}
		share = float64(d) / float64(n)
	}
	t := max(c.req.Meta.Turn, 1)
	p := (mdTalkBase + mdTalkDisagree*share) * math.Pow(mdTalkDecay, float64(t-1))
	r := c.rng(tagMDTalk)
	talk := r.float() < p
	s := mdTalkSentences[0]
	if share > 0 {
		s = mdTalkSentences[1]
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = appendQuoted(b, s)
		b = append(b, `,"talk":`...)
		b = strconv.AppendBool(b, talk)
		return append(b, '}')
	}
	b = append(append(b, "REASONING: "...), s...)
	return append(append(b, "\nTALK: "...), yesNo(talk)...)
}

// mdChoose chooses the experts to talk to.
func (c *call) mdChoose(b []byte, asJSON bool) []byte {
	own := c.mdOwnFirst()
	self := c.req.Meta.Agent + 1
	var cand []int
	for k := 0; k < c.pr.npeer; k++ {
		if p := &c.pr.peers[k]; p.rank.first() != own && p.num != self {
			cand = append(cand, p.num)
		}
	}
	if len(cand) == 0 {
		for n := 1; n <= c.mdListed(); n++ {
			if n != self {
				cand = append(cand, n)
			}
		}
	}
	r := c.rng(tagMDChoose)
	for i := len(cand) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		cand[i], cand[j] = cand[j], cand[i]
	}
	k := 1
	if r.float() < 0.3 {
		k = 2
	}
	cand = cand[:min(k, len(cand))]
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = appendQuoted(b, mdChooseSentence)
		b = append(b, `,"experts":[`...)
		for i, n := range cand {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		return append(b, "]}"...)
	}
	b = append(append(b, "REASONING: "...), mdChooseSentence...)
	b = append(b, "\nEXPERTS: "...)
	for i, n := range cand {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return b
}

// mdListed is the number of experts the last message lists ("Agent N:"
// lines), at most maxPeers.
func (c *call) mdListed() int {
	msgs := c.req.Messages
	if len(msgs) == 0 {
		return 0
	}
	n := 0
	for _, line := range strings.Split(msgs[len(msgs)-1].Content, "\n") {
		if rest, ok := cutPrefix(trimSpace(line), "Agent "); ok {
			if k, _, ok := agentNumber(rest); ok {
				n = max(n, k)
			}
		}
	}
	return n
}

// mdIndependent is an independent answer at the addressed member's skill
// plus bonus (as independent).
func (c *call) mdIndependent(a *answer, bonus float64) {
	skill := c.skill() + bonus
	a.rank = c.drawRanking(skill)
	cr := c.rng(tagConf)
	a.conf = c.confidence(a.rank.first() == c.it.gold, &cr)
	tr := c.rng(tagText)
	c.rankSentence(a, &tr)
	a.setCue(c.latentQuality(skill, a.rank.first(), c.reasoningNoise()), &tr)
}

// mdMessage argues the expert's own position.
func (c *call) mdMessage(a *answer) {
	skill := c.skill()
	a.rank = c.mdOwn()
	a.rank.complete(c.n)
	tr := c.rng(tagText)
	c.rankSentence(a, &tr)
	a.setCue(c.latentQuality(skill, a.rank.first(), c.reasoningNoise()), &tr)
}

// mdModerator takes the plurality of the positions shown.
func (c *call) mdModerator(a *answer) {
	if c.pr.npeer == 0 {
		c.mdIndependent(a, 0)
		a.letter = a.rank.first()
		c.verdictSentence(a, &mdVerdictSentences)
		return
	}
	var cnt [maxLetters]float64
	for k := 0; k < c.pr.npeer; k++ {
		cnt[c.pr.peers[k].rank.first()]++
	}
	r := c.rng(tagMDTie)
	a.letter = c.argmax(&cnt, &r)
	c.verdictSentence(a, &mdVerdictSentences)
}

// mdInvestigationQuality is the mean quality the lead reads in the
// investigations shown (each line that carries a cue; none: 0.5).
func (c *call) mdInvestigationQuality() float64 {
	msgs := c.req.Messages
	if len(msgs) == 0 {
		return uninformedQuality
	}
	sum, n := 0.0, 0
	for _, line := range strings.Split(msgs[len(msgs)-1].Content, "\n") {
		if t := decodeTier(line); t >= 0 {
			sum += tierMid(t)
			n++
		}
	}
	if n == 0 {
		return uninformedQuality
	}
	return sum / float64(n)
}

// mdInvestigation writes the investigation: the answer's sentence as both
// the reasoning and the investigation.
func (c *call) mdInvestigation(b []byte, a *answer, asJSON bool) []byte {
	a.letter = a.rank.first()
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"investigation":`...)
		b = c.appendSentence(b, a, true)
		return append(b, '}')
	}
	b = append(b, "REASONING: "...)
	b = c.appendSentence(b, a, false)
	b = append(b, "\nINVESTIGATION: "...)
	return c.appendSentence(b, a, false)
}

// mdAnswer writes an answer: {"reasoning", "answer"} or the REASONING and
// ANSWER lines, and on a triage item the diagnosis the agent states (as
// appendDiagnosis).
func (c *call) mdAnswer(b []byte, a *answer, asJSON bool) []byte {
	if a.sent == nil {
		a.l1, a.l2 = a.letter, a.letter
		a.sent = &[3]string{"", " is the answer; ", " fits the findings best."}
	}
	dx := ""
	if c.it.diagnosis != "" {
		dx = WrongDiagnosis
		if a.letter == c.it.gold {
			dx = c.it.diagnosis
		}
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"answer":`...)
		b = appendQuoted(b, c.it.letters[a.letter])
		if dx != "" {
			b = append(b, `,"diagnosis":`...)
			b = appendQuoted(b, dx)
		}
		return append(b, '}')
	}
	b = append(b, "REASONING: "...)
	b = c.appendSentence(b, a, false)
	b = append(b, "\nANSWER: "...)
	b = append(b, c.it.letters[a.letter]...)
	if dx != "" {
		b = append(append(b, "\nDIAGNOSIS: "...), dx...)
	}
	return b
}

// mdDecide is the decision maker of the advanced path: the gold when it
// knows it (its own skill), else the option with the greatest Σ perceived
// quality × stated confidence of its backers (0.5 for a backer without one;
// ties: a seeded draw; the distractor when nobody answered).
func (c *call) mdDecide(a *answer) {
	c.sortPeers()
	r := c.rng(tagLeader)
	if r.float() < c.know(c.skill()) {
		a.letter = c.it.gold
	} else {
		var w [maxLetters]float64
		seen := false
		for k := 0; k < c.pr.npeer; k++ {
			p := &c.pr.peers[k]
			conf := p.conf
			if conf < 0 {
				conf = 0.5
			}
			w[p.rank.first()] += max(0, c.seen(p.num, &r)) * conf
			seen = true
		}
		if seen {
			a.letter = c.argmax(&w, &r)
		} else {
			a.letter = c.it.distractor
		}
	}
	c.verdictSentence(a, &mdVerdictSentences)
}

// Two-letter sentences of MDAgents' moderator and decision maker: %1 the
// choice, %2 the alternative (no single-letter word but the letters, no
// semicolon, no quote, no quality cue).
var mdVerdictSentences = [...][3]string{
	{"Weighing the experts, ", " is better supported than ", "."},
	{"The panel's strongest reasoning favours ", " over ", "."},
}
