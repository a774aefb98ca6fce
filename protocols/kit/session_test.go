package kit

import (
	"encoding/json"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// sessionFixture is a session and a call whose request bytes are pinned
// below: any change to how a one-turn call becomes a request changes its
// hash, and with it every cached response and every paired request.
func sessionFixture() (*Session, Call) {
	item := qa.Item{ID: "q-1", Stem: "Which drug first?", Options: []qa.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}}}
	s := NewSession(nil, item, protocol.Unit{Model: "m", Arm: "vote", RunSeed: 7, Repeat: 1}, true, 512)
	c := Call{Phase: PhaseAnswer, Kind: KindFirst, Agent: 2, Role: "Expert 3", Temperature: 0.7,
		System: "You are a medical expert.", User: "QUESTION: which drug first?",
		Schema: Schema(KindFirst, P("reasoning", String), P("ranking", Strings))}
	return s, c
}

// pinnedOneTurnHash is the RequestHash of sessionFixture's call as every
// protocol sent it before Call.History existed (system + user).
const pinnedOneTurnHash = "fb66c75914fd7e50c67dbc0772bab66fa051732adc10d8608c3dbe788a15cbdb"

// TestOneTurnRequestUnchanged: a call without History is the two-message
// request it always was — the same bytes, the same hash — so adding
// multi-turn calls (debate) moves no other protocol's request.
func TestOneTurnRequestUnchanged(t *testing.T) {
	s, c := sessionFixture()
	req := s.Request(c)
	want := []llm.Message{{Role: llm.RoleSystem, Content: c.System}, {Role: llm.RoleUser, Content: c.User}}
	got, _ := json.Marshal(req.Messages)
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Fatalf("messages %s, want %s", got, w)
	}
	if h := llm.RequestHash(req); h != pinnedOneTurnHash {
		t.Fatalf("one-turn request hash %s, want %s", h, pinnedOneTurnHash)
	}
}

// TestHistoryGoesBetweenSystemAndUser: a call's History is sent, in order and
// as written, between the system message and the user message; an empty
// History is the one-turn request.
func TestHistoryGoesBetweenSystemAndUser(t *testing.T) {
	s, c := sessionFixture()
	c.History = []llm.Message{}
	if h := llm.RequestHash(s.Request(c)); h != pinnedOneTurnHash {
		t.Fatalf("empty history: hash %s, want the one-turn %s", h, pinnedOneTurnHash)
	}
	c.History = []llm.Message{{Role: llm.RoleUser, Content: "first prompt"}, {Role: llm.RoleAssistant, Content: "  my answer\n"}}
	req := s.Request(c)
	want := []llm.Message{{Role: llm.RoleSystem, Content: c.System}, c.History[0], c.History[1], {Role: llm.RoleUser, Content: c.User}}
	got, _ := json.Marshal(req.Messages)
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Fatalf("messages %s, want %s", got, w)
	}
	if llm.RequestHash(req) == pinnedOneTurnHash {
		t.Fatal("the history does not reach the request hash")
	}
	// The request owns its messages: the caller's history may grow.
	c.History[1].Content = "changed"
	if req.Messages[2].Content != "  my answer\n" {
		t.Fatal("the request shares the caller's history")
	}
}
