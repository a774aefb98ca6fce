package teamwork_test

import (
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/teamwork"
)

// The simulator's tests that exercise its mechanisms through teamwork's
// kinds (simcore_*_test.go), moved here from llm/sim: the core knows no
// teamwork word, teamwork's behaviour (sim.go) reads its prompt lines and
// writes its answers. They register teamwork.Sim itself and reach the
// core's draws only through its exported API (sim.Model.Traits and the
// fixed texts); the names below keep the tests' wording.
type (
	Model   = sim.Model
	Item    = sim.Item
	Profile = sim.Profile
)

// New is sim.New.
func New(p Profile, items map[string]Item, bs ...sim.Behaviour) *Model {
	return sim.New(p, items, bs...)
}

var (
	testTeam     = teamwork.Sim
	Profiles     = sim.Profiles
	decodeTier   = sim.DecodeTier
	tierMid      = sim.TierMid
	tierOf       = sim.TierOf
	specialtyIdx = sim.SpecialtyIndex
)

const (
	kindAssess         = teamwork.KindAssess
	kindRecruit        = teamwork.KindRecruit
	kindPredict        = teamwork.KindPredict
	kindSynthesize     = teamwork.KindSynthesize
	kindDiscuss        = teamwork.KindDiscuss
	kindFinal          = teamwork.KindFinal
	kindMediate        = teamwork.KindMediate
	kindMonitorSelect  = teamwork.KindMonitorSelect
	kindMonitorRespond = teamwork.KindMonitorRespond
	kindMonitorRate    = teamwork.KindMonitorRate
	kindTieBreak       = teamwork.KindTieBreak

	phasePrediction  = teamwork.PhasePrediction
	phaseDiscussion  = teamwork.PhaseDiscussion
	phaseAggregation = teamwork.PhaseAggregation
)

// qualityCues are the core's cue sentences by tier; factBank its facts.
var (
	qualityCues = func() (q [sim.NTiers][2]string) {
		for t := range q {
			q[t] = [2]string{sim.QualityCue(t, 0), sim.QualityCue(t, 1)}
		}
		return q
	}()
	factBank = func() (b [sim.NFacts]string) {
		for i := range b {
			b[i] = sim.Fact(i)
		}
		return b
	}()
)

// traits are question id's traits in m.
func traits(t testing.TB, m *Model, id string) sim.Traits {
	t.Helper()
	tr, ok := m.Traits(id)
	if !ok {
		t.Fatalf("no traits for %q", id)
	}
	return tr
}

// rate is a score as the core writes it: clamped to [0, 1], two decimals.
func rate(x float64) float64 { return sim.Round2(sim.Clamp(x, 0, 1)) }

// agentReq is simtest.AgentReq in teamwork's phases: prediction for the
// first answer, discussion for the rest.
func agentReq(id string, ls []string, kind string, agent, turn int, seed int64, schema bool, body string) llm.Request {
	req := simtest.AgentReq(id, ls, kind, agent, turn, seed, schema, body)
	if kind == kindPredict {
		req.Meta.Phase = phasePrediction
	}
	return req
}

// leaderReq builds a request for a leader kind.
func leaderReq(id string, ls []string, kind string, turn int, seed int64, schema bool, body string) llm.Request {
	req := agentReq(id, ls, kind, -1, turn, seed, schema, body)
	req.Meta.Phase = phaseAggregation
	return req
}

// The shared simulator test helpers (llm/sim/simtest) under the names the
// moved tests use.
var (
	letters      = simtest.Letters
	synthItems   = simtest.Items
	testSchema   = simtest.Schema
	decodeJSON   = simtest.DecodeJSON
	firstChoice  = simtest.FirstChoice
	mustChat     = simtest.Chat
	mustProfile  = simtest.Profile
	cleanProfile = simtest.Clean
	positionLine = simtest.PositionLine
	rankWith     = simtest.RankWith
	optionsBlock = simtest.OptionsBlock
	checkRanking = simtest.CheckRanking
)
