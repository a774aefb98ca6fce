package mdagents

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// How a reply of the router or of a discussion step was read (Method of the
// parse notes, route_parse in protocol_json).
const (
	// ReadStrict: the JSON field or the labelled line asked for, naming one
	// value.
	ReadStrict = "strict"
	// ReadCodeRule: not readable strictly; the public code's own rule over
	// the whole reply decided (a substring test, see ParseRoute, ParseTalk,
	// ParseChosen).
	ReadCodeRule = "code_rule"
	// ReadDefault: not readable by either; the documented default applies.
	ReadDefault = "default"
)

// Route is the router's reply as read.
type Route struct {
	Route  string // basic, intermediate or advanced
	Method string // ReadStrict, ReadCodeRule or ReadDefault
	Err    string // why the strict reading failed ("" when it did not)
}

var routeLabels = map[string]string{"COMPLEXITY": "route", "DIFFICULTY": "route", "ROUTE": "route", "LEVEL": "route",
	"REASONING": "reasoning"}

// ParseRoute reads the router's reply. Strictly: the JSON field complexity
// (or difficulty, route, level) or the COMPLEXITY line must name exactly one
// level — its word (basic, intermediate, advanced), its number in the
// prompt's list (1, 2, 3, "1)"), or both when they agree. Otherwise the
// public code's rule decides (utils.py determine_difficulty): the first of
// "basic" or "1)", "intermediate" or "2)", "advanced" or "3)" that the reply
// contains, in that order. A reply with none of them has no route in the
// public code (it returns None and main.py then uses no path); here it is
// basic, the level the code's order puts first (Method ReadDefault).
func ParseRoute(text string) Route {
	_, body := answer.Prepare(text)
	var (
		v   string
		got bool
	)
	if o, _, ok := answer.DecodeObject(body, false); ok {
		v, got = o.FirstString("complexity", "difficulty", "route", "level")
	}
	if !got {
		v, got = answer.Sections(body, routeLabels)["route"]
	}
	r := Route{}
	if got {
		if level, err := routeValue(v); err == "" {
			return Route{Route: level, Method: ReadStrict}
		} else {
			r.Err = err
		}
	} else {
		r.Err = "no complexity field or line"
	}
	low := strings.ToLower(text)
	switch {
	case strings.Contains(low, "basic") || strings.Contains(low, "1)"):
		r.Route = RouteBasic
	case strings.Contains(low, "intermediate") || strings.Contains(low, "2)"):
		r.Route = RouteIntermediate
	case strings.Contains(low, "advanced") || strings.Contains(low, "3)"):
		r.Route = RouteAdvanced
	default:
		r.Route, r.Method = RouteBasic, ReadDefault
		return r
	}
	r.Method = ReadCodeRule
	return r
}

var reRouteValue = regexp.MustCompile(`^[\s"'*_(\[]*(?:([1-3])(?:\s*[).:\]-]|\s|$))?[\s"'*_]*([A-Za-z]*)`)

// routeValue reads one level from a field's value; err says why not.
func routeValue(v string) (level, err string) {
	m := reRouteValue.FindStringSubmatch(v)
	if m == nil || m[1] == "" && m[2] == "" {
		return "", fmt.Sprintf("complexity %q names no level", kit.Truncate(v, 40))
	}
	byNum := ""
	if m[1] != "" {
		n, _ := strconv.Atoi(m[1])
		byNum = RouteNames[n-1]
	}
	byWord := ""
	if w := strings.ToLower(m[2]); w != "" {
		for _, r := range RouteNames {
			if w == r {
				byWord = r
			}
		}
		if byWord == "" && byNum == "" {
			return "", fmt.Sprintf("complexity %q names no level", kit.Truncate(v, 40))
		}
	}
	switch {
	case byNum != "" && byWord != "" && byNum != byWord:
		return "", fmt.Sprintf("complexity %q names two levels", kit.Truncate(v, 40))
	case byWord != "":
		return byWord, ""
	}
	return byNum, ""
}

// readText reads a free-text field: the first of keys in the reply's JSON
// object, else the labelled section, else (when whole) the whole reply
// trimmed. ok is false when nothing but white space is left.
func readText(text string, keys []string, labels map[string]string, field string, whole bool) (string, answer.Method, bool) {
	_, body := answer.Prepare(text)
	if o, m, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.FirstString(keys...); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), m, true
		}
	}
	if v, ok := answer.Sections(body, labels)[field]; ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), answer.MethodLabelled, true
	}
	if whole && strings.TrimSpace(body) != "" {
		return strings.TrimSpace(body), answer.MethodAnswerLine, true
	}
	return "", answer.MethodNone, false
}

var reasonLabels = map[string]string{"REASONING": "reason", "REASON": "reason", "RATIONALE": "reason", "EXPLANATION": "reason"}

// ParseReason reads an exemplar's reason: the reasoning field or line, else
// the whole reply (the code keeps whatever the model wrote); "" when empty.
func ParseReason(text string) (string, answer.Method) {
	s, m, _ := readText(text, []string{"reasoning", "reason", "rationale", "explanation"}, reasonLabels, "reason", true)
	return s, m
}

var deliveryLabels = map[string]string{"INVESTIGATIONS": "body", "INVESTIGATION REQUESTS": "body", "REQUESTS": "body", "REASONING": "reasoning"}

// ParseDelivery reads a team lead's request for investigations: the
// investigations field or line, else the whole reply.
func ParseDelivery(text string) (string, answer.Method) {
	s, m, _ := readText(text, []string{"investigations", "requests", "instructions", "request"}, deliveryLabels, "body", true)
	return s, m
}

var investigationLabels = map[string]string{"INVESTIGATION": "body", "SUMMARY": "body", "INVESTIGATION SUMMARY": "body", "REASONING": "reasoning"}

// ParseInvestigation reads an assistant clinician's investigation: the
// investigation field or line, else the whole reply.
func ParseInvestigation(text string) (string, answer.Method) {
	s, m, _ := readText(text, []string{"investigation", "summary", "investigationsummary", "findings"}, investigationLabels, "body", true)
	return s, m
}

// Talk is an expert's reply to "do you want to talk to any expert".
type Talk struct {
	Talk   bool
	Method string // ReadStrict, ReadCodeRule or ReadDefault
	Err    string
}

var talkLabels = map[string]string{"TALK": "talk", "PARTICIPATE": "talk", "ANSWER": "talk", "REASONING": "reasoning"}

// ParseTalk reads the participation answer: strictly the JSON field talk
// (or participate, answer) or the TALK line, a yes or no; otherwise the
// public code's rule ('yes' in the reply, lower-cased); a reply without
// "yes" is no (ReadDefault when nothing strict was there).
func ParseTalk(text string) Talk {
	_, body := answer.Prepare(text)
	t := Talk{}
	if o, _, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.Get("talk", "participate", "answer"); ok {
			if b, ok := answer.RawBool(v); ok {
				return Talk{Talk: b, Method: ReadStrict}
			}
			t.Err = fmt.Sprintf("talk %q is not a yes or no", kit.Truncate(answer.RawText(v), 40))
		}
	}
	if t.Err == "" {
		if v, ok := answer.Sections(body, talkLabels)["talk"]; ok {
			if b, ok := answer.BoolFromText(answer.TrimValue(answer.FirstLine(v))); ok {
				return Talk{Talk: b, Method: ReadStrict}
			}
			t.Err = fmt.Sprintf("TALK %q is not a yes or no", kit.Truncate(v, 40))
		} else {
			t.Err = "no talk field or line"
		}
	}
	if strings.Contains(strings.ToLower(text), "yes") {
		t.Talk, t.Method = true, ReadCodeRule
		return t
	}
	t.Method = ReadDefault
	return t
}

// Chosen is the experts an expert chose to talk to, as read.
type Chosen struct {
	Experts []int // 1-based expert numbers, distinct, never the speaker's own
	Method  string
	Notes   []string
}

var chooseLabels = map[string]string{"EXPERTS": "experts", "EXPERT": "experts", "AGENTS": "experts", "CHOSEN": "experts",
	"REASONING": "reasoning"}

var reNumber = regexp.MustCompile(`\d+`)

// ParseChosen reads the experts chosen among n (self is the speaker's own
// number): strictly the JSON array experts (or agents) or the EXPERTS line;
// otherwise the public code's rule (the reply's '.'-or-','-separated items
// that are whole numbers). Numbers outside 1…n, the speaker's own and
// repeats are dropped with a note.
func ParseChosen(text string, n, self int) Chosen {
	_, body := answer.Prepare(text)
	var nums []int
	c := Chosen{Method: ReadDefault}
	if o, _, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.Get("experts", "agents", "expert", "chosen"); ok {
			nums, c.Method = rawInts(v), ReadStrict
		}
	}
	if c.Method != ReadStrict {
		if v, ok := answer.Sections(body, chooseLabels)["experts"]; ok {
			for _, d := range reNumber.FindAllString(answer.FirstLine(v), -1) {
				if x, err := strconv.Atoi(d); err == nil {
					nums = append(nums, x)
				}
			}
			c.Method = ReadStrict
		}
	}
	if c.Method != ReadStrict {
		for _, item := range strings.Split(strings.ReplaceAll(text, ".", ","), ",") {
			if x, err := strconv.Atoi(strings.TrimSpace(item)); err == nil {
				nums = append(nums, x)
				c.Method = ReadCodeRule
			}
		}
	}
	for _, x := range nums {
		switch {
		case x < 1 || x > n:
			c.Notes = append(c.Notes, fmt.Sprintf("expert %d is not one of 1…%d: dropped", x, n))
		case x == self:
			c.Notes = append(c.Notes, fmt.Sprintf("expert %d is the speaker: dropped", x))
		case slices.Contains(c.Experts, x):
			c.Notes = append(c.Notes, fmt.Sprintf("expert %d named twice", x))
		default:
			c.Experts = append(c.Experts, x)
		}
	}
	return c
}

// rawInts reads an array of whole numbers (or of strings that hold one, "Agent 2"),
// or one string of numbers.
func rawInts(v json.RawMessage) []int {
	var out []int
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		for _, e := range arr {
			if x, ok := answer.RawInt(e); ok {
				out = append(out, x)
			}
		}
		return out
	}
	if x, ok := answer.RawInt(v); ok {
		return []int{x}
	}
	s, _ := answer.RawString(v)
	for _, d := range reNumber.FindAllString(s, -1) {
		if x, err := strconv.Atoi(d); err == nil {
			out = append(out, x)
		}
	}
	return out
}

// Expert is one recruited expert of the intermediate path.
type Expert struct {
	Role        string `json:"role"`
	Description string `json:"description"`
	// Hierarchy is the communication structure the recruiter stated for it
	// ("Independent", "Pediatrician > Cardiologist"): recorded, and (as in
	// the public code, which only draws it as a tree) used nowhere else.
	Hierarchy string `json:"hierarchy"`
}

// Experts are the recruiter's experts as read.
type ExpertList struct {
	Experts []Expert
	Method  answer.Method
	Notes   []string
}

var reHierarchy = regexp.MustCompile(`(?i)hierarchy:`)

var reExpertsLabel = regexp.MustCompile(`(?im)^\W*experts\s*:`)

var reExpertLine = regexp.MustCompile(`^\s*[*_#]*\s*(\d+)\s*[.)]\s*(.+)$`)

// ParseExperts reads the recruiter's experts: the JSON array experts of
// objects {role, description, hierarchy}, else the code's lines "1. Role -
// Description - Hierarchy: Independent". At most Experts are kept (the rest
// noted); an entry without a role is skipped with a note.
func ParseExperts(text string) ExpertList {
	_, body := answer.Prepare(text)
	var l ExpertList
	if o, m, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.Get("experts", "agents", "team", "recruits"); ok {
			l.Method = m
			var arr []json.RawMessage
			if json.Unmarshal(v, &arr) != nil {
				l.Notes = append(l.Notes, "experts is not a list")
			}
			for i, e := range arr {
				f := answer.DecodeFlat(e)
				role, _ := f.FirstString("role", "name", "specialty", "expert", "title")
				desc, _ := f.FirstString("description", "expertise", "specialization", "focus")
				hier, _ := f.FirstString("hierarchy", "communication", "structure")
				l.add(Expert{Role: cleanRole(role), Description: strings.TrimSpace(desc), Hierarchy: strings.TrimSpace(hier)}, i+1)
			}
			return l.cap()
		}
	}
	if loc := reExpertsLabel.FindStringIndex(body); loc != nil {
		body = body[loc[1]:] // the lines after EXPERTS:, not a numbered reasoning
	}
	i := 0
	for _, line := range strings.Split(body, "\n") {
		m := reExpertLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		i++
		l.Method = answer.MethodLabelled
		l.add(expertFromLine(m[2]), i)
	}
	if l.Method == "" {
		l.Method = answer.MethodNone
	}
	return l.cap()
}

func (l *ExpertList) add(e Expert, i int) {
	if e.Role == "" {
		l.Notes = append(l.Notes, fmt.Sprintf("expert entry %d names no role: skipped", i))
		return
	}
	l.Experts = append(l.Experts, e)
}

func (l ExpertList) cap() ExpertList {
	if len(l.Experts) > Experts {
		l.Notes = append(l.Notes, fmt.Sprintf("%d experts named; the first %d kept", len(l.Experts), Experts))
		l.Experts = l.Experts[:Experts]
	}
	if len(l.Experts) == 0 && l.Method != answer.MethodNone {
		l.Method = answer.MethodNone
	}
	return l
}

// expertFromLine reads "Role - Description - Hierarchy: X" (the code splits
// at " - Hierarchy: ", then at the first "-").
func expertFromLine(s string) Expert {
	var e Expert
	if locs := reHierarchy.FindAllStringIndex(s, -1); len(locs) > 0 {
		loc := locs[len(locs)-1]
		e.Hierarchy = strings.TrimSpace(strings.Trim(s[loc[1]:], " *_"))
		s = strings.TrimRight(strings.TrimSpace(s[:loc[0]]), " -–*_")
	}
	role, desc, _ := strings.Cut(s, " - ")
	e.Role, e.Description = cleanRole(role), strings.TrimSpace(desc)
	return e
}

// cleanRole trims a role's markup and white space.
func cleanRole(s string) string {
	return strings.Join(strings.Fields(strings.Trim(s, " *_#:-–\t")), " ")
}

// Member is one clinician of a multidisciplinary team.
type Member struct {
	Role      string `json:"role"`
	Expertise string `json:"expertise"`
	Lead      bool   `json:"lead"`
}

// Team is one multidisciplinary team of the advanced path.
type Team struct {
	Name    string   `json:"name"` // its purpose, e.g. "Initial Assessment Team (IAT)"
	Members []Member `json:"members"`
}

// TeamList is the advanced recruiter's teams as read.
type TeamList struct {
	Teams  []Team
	Method answer.Method
	Notes  []string
}

var (
	reGroupLine  = regexp.MustCompile(`(?i)^\W*group\s*\d+\s*[-:–.)]*\s*(.*)$`)
	reMemberLine = regexp.MustCompile(`(?i)^\W*member\s*\d+\s*[:.)-]\s*(.+)$`)
	reLeadMark   = regexp.MustCompile(`(?i)\s*\(\s*lead\s*\)`)
)

// ParseTeams reads the advanced recruiter's teams: the JSON array teams of
// objects {name, members: [{role, lead, expertise}]}, else the code's lines
// "Group 1 - Initial Assessment Team (IAT)" and "Member 1: Role (Lead) -
// Expertise". A member is a team's lead when its lead flag is true or its
// role says "lead" (the code's test); Select chooses the teams that run.
func ParseTeams(text string) TeamList {
	_, body := answer.Prepare(text)
	var l TeamList
	if o, m, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.Get("teams", "groups", "mdts"); ok {
			l.Method = m
			var arr []json.RawMessage
			if json.Unmarshal(v, &arr) != nil {
				l.Notes = append(l.Notes, "teams is not a list")
			}
			for _, e := range arr {
				f := answer.DecodeFlat(e)
				name, _ := f.FirstString("name", "goal", "team", "purpose", "group")
				t := Team{Name: cleanRole(name)}
				var ms []json.RawMessage
				if mv, ok := f.Get("members", "clinicians", "agents"); ok {
					_ = json.Unmarshal(mv, &ms)
				}
				for _, me := range ms {
					mf := answer.DecodeFlat(me)
					role, _ := mf.FirstString("role", "name", "specialty", "title")
					exp, _ := mf.FirstString("expertise", "description", "expertisedescription", "focus")
					lead := false
					if lv, ok := mf.Get("lead", "islead"); ok {
						lead, _ = answer.RawBool(lv)
					}
					t.addMember(role, exp, lead)
				}
				l.add(t)
			}
			return l.done()
		}
	}
	var cur *Team
	for _, line := range strings.Split(body, "\n") {
		if m := reMemberLine.FindStringSubmatch(line); m != nil {
			if cur == nil {
				l.Notes = append(l.Notes, "a member line before any group: skipped")
				continue
			}
			role, exp, _ := strings.Cut(m[1], " - ")
			cur.addMember(role, exp, false)
			continue
		}
		if m := reGroupLine.FindStringSubmatch(line); m != nil {
			if cur != nil {
				l.add(*cur)
			}
			l.Method = answer.MethodLabelled
			cur = &Team{Name: cleanRole(m[1])}
		}
	}
	if cur != nil {
		l.add(*cur)
	}
	return l.done()
}

func (t *Team) addMember(role, expertise string, lead bool) {
	if reLeadMark.MatchString(role) || strings.Contains(strings.ToLower(role), "lead") {
		lead = true
	}
	role = cleanRole(reLeadMark.ReplaceAllString(role, ""))
	if role == "" {
		return
	}
	t.Members = append(t.Members, Member{Role: role, Expertise: strings.TrimSpace(expertise), Lead: lead})
}

func (l *TeamList) add(t Team) {
	if len(t.Members) == 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("team %q has no members: skipped", kit.Truncate(t.Name, 40)))
		return
	}
	if t.Name == "" {
		t.Name = fmt.Sprintf("Team %d", len(l.Teams)+1)
	}
	l.Teams = append(l.Teams, t)
}

func (l TeamList) done() TeamList {
	if len(l.Teams) == 0 {
		l.Method = answer.MethodNone
	}
	return l
}

// Team kinds by purpose, as the code tells them apart by name.
const (
	purposeInitial = "initial" // "initial" or "iap" in the name (the code's test)
	purposeFinal   = "final"   // "review", "decision" or "frdt" in the name
	purposeOther   = "other"
)

// purpose classifies a team by its name with the code's substring tests.
func purpose(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "initial") || strings.Contains(n, "iap"):
		return purposeInitial
	case strings.Contains(n, "review") || strings.Contains(n, "decision") || strings.Contains(n, "frdt"):
		return purposeFinal
	}
	return purposeOther
}

// Select chooses the teams that run and their order, and each team's lead
// first: the initial-assessment teams, then the others, then the final
// review and decision teams (the code's order), at most Teams of them —
// when the recruiter named more, the first initial team and the first final
// team are kept and the others fill the rest in the order named — and at
// most Members per team (its lead and the first others). notes say what
// was dropped.
func Select(ts []Team) (out []Team, notes []string) {
	initial, other, final := byPurpose(nil, nil, nil, ts)
	if len(ts) > Teams {
		notes = append(notes, fmt.Sprintf("%d teams named; %d kept", len(ts), Teams))
		initial, other, final = keepTeams(ts, initial, final)
	}
	for _, t := range slices.Concat(initial, other, final) {
		t, note := leadFirst(t)
		if note != "" {
			notes = append(notes, note)
		}
		out = append(out, t)
	}
	return out, notes
}

// byPurpose appends each team of ts, in order, to the initial-assessment,
// other or final-review teams by its purpose.
func byPurpose(initial, other, final, ts []Team) ([]Team, []Team, []Team) {
	for _, t := range ts {
		switch purpose(t.Name) {
		case purposeInitial:
			initial = append(initial, t)
		case purposeFinal:
			final = append(final, t)
		default:
			other = append(other, t)
		}
	}
	return initial, other, final
}

// keepTeams keeps Teams of the teams ts named (more than Teams): the first
// initial team (of initial) and the first final team (of final), and the
// others filling the rest in the order named; it returns them by purpose.
func keepTeams(ts, initial, final []Team) ([]Team, []Team, []Team) {
	var keepI, keepF []Team
	if len(initial) > 0 {
		keepI = initial[:1]
	}
	if len(final) > 0 {
		keepF = final[:1]
	}
	rest := Teams - len(keepI) - len(keepF)
	var fill []Team
	for _, t := range ts { // the others in the order named
		if rest == 0 {
			break
		}
		if slices.ContainsFunc(keepI, func(k Team) bool { return sameTeam(k, t) }) || slices.ContainsFunc(keepF, func(k Team) bool { return sameTeam(k, t) }) {
			continue
		}
		fill = append(fill, t)
		rest--
	}
	return byPurpose(keepI, nil, keepF, fill)
}

// leadFirst puts t's lead first (the first member when none says lead,
// as the code does), the only member marked lead, and keeps at most
// Members; note says when members were dropped.
func leadFirst(t Team) (Team, string) {
	lead := slices.IndexFunc(t.Members, func(m Member) bool { return m.Lead })
	if lead < 0 {
		lead = 0 // the code: no member says lead → the first
	}
	ms := append([]Member{t.Members[lead]}, slices.Delete(slices.Clone(t.Members), lead, lead+1)...)
	ms[0].Lead = true
	for k := 1; k < len(ms); k++ {
		ms[k].Lead = false
	}
	note := ""
	if len(ms) > Members {
		note = fmt.Sprintf("team %q has %d members; %d kept", kit.Truncate(t.Name, 40), len(ms), Members)
		ms = ms[:Members]
	}
	return Team{Name: t.Name, Members: ms}, note
}

func sameTeam(a, b Team) bool {
	return a.Name == b.Name && len(a.Members) == len(b.Members) && (len(a.Members) == 0 || a.Members[0] == b.Members[0])
}
