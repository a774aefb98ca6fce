package mdagents

// The counts of the public code (mitmedialab/MDAgents utils.py, the version
// main.py imports): every one is a constant of process_basic_query,
// process_intermediate_query or process_advanced_query there.
const (
	// Exemplars is the few-shot exemplars of the basic and intermediate
	// paths (examplers[:5]).
	Exemplars = 5
	// Experts is the experts the intermediate recruiter names (num_agents = 5).
	Experts = 5
	// Rounds and Turns are the intermediate discussion's rounds and the
	// turns of each round (num_rounds = 5, num_turns = 5).
	Rounds = 5
	Turns  = 5
	// Teams and Members are the advanced path's multidisciplinary teams and
	// the clinicians of each (num_teams = 3, num_agents = 3).
	Teams   = 3
	Members = 3
)

// Call kinds (llm.Meta.Kind): the step a call performs. docs/protocols.md
// (#mdagents) gives the answer each asks for; the simulator answers each
// with this package's Sim (sim.go).
const (
	KindRoute       = "md_route"              // the complexity router
	KindReason      = "md_exemplar_reason"    // the reason of one few-shot exemplar
	KindBasic       = "md_basic"              // the basic path's single agent
	KindRecruit     = "md_recruit"            // the intermediate recruiter: experts and hierarchy
	KindOpinion     = "md_opinion"            // an expert's first opinion
	KindParticipate = "md_participate"        // an expert says whether it wants to talk
	KindChoose      = "md_choose"             // whom it talks to
	KindMessage     = "md_message"            // its message to one expert
	KindFinal       = "md_final"              // an expert's answer at the end of a round
	KindModerator   = "md_moderator"          // the moderator's final decision
	KindTeams       = "md_mdt_recruit"        // the advanced recruiter: the teams
	KindDelivery    = "md_team_delivery"      // a team lead asks for investigations
	KindInvestigate = "md_team_investigation" // an assistant clinician's investigation
	KindReport      = "md_team_report"        // the team lead's answer: the team's report
	KindDecision    = "md_decision"           // the advanced path's final decision maker
)

// Kinds are every call kind of the protocol, in the order of a run.
var Kinds = []string{KindRoute, KindReason, KindBasic, KindRecruit, KindOpinion, KindParticipate, KindChoose, KindMessage,
	KindFinal, KindModerator, KindTeams, KindDelivery, KindInvestigate, KindReport, KindDecision}

// Phases (llm.Meta.Phase).
const (
	PhaseRoute      = "route"
	PhaseExemplars  = "exemplars"
	PhaseBasic      = "basic"
	PhaseRecruit    = "recruitment"
	PhaseInitial    = "initial"
	PhaseDiscussion = "discussion"
	PhaseTeams      = "teams"
	PhaseDecision   = "decision"
)

// Routes.
const (
	RouteBasic        = "basic"
	RouteIntermediate = "intermediate"
	RouteAdvanced     = "advanced"
)

// RouteNames are the routes in the router's order.
var RouteNames = []string{RouteBasic, RouteIntermediate, RouteAdvanced}

// Draw labels (seeds of draws that are not calls).
const kindExemplarDraw = "md_exemplar_draw"

var stageRank = map[string]int{PhaseRoute: 0, PhaseExemplars: 1, PhaseBasic: 2, PhaseRecruit: 3, PhaseInitial: 4,
	PhaseDiscussion: 5, PhaseTeams: 6, PhaseDecision: 7}

var kindRank = func() map[string]int {
	m := map[string]int{}
	for i, k := range Kinds {
		m[k] = i
	}
	return m
}()

// order is the llm.Meta.Order of a call: phase, then turn, then agent (-1
// first), then kind, then the addressee — the order of a sequential run
// (within a discussion turn each expert's steps come before the next
// expert's).
func order(phase, kind string, turn, agent, target int) int {
	return (((stageRank[phase]*512+turn)*32+agent+1)*16+kindRank[kind])*16 + target + 1
}
