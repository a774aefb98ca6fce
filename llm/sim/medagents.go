package sim

import (
	"strconv"
	"strings"
)

// The call kinds of MedAgents (protocols/medagents; its section of
// protocols/FORMATS.md). As everywhere, the gold enters only through an
// expert's own knowledge (the correctness draw, know) and the quality of
// its reasoning; what a call is maShown moves it only through the mechanisms
// below. The simulator reads these prompts through their own lines (the
// reference code's wording), listed in medagentsLines.
const (
	kindMAQuestionDomains  = "question_domains"
	kindMAOptionDomains    = "option_domains"
	kindMAQuestionAnalysis = "question_analysis"
	kindMAOptionAnalysis   = "option_analysis"
	kindMAReport           = "synthesis_report"
	kindMAVote             = "consensus_vote"
	kindMAAdvice           = "revision_advice"
	kindMARevision         = "report_revision"
	kindMAFinal            = "final_option"
)

// medagentsKindCode codes the kinds of MedAgents (40 on).
func medagentsKindCode(k string) (uint64, bool) {
	switch k {
	case kindMAQuestionDomains:
		return 40, true
	case kindMAOptionDomains:
		return 41, true
	case kindMAQuestionAnalysis:
		return 42, true
	case kindMAOptionAnalysis:
		return 43, true
	case kindMAReport:
		return 44, true
	case kindMAVote:
		return 45, true
	case kindMAAdvice:
		return 46, true
	case kindMARevision:
		return 47, true
	case kindMAFinal:
		return 48, true
	}
	return 0, false
}

// maMax bounds the analyses and advice a prompt shows that are read.
const maMax = 24

// maShown is one expert text a MedAgents prompt shows: its tier (-1: no cue)
// and the letter it leans to (-1: none).
type maShown struct {
	tier, lean int8
}

// maPrompt is what the simulator reads from a MedAgents prompt.
type maPrompt struct {
	fields     int    // NUMBER OF FIELDS
	domain     string // the expert's domain, from the system prompt
	qa         [maMax]maShown
	nqa        int // question analyses maShown
	oa         [maMax]maShown
	noa        int // option analyses maShown
	adv        [maMax]maShown
	nadv       int // advice maShown
	report     maShown
	hasReport  bool
	reportText string // the report's Total Analysis line, which a view is keyed by
}

// The lines read (after leading white space), in the reference's wording:
//
//	NUMBER OF FIELDS: n                                      (domain calls)
//	The evaluation from the X expert suggests: <analysis>    (option analysis: a question analysis)
//	Question: … / Options: … then Analysis: <analysis>       (synthesis: a question / option report)
//	Insight from an expert in X suggests, <analysis>         (anal_only decision: a question analysis)
//	Assessment from an expert in X suggests, <analysis>      (anal_only decision: an option analysis)
//	Total Analysis: <report>                                 (votes, advice, revision, decision)
//	Here is advice from a medical expert specialized in X: <advice>   (revision)
//
// and, in the system prompt, the domain: "in the domain of X." or
// "specialized in the X domain.".
func (c *call) scanMedagents(p *maPrompt) {
	section := byte(0) // 'q' or 'o': the report the synthesis prompt shows
	for mi := range c.req.Messages {
		m := &c.req.Messages[mi]
		if m.Role == "assistant" {
			continue
		}
		if mi == 0 && p.domain == "" {
			p.domain = domainIn(m.Content)
		}
		for _, line := range strings.Split(m.Content, "\n") {
			c.scanMedagentsLine(p, trimSpace(line), &section)
		}
	}
}

// scanMedagentsLine reads one trimmed line of a MedAgents prompt into p;
// section is the report the synthesis prompt is showing ('q' or 'o'), set
// by its "Question:" and "Options:" lines.
func (c *call) scanMedagentsLine(p *maPrompt, line string, section *byte) {
	switch {
	case strings.HasPrefix(line, "NUMBER OF FIELDS:"):
		if n, err := strconv.Atoi(trimSpace(line[len("NUMBER OF FIELDS:"):])); err == nil {
			p.fields = n
		}
	case strings.HasPrefix(line, "The evaluation from the "):
		c.addShown(&p.qa, &p.nqa, after(line, "suggests:"))
	case strings.HasPrefix(line, "Insight from an expert in "):
		c.addShown(&p.qa, &p.nqa, after(line, "suggests,"))
	case strings.HasPrefix(line, "Assessment from an expert in "):
		c.addShown(&p.oa, &p.noa, after(line, "suggests,"))
	case strings.HasPrefix(line, "Question:"):
		*section = 'q'
	case strings.HasPrefix(line, "Options:"):
		*section = 'o'
	case strings.HasPrefix(line, "Analysis:"):
		c.addAnalysis(p, *section, line[len("Analysis:"):])
	case strings.HasPrefix(line, "Total Analysis:"):
		// (not the format line "Total Analysis: [revised analysis]")
		if text := line[len("Total Analysis:"):]; !strings.HasPrefix(trimSpace(text), "[") {
			p.report, p.hasReport, p.reportText = c.read(text), true, text
		}
	case strings.HasPrefix(line, "Here is advice from a medical expert specialized in "):
		c.addShown(&p.adv, &p.nadv, after(line[len("Here is advice from a medical expert specialized in "):], ":"))
	}
}

// addAnalysis adds an analysis the synthesis prompt shows under section
// ('q': the question analyses, 'o': the option analyses; none before
// either heading).
func (c *call) addAnalysis(p *maPrompt, section byte, text string) {
	switch section {
	case 'q':
		c.addShown(&p.qa, &p.nqa, text)
	case 'o':
		c.addShown(&p.oa, &p.noa, text)
	}
}

// domainIn reads the expert's domain from a system prompt.
func domainIn(s string) string {
	if i := strings.Index(s, "in the domain of "); i >= 0 {
		d := s[i+len("in the domain of "):]
		if j := strings.IndexByte(d, '\n'); j >= 0 {
			d = d[:j]
		}
		return strings.TrimSuffix(trimSpace(d), ".")
	}
	if i := strings.Index(s, "specialized in the "); i >= 0 {
		d := s[i+len("specialized in the "):]
		if j := strings.Index(d, " domain"); j >= 0 {
			return trimSpace(d[:j])
		}
	}
	return ""
}

// after is the text after the first sep in s ("" when there is none).
func after(s, sep string) string {
	if i := strings.Index(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return ""
}

func (c *call) addShown(list *[maMax]maShown, n *int, text string) {
	if *n < maMax {
		list[*n] = c.read(text)
		*n++
	}
}

// read is the tier and the lean of an expert text the simulator wrote.
func (c *call) read(text string) maShown {
	return maShown{tier: decodeTier(text), lean: c.decodeLean(text)}
}

// The sentences of the MedAgents kinds (three pieces around two letters,
// the first the lean). Like every sentence of the simulator they hold no
// single-letter word but the letters, no semicolon, no quote and no cue.
var (
	maQuestionSentences = [...]string{
		"The presentation is read against the history, the examination and the course of the illness.",
		"The most alarming aspect is how the findings combine, which narrows the likely condition.",
	}
	maOptionSentences = [...][3]string{
		{"Weighing each option in turn, ", " is the most plausible and ", " could be misleading."},
		{"After scrutinising every option, ", " holds up best while ", " only seems right at first glance."},
	}
	maReportSentences = [...][3]string{
		{"Taken together the experts' analyses favour ", " over ", "."},
		{"The synthesis of the reports supports ", " rather than ", "."},
	}
	maRevisionSentences = [...][3]string{
		{"Revised in light of the advice, the analysis favours ", " over ", "."},
	}
	maAdviceSentences = [...][3]string{
		{"The report should favour ", " rather than ", "."},
		{"Revise the analysis toward ", " and away from ", "."},
	}
	// maAgreeSentences: advice from an expert whose own view is the report's.
	maAgreeSentences = [...][3]string{
		{"The conclusion for ", " stands, but ", " deserves a clearer rebuttal."},
	}
)

// decodeLean reads the lean (the first letter) of a sentence above from
// text; -1 when text holds none.
func (c *call) decodeLean(text string) int8 {
	for _, set := range [...][][3]string{maOptionSentences[:], maReportSentences[:], maRevisionSentences[:], maAdviceSentences[:], maAgreeSentences[:]} {
		for _, s := range set {
			i := strings.Index(text, s[0])
			if i < 0 {
				continue
			}
			rest := text[i+len(s[0]):]
			j := strings.Index(rest, s[1])
			if j <= 0 {
				continue
			}
			if l := c.it.letterIndex(rest[:j]); l >= 0 {
				return int8(l)
			}
		}
	}
	return -1
}

// medagents answers a MedAgents call; ok is false for any other kind.
func (c *call) medagents() (string, bool) {
	kind := c.req.Meta.Kind
	if _, ok := medagentsKindCode(kind); !ok {
		return "", false
	}
	var p maPrompt
	c.scanMedagents(&p)
	c.pr.leader = -1
	if p.domain != "" {
		c.pr.role, c.pr.hasRole = p.domain, true
	}
	var b []byte
	letter := int8(-1)
	asJSON := c.req.Schema != nil
	switch kind {
	case kindMAQuestionDomains, kindMAOptionDomains:
		b = c.maDomains(&p, asJSON)
	case kindMAQuestionAnalysis:
		b = c.maField(asJSON, "analysis", "", c.maQuestionAnalysis())
	case kindMAOptionAnalysis:
		b = c.maField(asJSON, "analysis", "", c.maOptionAnalysis(&p))
	case kindMAReport:
		b = c.maReport(&p, asJSON)
	case kindMAVote:
		yes, _, _ := c.maVote(&p)
		v := "NO"
		if yes {
			v = "YES"
		}
		b = c.maField(asJSON, "vote", "", v)
	case kindMAAdvice:
		b = c.maField(asJSON, "revisions", "Revisions: ", c.maAdvice(&p))
	case kindMARevision:
		b = c.maField(asJSON, "total_analysis", "Total Analysis: ", c.maRevision(&p))
	case kindMAFinal:
		letter = c.maFinal(&p)
		b = c.maField(asJSON, "answer", "Option: ", c.it.letters[letter])
	}
	return c.maFormat(b, letter, asJSON), true
}

// maField writes one field: {"key": "value"}, or prefix + value.
func (c *call) maField(asJSON bool, key, prefix, value string) []byte {
	if !asJSON {
		return append([]byte(prefix), value...)
	}
	b := append([]byte(`{"`), key...)
	b = append(b, `":`...)
	b = appendQuoted(b, value)
	return append(b, '}')
}

// maFormat applies the malformed and fence draws, as format does.
func (c *call) maFormat(b []byte, letter int8, asJSON bool) string {
	if c.p.MalformedRate > 0 {
		if r := c.rng(tagMalformed); r.float() < c.p.MalformedRate {
			a := answer{kind: c.req.Meta.Kind, letter: letter}
			return c.malformed(b, &a, &r)
		}
	}
	if asJSON && c.p.FenceRate > 0 {
		if r := c.rng(tagFence); r.float() < c.p.FenceRate {
			return fencePrefaces[r.intn(len(fencePrefaces))] + "```json\n" + string(b) + "\n```"
		}
	}
	return string(b)
}

// maDomains names the fields asked for (NUMBER OF FIELDS, else 5 for the
// question and 2 for the options): the question's most relevant
// specialties for the question domains; for the option domains, a
// per-question shuffle of the recruitPool most relevant (as an unranked
// recruitment), so an option expert may be less relevant.
func (c *call) maDomains(p *maPrompt, asJSON bool) []byte {
	n := p.fields
	if n <= 0 {
		n = 5
		if c.req.Meta.Kind == kindMAOptionDomains {
			n = 2
		}
	}
	n = min(n, nSpecialties)
	var list [nSpecialties]uint8
	copy(list[:], c.it.relevance[:])
	if c.req.Meta.Kind == kindMAOptionDomains {
		pool := max(recruitPool, n)
		r := newStream(c.it.qhash, tagRoleOrder)
		for i := pool - 1; i > 0; i-- {
			j := r.intn(i + 1)
			list[i], list[j] = list[j], list[i]
		}
	}
	var b []byte
	if asJSON {
		b = append(b, `{"fields":[`...)
	} else {
		b = append(b, "Medical Field: "...)
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			if asJSON {
				b = append(b, ',')
			} else {
				b = append(b, " | "...)
			}
		}
		if asJSON {
			b = appendQuoted(b, specialties[list[i]].name)
		} else {
			b = append(b, specialties[list[i]].name...)
		}
	}
	if asJSON {
		b = append(b, "]}"...)
	}
	return b
}

// maQuestionAnalysis: the expert (its domain's SpecialistBonus) forms its
// own view of the case — an independent first choice — and writes an
// analysis that names no option (it is maShown none) but carries the quality
// of its reasoning for that view.
func (c *call) maQuestionAnalysis() string {
	skill := c.skill()
	rk := c.drawRanking(skill)
	q := c.latentQuality(skill, rk.first(), c.reasoningNoise())
	tr := c.rng(tagText)
	var a answer
	a.setCue(q, &tr)
	return maQuestionSentences[tr.intn(len(maQuestionSentences))] + " " + a.cue
}

// analysesBonus is AnalysisBonus·2·q̄, q̄ the mean perceived quality of the
// question analyses maShown (0 when none): good analyses help, poor ones
// help less than none would with teamwork's analysis.
func (c *call) analysesBonus(p *maPrompt, r *stream) float64 {
	if p.nqa == 0 {
		return 0
	}
	sum := 0.0
	for k := 0; k < p.nqa; k++ {
		sum += clamp(c.perceive(p.qa[k].tier, r), 0, 1)
	}
	return c.p.AnalysisBonus * 2 * sum / float64(p.nqa)
}

// maOptionAnalysis: an independent ranking with the expert's skill plus the
// question analyses' bonus; the analysis names its first choice as the most
// plausible, its second as possibly misleading, and carries its quality.
func (c *call) maOptionAnalysis(p *maPrompt) string {
	qr := c.rng(tagQuality)
	skill := c.skill() + c.analysesBonus(p, &qr)
	rk := c.drawRanking(skill)
	q := c.latentQuality(skill, rk.first(), c.reasoningNoise())
	tr := c.rng(tagText)
	return c.maSentence(&maOptionSentences[tr.intn(len(maOptionSentences))], rk.idx[0], rk.idx[1], q, &tr)
}

// maSentence writes s around l1 and l2, then the cue of quality q.
func (c *call) maSentence(s *[3]string, l1, l2 int8, q float64, r *stream) string {
	var a answer
	a.setCue(q, r)
	return s[0] + c.it.letters[l1] + s[1] + c.it.letters[l2] + s[2] + " " + a.cue
}

// weighedLean is the lean with the greatest Σ perceived quality of the
// texts backing it (ties: a seeded draw), and the best perceived quality
// among its backers; -1 when no text leans.
func (c *call) weighedLean(list *[maMax]maShown, n int, r *stream) (int8, float64) {
	var w, best [maxLetters]float64
	seen := false
	for k := 0; k < n; k++ {
		if l := list[k].lean; l >= 0 && int(l) < c.n {
			v := clamp(c.perceive(list[k].tier, r), 0, 1)
			w[l] += v
			best[l] = max(best[l], v)
			seen = true
		}
	}
	if !seen {
		return -1, 0
	}
	l := c.argmax(&w, r)
	return l, best[l]
}

// other is an option other than l: the first lean of list that differs,
// else the next option.
func (c *call) other(l int8, list *[maMax]maShown, n int) int8 {
	for k := 0; k < n; k++ {
		if x := list[k].lean; x >= 0 && x != l && int(x) < c.n {
			return x
		}
	}
	return int8((int(l) + 1) % c.n)
}

// maReport: the synthesiser (the leader's skill plus the question analyses'
// bonus) leans to the gold when it knows it (probability know), else to the
// option the option analyses back with the most perceived quality (an
// independent view when none leans); the report carries its quality for
// that lean. Its key knowledge is 2–3 facts, each supportive with
// probability ½ + ½·know.
func (c *call) maReport(p *maPrompt, asJSON bool) []byte {
	lr := c.rng(tagLeader)
	skill := c.skill() + c.analysesBonus(p, &lr)
	know := c.know(skill)
	lean := c.it.gold
	if lr.float() >= know {
		if lean, _ = c.weighedLean(&p.oa, p.noa, &lr); lean < 0 {
			lean = c.firstChoice(skill)
		}
	}
	q := c.latentQuality(skill, lean, c.reasoningNoise())
	tr := c.rng(tagText)
	total := c.maSentence(&maReportSentences[tr.intn(len(maReportSentences))], lean, c.other(lean, &p.oa, p.noa), q, &tr)
	var a answer
	fr := c.rng(tagFacts)
	c.drawFacts(&a, 2+fr.intn(2), 0.5+0.5*know, &fr)
	var kk []byte
	for k := 0; k < a.nfacts; k++ {
		if k > 0 {
			kk = append(kk, ' ')
		}
		kk = append(kk, factBank[a.facts[k]]...)
		kk = append(kk, '.')
	}
	if !asJSON {
		b := append([]byte("Key Knowledge: "), kk...)
		b = append(b, "\nTotal Analysis: "...)
		return append(b, total...)
	}
	b := append([]byte(`{"key_knowledge":`), appendQuoted(nil, string(kk))...)
	b = append(b, `,"total_analysis":`...)
	b = appendQuoted(b, total)
	return append(b, '}')
}

// maView is a consulted expert's view of the report: its own first
// choice, the quality of its reasoning for it and whether the report
// persuades it. The view is drawn from (question, expert, round, the
// report's text) — not from the call's seed — so the expert's vote and its
// advice on the same report agree.
type maView struct {
	own      int8
	q0       float64
	persuade bool
}

func (c *call) maConsultView(p *maPrompt) maView {
	saved := c.key
	defer func() { c.key = saved }()
	c.key = mix64(c.it.qhash ^ mix64(uint64(int64(c.req.Meta.Agent))+0x51) ^ mix64(uint64(int64(c.req.Meta.Turn))*golden) ^ fnv64(p.reportText))
	skill := c.skill()
	rk := c.drawRanking(skill)
	v := maView{own: rk.first()}
	v.q0 = c.latentQuality(skill, v.own, c.reasoningNoise())
	r := c.rng(tagSwitch)
	// Persuaded with probability Persuadability × the report's perceived
	// quality × the susceptibility of the expert's own reasoning.
	prob := c.p.Persuadability * clamp(c.perceive(p.report.tier, &r), 0, 1) * c.susceptibility(v.q0)
	v.persuade = r.float() < prob
	return v
}

// maVote: yes when the expert's own view is the report's lean, or when the
// report persuades it (maConsultView), or when the report leans nowhere it
// can read; no otherwise.
func (c *call) maVote(p *maPrompt) (bool, maView, int8) {
	v := c.maConsultView(p)
	lean := p.report.lean
	if !p.hasReport || lean < 0 {
		return true, v, lean
	}
	return v.own == lean || v.persuade, v, lean
}

// maAdvice: the expert asks the report to favour its own view over the
// report's lean (carrying its reasoning's quality); an expert that agrees
// asks for a clearer rebuttal of the alternative.
func (c *call) maAdvice(p *maPrompt) string {
	_, v, lean := c.maVote(p)
	tr := c.rng(tagText)
	if lean < 0 {
		lean = c.other(v.own, &p.oa, 0)
	}
	if v.own == lean {
		return c.maSentence(&maAgreeSentences[0], lean, int8((int(lean)+1)%c.n), v.q0, &tr)
	}
	return c.maSentence(&maAdviceSentences[tr.intn(len(maAdviceSentences))], v.own, lean, v.q0, &tr)
}

// maRevision: M is the option most advice backs against the report's lean
// (ties by the advice's perceived quality, then seeded); the reviser moves
// the analysis to M with probability Persuadability × share × s(q_r), q_r
// the report's perceived quality and share the perceived quality of the
// advice backing M over that of all advice plus the report's own (the
// report is one voice); then to the gold with probability Insight·2·know
// (its own insight). The revised analysis carries its quality for the new
// lean.
func (c *call) maRevision(p *maPrompt) string {
	skill := c.skill()
	r := c.rng(tagSwitch)
	lean := p.report.lean
	qr := clamp(c.perceive(p.report.tier, &r), 0, 1)
	cnt, w, total := c.maAdviceTally(p, lean, qr, &r)
	m := c.maMostAdvised(&cnt, &w, &r)
	next := lean
	switch {
	case lean < 0 && m >= 0:
		next = m
	case lean < 0:
		next = c.firstChoice(skill)
	case m >= 0 && total > 0 && r.float() < c.p.Persuadability*(w[m]/total)*c.susceptibility(qr):
		next = m
	}
	if u := r.float(); next != c.it.gold && u < c.p.Insight*2*c.know(skill) {
		next = c.it.gold
	}
	l2 := lean
	if l2 < 0 || l2 == next {
		l2 = m
	}
	if l2 < 0 || l2 == next {
		l2 = int8((int(next) + 1) % c.n)
	}
	q := c.latentQuality(skill, next, c.reasoningNoise())
	tr := c.rng(tagText)
	return c.maSentence(&maRevisionSentences[0], next, l2, q, &tr)
}

// maAdviceTally perceives the quality of each piece of advice that leans
// to a letter (in the order shown, drawing from r): cnt and w are, per
// letter other than the report's lean, the advice backing it and its
// perceived quality; total is the perceived quality of all that advice
// plus qr, the report's own.
func (c *call) maAdviceTally(p *maPrompt, lean int8, qr float64, r *stream) (cnt, w [maxLetters]float64, total float64) {
	total = qr
	for k := 0; k < p.nadv; k++ {
		l := p.adv[k].lean
		if l < 0 || int(l) >= c.n {
			continue
		}
		v := clamp(c.perceive(p.adv[k].tier, r), 0, 1)
		total += v
		if l != lean {
			cnt[l]++
			w[l] += v
		}
	}
	return cnt, w, total
}

// maMostAdvised is the letter the most advice backs (ties by the advice's
// perceived quality w, then seeded from r); -1 when no advice backs any.
func (c *call) maMostAdvised(cnt, w *[maxLetters]float64, r *stream) int8 {
	bestCnt := 0.0
	for i := 0; i < c.n; i++ {
		bestCnt = max(bestCnt, cnt[i])
	}
	if bestCnt == 0 {
		return -1
	}
	var tied [maxLetters]float64
	for i := 0; i < c.n; i++ {
		if cnt[i] == bestCnt {
			tied[i] = w[i] + 1e-9
		}
	}
	return c.argmax(&tied, r)
}

// maFinal: the decision follows the lean it is maShown — the report's, or,
// from the analyses alone (anal_only), the option the option analyses back
// with the most perceived quality — with probability the perceived quality
// of that text (a strong report is followed, a weak one less); otherwise,
// or when nothing leans, it is the decider's own independent first choice
// (its skill plus the question analyses' bonus).
func (c *call) maFinal(p *maPrompt) int8 {
	r := c.rng(tagLeader)
	lean, follow := int8(-1), 0.0
	switch {
	case p.hasReport:
		lean, follow = p.report.lean, clamp(c.perceive(p.report.tier, &r), 0, 1)
	default:
		lean, follow = c.weighedLean(&p.oa, p.noa, &r)
	}
	if lean >= 0 && int(lean) < c.n && r.float() < follow {
		return lean
	}
	return c.firstChoice(c.skill() + c.analysesBonus(p, &r))
}

// firstChoice is an independent first choice (drawRanking's).
func (c *call) firstChoice(skill float64) int8 {
	rk := c.drawRanking(skill)
	return rk.first()
}
