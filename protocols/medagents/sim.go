package medagents

import (
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm/sim"
)

// Sim is MedAgents' simulated behaviour (llm/sim's Behaviour): its kinds
// and how the simulator answers them. As everywhere, the gold enters only
// through an expert's own knowledge (the correctness draw, Know) and the
// quality of its reasoning; what a call is shown moves it only through the
// mechanisms below. The simulator reads these prompts through their own
// lines (the reference code's wording), listed above scanMedagents. The
// codes (40 on) seed every draw of a call: they never change.
var Sim = sim.Behaviour{
	Protocol: "medagents",
	Kinds: map[string]uint64{
		KindQuestionDomains:  40,
		KindOptionDomains:    41,
		KindQuestionAnalysis: 42,
		KindOptionAnalysis:   43,
		KindReport:           44,
		KindVote:             45,
		KindAdvice:           46,
		KindRevision:         47,
		KindFinal:            48,
	},
	Answer: simAnswer,
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
func scanMedagents(c *sim.Call, p *maPrompt) {
	section := byte(0) // 'q' or 'o': the report the synthesis prompt shows
	for mi := range c.Request().Messages {
		m := &c.Request().Messages[mi]
		if m.Role == "assistant" {
			continue
		}
		if mi == 0 && p.domain == "" {
			p.domain = simDomainIn(m.Content)
		}
		for _, line := range strings.Split(m.Content, "\n") {
			scanMedagentsLine(c, p, sim.TrimSpace(line), &section)
		}
	}
}

// scanMedagentsLine reads one trimmed line of a MedAgents prompt into p;
// section is the report the synthesis prompt is showing ('q' or 'o'), set
// by its "Question:" and "Options:" lines.
func scanMedagentsLine(c *sim.Call, p *maPrompt, line string, section *byte) {
	switch {
	case strings.HasPrefix(line, "NUMBER OF FIELDS:"):
		if n, err := strconv.Atoi(sim.TrimSpace(line[len("NUMBER OF FIELDS:"):])); err == nil {
			p.fields = n
		}
	case strings.HasPrefix(line, "The evaluation from the "):
		addShown(c, &p.qa, &p.nqa, simAfter(line, "suggests:"))
	case strings.HasPrefix(line, "Insight from an expert in "):
		addShown(c, &p.qa, &p.nqa, simAfter(line, "suggests,"))
	case strings.HasPrefix(line, "Assessment from an expert in "):
		addShown(c, &p.oa, &p.noa, simAfter(line, "suggests,"))
	case strings.HasPrefix(line, "Question:"):
		*section = 'q'
	case strings.HasPrefix(line, "Options:"):
		*section = 'o'
	case strings.HasPrefix(line, "Analysis:"):
		addAnalysis(c, p, *section, line[len("Analysis:"):])
	case strings.HasPrefix(line, "Total Analysis:"):
		// (not the format line "Total Analysis: [revised analysis]")
		if text := line[len("Total Analysis:"):]; !strings.HasPrefix(sim.TrimSpace(text), "[") {
			p.report, p.hasReport, p.reportText = simRead(c, text), true, text
		}
	case strings.HasPrefix(line, "Here is advice from a medical expert specialized in "):
		addShown(c, &p.adv, &p.nadv, simAfter(line[len("Here is advice from a medical expert specialized in "):], ":"))
	}
}

// addAnalysis adds an analysis the synthesis prompt shows under section
// ('q': the question analyses, 'o': the option analyses; none before
// either heading).
func addAnalysis(c *sim.Call, p *maPrompt, section byte, text string) {
	switch section {
	case 'q':
		addShown(c, &p.qa, &p.nqa, text)
	case 'o':
		addShown(c, &p.oa, &p.noa, text)
	}
}

// domainIn reads the expert's domain from a system prompt.
func simDomainIn(s string) string {
	if i := strings.Index(s, "in the domain of "); i >= 0 {
		d := s[i+len("in the domain of "):]
		if j := strings.IndexByte(d, '\n'); j >= 0 {
			d = d[:j]
		}
		return strings.TrimSuffix(sim.TrimSpace(d), ".")
	}
	if i := strings.Index(s, "specialized in the "); i >= 0 {
		d := s[i+len("specialized in the "):]
		if j := strings.Index(d, " domain"); j >= 0 {
			return sim.TrimSpace(d[:j])
		}
	}
	return ""
}

// after is the text after the first sep in s ("" when there is none).
func simAfter(s, sep string) string {
	if i := strings.Index(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return ""
}

func addShown(c *sim.Call, list *[maMax]maShown, n *int, text string) {
	if *n < maMax {
		list[*n] = simRead(c, text)
		*n++
	}
}

// read is the tier and the lean of an expert text the simulator wrote.
func simRead(c *sim.Call, text string) maShown {
	return maShown{tier: sim.DecodeTier(text), lean: decodeLean(c.LetterIndex, text)}
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
func decodeLean(letterIndex func(string) int, text string) int8 {
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
			if l := letterIndex(rest[:j]); l >= 0 {
				return int8(l)
			}
		}
	}
	return -1
}

// simAnswer answers a MedAgents call.
func simAnswer(c *sim.Call) string {
	kind := c.Request().Meta.Kind
	var p maPrompt
	scanMedagents(c, &p)
	if p.domain != "" {
		c.SetRole(p.domain)
	}
	var b []byte
	letter := int8(-1)
	asJSON := c.Request().Schema != nil
	switch kind {
	case KindQuestionDomains, KindOptionDomains:
		b = maDomains(c, &p, asJSON)
	case KindQuestionAnalysis:
		b = maField(c, asJSON, "analysis", "", maQuestionAnalysis(c))
	case KindOptionAnalysis:
		b = maField(c, asJSON, "analysis", "", maOptionAnalysis(c, &p))
	case KindReport:
		b = maReport(c, &p, asJSON)
	case KindVote:
		yes, _, _ := maVote(c, &p)
		v := "NO"
		if yes {
			v = "YES"
		}
		b = maField(c, asJSON, "vote", "", v)
	case KindAdvice:
		b = maField(c, asJSON, "revisions", "Revisions: ", maAdvice(c, &p))
	case KindRevision:
		b = maField(c, asJSON, "total_analysis", "Total Analysis: ", maRevision(c, &p))
	case KindFinal:
		letter = maFinal(c, &p)
		b = maField(c, asJSON, "answer", "Option: ", c.Letter(letter))
	}
	return c.Finish(b, letter, asJSON)
}

// maField writes one field: {"key": "value"}, or prefix + value.
func maField(c *sim.Call, asJSON bool, key, prefix, value string) []byte {
	if !asJSON {
		return append([]byte(prefix), value...)
	}
	b := append([]byte(`{"`), key...)
	b = append(b, `":`...)
	b = sim.AppendQuoted(b, value)
	return append(b, '}')
}

// maDomains names the fields asked for (NUMBER OF FIELDS, else 5 for the
// question and 2 for the options): the question's most relevant
// specialties for the question domains; for the option domains, a
// per-question shuffle of the sim.RecruitPool most relevant (as an unranked
// recruitment), so an option expert may be less relevant.
func maDomains(c *sim.Call, p *maPrompt, asJSON bool) []byte {
	n := p.fields
	if n <= 0 {
		n = 5
		if c.Request().Meta.Kind == KindOptionDomains {
			n = 2
		}
	}
	n = min(n, sim.NSpecialties)
	list := c.Relevance()
	if c.Request().Meta.Kind == KindOptionDomains {
		pool := max(sim.RecruitPool, n)
		r := sim.NewStream(c.QHash(), sim.TagRoleOrder)
		for i := pool - 1; i > 0; i-- {
			j := r.Intn(i + 1)
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
			b = sim.AppendQuoted(b, sim.SpecialtyName(list[i]))
		} else {
			b = append(b, sim.SpecialtyName(list[i])...)
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
func maQuestionAnalysis(c *sim.Call) string {
	skill := c.Skill()
	rk := c.DrawRanking(skill)
	q := c.LatentQuality(skill, rk.First(), c.ReasoningNoise())
	tr := c.Rng(sim.TagText)
	cue := c.Cue(q, &tr)
	return maQuestionSentences[tr.Intn(len(maQuestionSentences))] + " " + cue
}

// analysesBonus is AnalysisBonus·2·q̄, q̄ the mean perceived quality of the
// question analyses maShown (0 when none): good analyses help, poor ones
// help less than none would with teamwork's analysis.
func analysesBonus(c *sim.Call, p *maPrompt, r *sim.Stream) float64 {
	if p.nqa == 0 {
		return 0
	}
	sum := 0.0
	for k := 0; k < p.nqa; k++ {
		sum += sim.Clamp(c.Perceive(p.qa[k].tier, r), 0, 1)
	}
	return c.Profile().AnalysisBonus * 2 * sum / float64(p.nqa)
}

// maOptionAnalysis: an independent ranking with the expert's skill plus the
// question analyses' bonus; the analysis names its first choice as the most
// plausible, its second as possibly misleading, and carries its quality.
func maOptionAnalysis(c *sim.Call, p *maPrompt) string {
	qr := c.Rng(sim.TagQuality)
	skill := c.Skill() + analysesBonus(c, p, &qr)
	rk := c.DrawRanking(skill)
	q := c.LatentQuality(skill, rk.First(), c.ReasoningNoise())
	tr := c.Rng(sim.TagText)
	return maSentence(c, &maOptionSentences[tr.Intn(len(maOptionSentences))], rk.At(0), rk.At(1), q, &tr)
}

// maSentence writes s around l1 and l2, then the cue of quality q.
func maSentence(c *sim.Call, s *[3]string, l1, l2 int8, q float64, r *sim.Stream) string {
	cue := c.Cue(q, r)
	return s[0] + c.Letter(l1) + s[1] + c.Letter(l2) + s[2] + " " + cue
}

// weighedLean is the lean with the greatest Σ perceived quality of the
// texts backing it (ties: a seeded draw), and the best perceived quality
// among its backers; -1 when no text leans.
func weighedLean(c *sim.Call, list *[maMax]maShown, n int, r *sim.Stream) (int8, float64) {
	var w, best [sim.MaxLetters]float64
	seen := false
	for k := 0; k < n; k++ {
		if l := list[k].lean; l >= 0 && int(l) < c.N() {
			v := sim.Clamp(c.Perceive(list[k].tier, r), 0, 1)
			w[l] += v
			best[l] = max(best[l], v)
			seen = true
		}
	}
	if !seen {
		return -1, 0
	}
	l := c.Argmax(&w, r)
	return l, best[l]
}

// other is an option other than l: the first lean of list that differs,
// else the next option.
func simOther(c *sim.Call, l int8, list *[maMax]maShown, n int) int8 {
	for k := 0; k < n; k++ {
		if x := list[k].lean; x >= 0 && x != l && int(x) < c.N() {
			return x
		}
	}
	return int8((int(l) + 1) % c.N())
}

// maReport: the synthesiser (the leader's skill plus the question analyses'
// bonus) leans to the gold when it knows it (probability know), else to the
// option the option analyses back with the most perceived quality (an
// independent view when none leans); the report carries its quality for
// that lean. Its key knowledge is 2–3 facts, each supportive with
// probability ½ + ½·know.
func maReport(c *sim.Call, p *maPrompt, asJSON bool) []byte {
	lr := c.Rng(sim.TagLeader)
	skill := c.Skill() + analysesBonus(c, p, &lr)
	know := c.Know(skill)
	lean := c.Gold()
	if lr.Float() >= know {
		if lean, _ = weighedLean(c, &p.oa, p.noa, &lr); lean < 0 {
			lean = simFirstChoice(c, skill)
		}
	}
	q := c.LatentQuality(skill, lean, c.ReasoningNoise())
	tr := c.Rng(sim.TagText)
	total := maSentence(c, &maReportSentences[tr.Intn(len(maReportSentences))], lean, simOther(c, lean, &p.oa, p.noa), q, &tr)
	fr := c.Rng(sim.TagFacts)
	var kk []byte
	for k, f := range c.DrawFacts(2+fr.Intn(2), 0.5+0.5*know, &fr) {
		if k > 0 {
			kk = append(kk, ' ')
		}
		kk = append(kk, f...)
		kk = append(kk, '.')
	}
	if !asJSON {
		b := append([]byte("Key Knowledge: "), kk...)
		b = append(b, "\nTotal Analysis: "...)
		return append(b, total...)
	}
	b := append([]byte(`{"key_knowledge":`), sim.AppendQuoted(nil, string(kk))...)
	b = append(b, `,"total_analysis":`...)
	b = sim.AppendQuoted(b, total)
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

func maConsultView(c *sim.Call, p *maPrompt) maView {
	saved := c.Key()
	defer c.SetKey(saved)
	c.SetKey(sim.Mix64(c.QHash() ^ sim.Mix64(uint64(int64(c.Request().Meta.Agent))+0x51) ^ sim.Mix64(uint64(int64(c.Request().Meta.Turn))*sim.Golden) ^ sim.Fnv64(p.reportText)))
	skill := c.Skill()
	rk := c.DrawRanking(skill)
	v := maView{own: rk.First()}
	v.q0 = c.LatentQuality(skill, v.own, c.ReasoningNoise())
	r := c.Rng(sim.TagSwitch)
	// Persuaded with probability Persuadability × the report's perceived
	// quality × the susceptibility of the expert's own reasoning.
	prob := c.Profile().Persuadability * sim.Clamp(c.Perceive(p.report.tier, &r), 0, 1) * c.Susceptibility(v.q0)
	v.persuade = r.Float() < prob
	return v
}

// maVote: yes when the expert's own view is the report's lean, or when the
// report persuades it (maConsultView), or when the report leans nowhere it
// can read; no otherwise.
func maVote(c *sim.Call, p *maPrompt) (bool, maView, int8) {
	v := maConsultView(c, p)
	lean := p.report.lean
	if !p.hasReport || lean < 0 {
		return true, v, lean
	}
	return v.own == lean || v.persuade, v, lean
}

// maAdvice: the expert asks the report to favour its own view over the
// report's lean (carrying its reasoning's quality); an expert that agrees
// asks for a clearer rebuttal of the alternative.
func maAdvice(c *sim.Call, p *maPrompt) string {
	_, v, lean := maVote(c, p)
	tr := c.Rng(sim.TagText)
	if lean < 0 {
		lean = simOther(c, v.own, &p.oa, 0)
	}
	if v.own == lean {
		return maSentence(c, &maAgreeSentences[0], lean, int8((int(lean)+1)%c.N()), v.q0, &tr)
	}
	return maSentence(c, &maAdviceSentences[tr.Intn(len(maAdviceSentences))], v.own, lean, v.q0, &tr)
}

// maRevision: M is the option most advice backs against the report's lean
// (ties by the advice's perceived quality, then seeded); the reviser moves
// the analysis to M with probability Persuadability × share × s(q_r), q_r
// the report's perceived quality and share the perceived quality of the
// advice backing M over that of all advice plus the report's own (the
// report is one voice); then to the gold with probability Insight·2·know
// (its own insight). The revised analysis carries its quality for the new
// lean.
func maRevision(c *sim.Call, p *maPrompt) string {
	skill := c.Skill()
	r := c.Rng(sim.TagSwitch)
	lean := p.report.lean
	qr := sim.Clamp(c.Perceive(p.report.tier, &r), 0, 1)
	cnt, w, total := maAdviceTally(c, p, lean, qr, &r)
	m := maMostAdvised(c, &cnt, &w, &r)
	next := lean
	switch {
	case lean < 0 && m >= 0:
		next = m
	case lean < 0:
		next = simFirstChoice(c, skill)
	case m >= 0 && total > 0 && r.Float() < c.Profile().Persuadability*(w[m]/total)*c.Susceptibility(qr):
		next = m
	}
	if u := r.Float(); next != c.Gold() && u < c.Profile().Insight*2*c.Know(skill) {
		next = c.Gold()
	}
	l2 := lean
	if l2 < 0 || l2 == next {
		l2 = m
	}
	if l2 < 0 || l2 == next {
		l2 = int8((int(next) + 1) % c.N())
	}
	q := c.LatentQuality(skill, next, c.ReasoningNoise())
	tr := c.Rng(sim.TagText)
	return maSentence(c, &maRevisionSentences[0], next, l2, q, &tr)
}

// maAdviceTally perceives the quality of each piece of advice that leans
// to a letter (in the order shown, drawing from r): cnt and w are, per
// letter other than the report's lean, the advice backing it and its
// perceived quality; total is the perceived quality of all that advice
// plus qr, the report's own.
func maAdviceTally(c *sim.Call, p *maPrompt, lean int8, qr float64, r *sim.Stream) (cnt, w [sim.MaxLetters]float64, total float64) {
	total = qr
	for k := 0; k < p.nadv; k++ {
		l := p.adv[k].lean
		if l < 0 || int(l) >= c.N() {
			continue
		}
		v := sim.Clamp(c.Perceive(p.adv[k].tier, r), 0, 1)
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
func maMostAdvised(c *sim.Call, cnt, w *[sim.MaxLetters]float64, r *sim.Stream) int8 {
	bestCnt := 0.0
	for i := 0; i < c.N(); i++ {
		bestCnt = max(bestCnt, cnt[i])
	}
	if bestCnt == 0 {
		return -1
	}
	var tied [sim.MaxLetters]float64
	for i := 0; i < c.N(); i++ {
		if cnt[i] == bestCnt {
			tied[i] = w[i] + 1e-9
		}
	}
	return c.Argmax(&tied, r)
}

// maFinal: the decision follows the lean it is maShown — the report's, or,
// from the analyses alone (anal_only), the option the option analyses back
// with the most perceived quality — with probability the perceived quality
// of that text (a strong report is followed, a weak one less); otherwise,
// or when nothing leans, it is the decider's own independent first choice
// (its skill plus the question analyses' bonus).
func maFinal(c *sim.Call, p *maPrompt) int8 {
	r := c.Rng(sim.TagLeader)
	lean, follow := int8(-1), 0.0
	switch {
	case p.hasReport:
		lean, follow = p.report.lean, sim.Clamp(c.Perceive(p.report.tier, &r), 0, 1)
	default:
		lean, follow = weighedLean(c, &p.oa, p.noa, &r)
	}
	if lean >= 0 && int(lean) < c.N() && r.Float() < follow {
		return lean
	}
	return simFirstChoice(c, c.Skill()+analysesBonus(c, p, &r))
}

// firstChoice is an independent first choice (drawRanking's).
func simFirstChoice(c *sim.Call, skill float64) int8 {
	rk := c.DrawRanking(skill)
	return rk.First()
}
