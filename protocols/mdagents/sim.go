package mdagents

import (
	"math"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm/sim"
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
//     investigation's text (its sim.Ranking sentence and quality cue).
//   - md_team_report: an independent answer of the lead whose skill rises
//     by mdTeamBonus × the mean quality it reads in the investigations
//     shown (their cues; 0.5 each without one).
//   - md_decision: the judge's rule over the team reports shown (POSITION
//     and REASONING lines): the gold when it knows it, else the perceived
//     best supported option.

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

// Sim is MDAgents' simulated behaviour (llm/sim's Behaviour): its kinds,
// answered as described above. The codes (101 on) seed every draw of a
// call: they never change.
var Sim = sim.Behaviour{
	Protocol: "mdagents",
	Kinds: map[string]uint64{
		KindRoute:       101,
		KindReason:      102,
		KindBasic:       103,
		KindRecruit:     104,
		KindOpinion:     105,
		KindParticipate: 106,
		KindChoose:      107,
		KindMessage:     108,
		KindFinal:       109,
		KindModerator:   110,
		KindTeams:       111,
		KindDelivery:    112,
		KindInvestigate: 113,
		KindReport:      114,
		KindDecision:    115,
	},
	Answer: simAnswer,
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

// simAnswer answers a call of MDAgents.
func simAnswer(c *sim.Call) string {
	kind := c.Request().Meta.Kind
	self, judge := 0, false
	if kind == KindModerator || kind == KindDecision {
		judge = true
	} else if c.Request().Meta.Agent >= 0 {
		self = c.Request().Meta.Agent + 1
	}
	c.ReadPrompt(self, judge)
	a := c.NewAnswer()
	asJSON := c.Request().Schema != nil
	b := make([]byte, 0, 1024)
	switch kind {
	case KindRoute:
		b = mdRoute(c, b, asJSON)
	case KindReason:
		b = mdText(b, asJSON, "", "", mdReasonSentence)
	case KindDelivery:
		b = mdText(b, asJSON, "investigations", "INVESTIGATIONS", mdDeliverySentence)
	case KindRecruit:
		b = mdRecruit(c, b, asJSON)
	case KindTeams:
		b = mdRecruitTeams(c, b, asJSON)
	case KindParticipate:
		b = mdParticipate(c, b, asJSON)
	case KindChoose:
		b = mdChoose(c, b, asJSON)
	case KindInvestigate:
		mdIndependent(c, &a, 0)
		b = mdInvestigation(c, b, &a, asJSON)
	default: // the answers
		mdAnswerKind(c, &a)
		b = mdAnswer(c, b, &a, asJSON)
	}
	return c.Finish(b, a.Letter(), asJSON)
}

// mdAnswerKind computes the answer of the mdagents kinds that answer the
// question; the letter defaults to the top of the sim.Ranking.
func mdAnswerKind(c *sim.Call, a *sim.Answer) {
	switch c.Request().Meta.Kind {
	case KindBasic, KindOpinion:
		mdIndependent(c, a, 0)
	case KindReport:
		mdIndependent(c, a, mdTeamBonus*mdInvestigationQuality(c))
	case KindMessage:
		mdMessage(c, a)
	case KindFinal:
		c.Reconsider(a)
	case KindModerator:
		mdModerator(c, a)
	case KindDecision:
		mdDecide(c, a)
	}
	if a.Letter() < 0 {
		a.SetLetter(a.Ranking().First())
	}
}

// mdText writes a reply of one sentence: {"reasoning": s} (and field
// key: s) or the REASONING line (and the label line).
func mdText(b []byte, asJSON bool, key, label, s string) []byte {
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = sim.AppendQuoted(b, s)
		if key != "" {
			b = append(b, `,"`...)
			b = append(b, key...)
			b = append(b, `":`...)
			b = sim.AppendQuoted(b, s)
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
func mdRoute(c *sim.Call, b []byte, asJSON bool) []byte {
	r := c.Rng(tagMDRoute)
	x := c.Difficulty() + mdRouteNoise*r.Normal()
	k := 2
	switch {
	case x < 1.0/3:
		k = 0
	case x < 2.0/3:
		k = 1
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = sim.AppendQuoted(b, mdRouteSentences[k])
		b = append(b, `,"complexity":`...)
		b = sim.AppendQuoted(b, mdRouteNames[k])
		return append(b, '}')
	}
	b = append(append(b, "REASONING: "...), mdRouteSentences[k]...)
	return append(append(b, "\nCOMPLEXITY: "...), mdRouteNames[k]...)
}

// mdSpecialties returns n specialties for the question: the most relevant
// max(sim.RecruitPool, n) in a per-question order.
func mdSpecialties(c *sim.Call, n int) []uint8 {
	pool := max(sim.RecruitPool, n)
	list := c.Relevance()
	r := sim.NewStream(c.QHash(), tagMDRoles)
	for i := pool - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		list[i], list[j] = list[j], list[i]
	}
	return list[:n:n]
}

// mdRecruit names the experts and their hierarchy.
func mdRecruit(c *sim.Call, b []byte, asJSON bool) []byte {
	roles := mdSpecialties(c, mdExperts)
	r := c.Rng(tagMDHierarchy)
	hier := make([]string, len(roles))
	for i := range roles {
		hier[i] = "Independent"
		if i > 0 && r.Float() < 0.3 {
			hier[i] = sim.SpecialtyName(roles[0]) + " > " + sim.SpecialtyName(roles[i])
		}
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = sim.AppendQuoted(b, mdRecruitSentence)
		b = append(b, `,"experts":[`...)
		for i, s := range roles {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"role":`...)
			b = sim.AppendQuoted(b, sim.SpecialtyName(s))
			b = append(b, `,"description":`...)
			b = sim.AppendQuoted(b, "Specializes in "+sim.SpecialtyFocus(s)+".")
			b = append(b, `,"hierarchy":`...)
			b = sim.AppendQuoted(b, hier[i])
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
		b = append(b, sim.SpecialtyName(s)...)
		b = append(b, " - Specializes in "...)
		b = append(b, sim.SpecialtyFocus(s)...)
		b = append(b, ". - Hierarchy: "...)
		b = append(b, hier[i]...)
	}
	return b
}

// mdRecruitTeams organises the teams: 3 teams of 3 distinct specialties.
func mdRecruitTeams(c *sim.Call, b []byte, asJSON bool) []byte {
	roles := mdSpecialties(c, mdTeams*mdMembers)
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = sim.AppendQuoted(b, mdRecruitSentence)
		b = append(b, `,"teams":[`...)
		for t := 0; t < mdTeams; t++ {
			if t > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = sim.AppendQuoted(b, mdTeamNames[t])
			b = append(b, `,"members":[`...)
			for m := 0; m < mdMembers; m++ {
				s := roles[t*mdMembers+m]
				if m > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"role":`...)
				b = sim.AppendQuoted(b, sim.SpecialtyName(s))
				b = append(b, `,"lead":`...)
				b = strconv.AppendBool(b, m == 0)
				b = append(b, `,"expertise":`...)
				b = sim.AppendQuoted(b, "Reviews "+sim.SpecialtyFocus(s)+".")
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
			s := roles[t*mdMembers+m]
			b = append(b, "\nMember "...)
			b = strconv.AppendInt(b, int64(m+1), 10)
			b = append(b, ": "...)
			b = append(b, sim.SpecialtyName(s)...)
			if m == 0 {
				b = append(b, " (Lead)"...)
			}
			b = append(b, " - Reviews "...)
			b = append(b, sim.SpecialtyFocus(s)...)
			b = append(b, '.')
		}
	}
	return b
}

// mdOwn is the expert's own first choice ("POSITION you"), or an
// independent one when the prompt shows none.
func mdOwn(c *sim.Call) sim.Ranking {
	own, _ := c.OwnPosition(c.Skill())
	return own
}

// mdOwnFirst is mdOwn's first choice.
func mdOwnFirst(c *sim.Call) int8 {
	own := mdOwn(c)
	return own.First()
}

// mdParticipate decides whether the expert wants to talk.
func mdParticipate(c *sim.Call, b []byte, asJSON bool) []byte {
	own := mdOwnFirst(c)
	share := 0.0
	if n := c.Peers(); n > 0 {
		d := 0
		for k := 0; k < n; k++ {
			if _, first, _ := c.Peer(k); first != own {
				d++
			}
		}
		share = float64(d) / float64(n)
	}
	t := max(c.Request().Meta.Turn, 1)
	p := (mdTalkBase + mdTalkDisagree*share) * math.Pow(mdTalkDecay, float64(t-1))
	r := c.Rng(tagMDTalk)
	talk := r.Float() < p
	s := mdTalkSentences[0]
	if share > 0 {
		s = mdTalkSentences[1]
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = sim.AppendQuoted(b, s)
		b = append(b, `,"talk":`...)
		b = strconv.AppendBool(b, talk)
		return append(b, '}')
	}
	b = append(append(b, "REASONING: "...), s...)
	return append(append(b, "\nTALK: "...), sim.YesNo(talk)...)
}

// mdChoose chooses the experts to talk to.
func mdChoose(c *sim.Call, b []byte, asJSON bool) []byte {
	own := mdOwnFirst(c)
	self := c.Request().Meta.Agent + 1
	var cand []int
	for k := 0; k < c.Peers(); k++ {
		if num, first, _ := c.Peer(k); first != own && num != self {
			cand = append(cand, num)
		}
	}
	if len(cand) == 0 {
		for n := 1; n <= mdListed(c); n++ {
			if n != self {
				cand = append(cand, n)
			}
		}
	}
	r := c.Rng(tagMDChoose)
	for i := len(cand) - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		cand[i], cand[j] = cand[j], cand[i]
	}
	k := 1
	if r.Float() < 0.3 {
		k = 2
	}
	cand = cand[:min(k, len(cand))]
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = sim.AppendQuoted(b, mdChooseSentence)
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
func mdListed(c *sim.Call) int {
	msgs := c.Request().Messages
	if len(msgs) == 0 {
		return 0
	}
	n := 0
	for _, line := range strings.Split(msgs[len(msgs)-1].Content, "\n") {
		if rest, ok := sim.CutPrefix(sim.TrimSpace(line), "Agent "); ok {
			if k, _, ok := sim.AgentNumber(rest); ok {
				n = max(n, k)
			}
		}
	}
	return n
}

// mdIndependent is an independent answer at the addressed member's skill
// plus bonus (as independent).
func mdIndependent(c *sim.Call, a *sim.Answer, bonus float64) {
	skill := c.Skill() + bonus
	rk := c.DrawRanking(skill)
	a.SetRanking(rk)
	cr := c.Rng(sim.TagConf)
	a.SetConfidence(c.Confidence(rk.First() == c.Gold(), &cr))
	tr := c.Rng(sim.TagText)
	c.RankSentence(a, &tr)
	a.SetCue(c.LatentQuality(skill, a.Ranking().First(), c.ReasoningNoise()), &tr)
}

// mdMessage argues the expert's own position.
func mdMessage(c *sim.Call, a *sim.Answer) {
	skill := c.Skill()
	own := mdOwn(c)
	own.Complete(c.N())
	a.SetRanking(own)
	tr := c.Rng(sim.TagText)
	c.RankSentence(a, &tr)
	a.SetCue(c.LatentQuality(skill, a.Ranking().First(), c.ReasoningNoise()), &tr)
}

// mdModerator takes the plurality of the positions shown.
func mdModerator(c *sim.Call, a *sim.Answer) {
	if c.Peers() == 0 {
		mdIndependent(c, a, 0)
		a.SetLetter(a.Ranking().First())
		c.VerdictSentence(a, &mdVerdictSentences)
		return
	}
	var cnt [sim.MaxLetters]float64
	for k := 0; k < c.Peers(); k++ {
		_, first, _ := c.Peer(k)
		cnt[first]++
	}
	r := c.Rng(tagMDTie)
	a.SetLetter(c.Argmax(&cnt, &r))
	c.VerdictSentence(a, &mdVerdictSentences)
}

// mdInvestigationQuality is the mean quality the lead reads in the
// investigations shown (each line that carries a cue; none: 0.5).
func mdInvestigationQuality(c *sim.Call) float64 {
	msgs := c.Request().Messages
	if len(msgs) == 0 {
		return sim.UninformedQuality
	}
	sum, n := 0.0, 0
	for _, line := range strings.Split(msgs[len(msgs)-1].Content, "\n") {
		if t := sim.DecodeTier(line); t >= 0 {
			sum += sim.TierMid(t)
			n++
		}
	}
	if n == 0 {
		return sim.UninformedQuality
	}
	return sum / float64(n)
}

// mdInvestigation writes the investigation: the answer's sentence as both
// the reasoning and the investigation.
func mdInvestigation(c *sim.Call, b []byte, a *sim.Answer, asJSON bool) []byte {
	a.SetLetter(a.Ranking().First())
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"investigation":`...)
		b = c.AppendSentence(b, a, true)
		return append(b, '}')
	}
	b = append(b, "REASONING: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nINVESTIGATION: "...)
	return c.AppendSentence(b, a, false)
}

// mdAnswer writes an answer: {"reasoning", "answer"} or the REASONING and
// ANSWER lines, and on a triage item the diagnosis the agent states (as
// appendDiagnosis).
func mdAnswer(c *sim.Call, b []byte, a *sim.Answer, asJSON bool) []byte {
	if !a.HasSentence() {
		a.SetSentence(&[3]string{"", " is the answer; ", " fits the findings best."}, a.Letter(), a.Letter())
	}
	dx := ""
	if c.Diagnosis() != "" {
		dx = sim.WrongDiagnosis
		if a.Letter() == c.Gold() {
			dx = c.Diagnosis()
		}
	}
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"answer":`...)
		b = sim.AppendQuoted(b, c.Letter(a.Letter()))
		if dx != "" {
			b = append(b, `,"diagnosis":`...)
			b = sim.AppendQuoted(b, dx)
		}
		return append(b, '}')
	}
	b = append(b, "REASONING: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nANSWER: "...)
	b = append(b, c.Letter(a.Letter())...)
	if dx != "" {
		b = append(append(b, "\nDIAGNOSIS: "...), dx...)
	}
	return b
}

// mdDecide is the decision maker of the advanced path: the gold when it
// knows it (its own skill), else the option with the greatest Σ perceived
// quality × stated confidence of its backers (0.5 for a backer without one;
// ties: a seeded draw; the distractor when nobody answered).
func mdDecide(c *sim.Call, a *sim.Answer) {
	c.SortPeers()
	r := c.Rng(sim.TagLeader)
	if r.Float() < c.Know(c.Skill()) {
		a.SetLetter(c.Gold())
	} else {
		var w [sim.MaxLetters]float64
		seen := false
		for k := 0; k < c.Peers(); k++ {
			num, first, conf := c.Peer(k)
			if conf < 0 {
				conf = 0.5
			}
			w[first] += max(0, c.Seen(num, &r)) * conf
			seen = true
		}
		if seen {
			a.SetLetter(c.Argmax(&w, &r))
		} else {
			a.SetLetter(c.Distractor())
		}
	}
	c.VerdictSentence(a, &mdVerdictSentences)
}

// Two-letter sentences of MDAgents' moderator and decision maker: %1 the
// choice, %2 the alternative (no single-letter word but the letters, no
// semicolon, no quote, no quality cue).
var mdVerdictSentences = [...][3]string{
	{"Weighing the experts, ", " is better supported than ", "."},
	{"The panel's strongest reasoning favours ", " over ", "."},
}
