package sim

import "fmt"

// Behaviour is a protocol's simulated behaviour: the call kinds it answers
// and how, built from the core's mechanisms (the exported methods of Call).
// The protocol's package exports it beside its code (e.g.
// protocols/medagents.Sim), the protocol's registry entry carries it
// (protocol.Protocol.Sim) and whoever builds the simulator passes the
// registered behaviours to New. The core knows no protocol: a call of a
// kind no behaviour claims, and that is not one of the core's own, is a bad
// request.
type Behaviour struct {
	// Protocol names the protocol, for errors.
	Protocol string
	// Kinds are the call kinds (llm.Meta.Kind) it answers, each with its
	// code. The code enters the call's key and so every random draw of the
	// call: it never changes once rows exist, and it is unique among the
	// behaviours and the core's own kinds (New refuses a clash). In use: 1–11
	// teamwork, the core 12, the triage task's diagnosis judge 19, baseline 13–14, debate 15, council 16–17, judge 18,
	// veto 20–21, medagents 40–48, mdagents 101–115; a new protocol takes
	// codes from 200.
	Kinds map[string]uint64
	// Answer answers one call of its kinds with the response text.
	Answer func(c *Call) string
	// Markers are the labelled lines of the protocol's prompts the core
	// reads (Marker): into the member's skill (a role, an analysis, facts),
	// the reasoning a reader perceives (reasoning, statements, a reply) or,
	// as ReadsValue, kept for the behaviour (Call.Values). The core reads
	// the markers of every registered behaviour in every request.
	Markers []Marker
	// First are the fields the protocol adds to the shared first answer
	// (protocols/firstanswer's Extra.Fields), the core's own kind: the core
	// answers the shared fields, then each of these the request asks for,
	// in the behaviours' order (FirstField).
	First []FirstField
}

// FirstField is a field a protocol adds to the shared first answer. A
// request asks for it when its JSON schema has the property Name
// (structured output) or its last user message a line starting with
// Label + ":" (text). Value draws it for the first answer a — ranking and
// confidence drawn, correct telling whether its first choice is the gold —
// from streams of its own (Rng), so asking for it changes nothing else of
// the answer, and returns it written: a JSON value when asJSON, else the
// text after "Label: "; nil writes no field.
type FirstField struct {
	Name, Label string
	Value       func(c *Call, a *Answer, correct, asJSON bool) []byte
}

// register adds the behaviours' kinds to m; a kind or a code that is
// already taken is a programming error (the message names both owners).
func (m *Model) register(bs []Behaviour) {
	ms := []Marker{positionMarker}
	for i := range bs {
		ms = append(ms, bs[i].Markers...)
	}
	m.mk = newMarkerSet(ms)
	m.first = firstFields(bs)
	if len(bs) == 0 {
		return
	}
	m.kinds = map[string]*Behaviour{}
	owner := map[uint64]string{}
	for _, k := range coreKinds {
		code, _ := kindCode(k)
		owner[code] = "the core's kind " + k
	}
	for i := range bs {
		b := &bs[i]
		if b.Answer == nil {
			panic(fmt.Sprintf("sim.New: behaviour of %s has no Answer", b.Protocol))
		}
		for k, code := range b.Kinds {
			if _, core := kindCode(k); core {
				panic(fmt.Sprintf("sim.New: %s's kind %q is one of the core's kinds", b.Protocol, k))
			}
			if o, ok := m.kinds[k]; ok {
				panic(fmt.Sprintf("sim.New: kind %q is claimed by %s and %s", k, o.Protocol, b.Protocol))
			}
			if o, ok := owner[code]; ok {
				panic(fmt.Sprintf("sim.New: %s's kind %q has code %d, already %s's", b.Protocol, k, code, o))
			}
			owner[code] = b.Protocol + "'s kind " + k
			m.kinds[k] = b
		}
	}
}

// coreKinds lists the kinds the core answers itself (kindCode's).
var coreKinds = [...]string{
	kindFirst,
}

// kind codes the call kind k: the core's own, else a registered
// behaviour's (b non-nil).
func (m *Model) kind(k string) (code uint64, b *Behaviour, ok bool) {
	if code, ok := kindCode(k); ok {
		return code, nil, true
	}
	if b := m.kinds[k]; b != nil {
		return b.Kinds[k], b, true
	}
	return 0, nil, false
}

// firstFields collects the behaviours' first-answer fields; a name or a
// label two behaviours declare, or a field without Value, is a programming
// error.
func firstFields(bs []Behaviour) []FirstField {
	var out []FirstField
	owner := map[string]string{}
	for i := range bs {
		for _, f := range bs[i].First {
			if f.Value == nil || f.Name == "" || f.Label == "" {
				panic(fmt.Sprintf("sim.New: %s's first-answer field %q needs a Name, a Label and a Value", bs[i].Protocol, f.Name))
			}
			for _, k := range []string{`"` + f.Name + `"`, f.Label + ":"} {
				if o, ok := owner[k]; ok {
					panic(fmt.Sprintf("sim.New: the first-answer field %s is declared by %s and %s", k, o, bs[i].Protocol))
				}
				owner[k] = bs[i].Protocol
			}
			out = append(out, f)
		}
	}
	return out
}
