package debate

// The shared layout (--prompt-layout shared; protocol.Settings.SharedLayout)
// sends agent i's round-t revision as the shared first answer's system
// message and one user message: the first answer's user prompt, then one
// block per earlier round listing every agent's reply of that round in agent
// order ("Agent j's solution: ```…```") — the same bytes for every agent, so
// the agents of a round share everything up to their own part — then the
// agent's tail: which agent it is and Du et al.'s request. A round appends
// its block to the board; nothing is rebuilt, so round t+1's request begins
// with round t's up to its tail. The source layout (Du et al.'s own
// conversation, own reply first as an assistant message, the others after
// it) is Arm.round's other branch, unchanged.

// board is the shared layout's record of the debate so far: "\n\n" and a
// round's block, for every finished round in order.
type board struct{ text string }

// entry is one agent's reply in a round's block (1-based agent number).
type entry struct {
	Agent int
	Text  string
}

type roundData struct {
	Round   int
	Replies []entry
}

type tailData struct {
	Agent  int
	Latest int // the latest round shown, when the board holds several; 0 = one
	JSON   bool
}

// post appends round's block: every agent's reply as written, in agent
// order, each cut to peerChars bytes when that is set — the agent's own
// reply alike, since the block is the same bytes for every agent.
func (a Arm) post(b *board, round int, replies []string) error {
	d := roundData{Round: round}
	for j, r := range replies {
		d.Replies = append(d.Replies, entry{Agent: j + 1, Text: bound(asWritten(r), a.peerChars)})
	}
	block, err := prompts.Render("round", d)
	if err != nil {
		return err
	}
	b.text += "\n\n" + block
	return nil
}

// sharedUser is agent i's round-t user message in the shared layout: the
// first answer's user prompt, the board (rounds 1…t−1), then its tail.
func (a Arm) sharedUser(first string, b *board, i, round int, asJSON bool) (string, error) {
	d := tailData{Agent: i + 1, JSON: asJSON}
	if round > 2 {
		d.Latest = round - 1
	}
	tail, err := prompts.Render("tail", d)
	if err != nil {
		return "", err
	}
	return first + b.text + "\n\n" + tail, nil
}
