package mdagents

// Details is mdagents' record of a question (protocol_json).
type Details struct {
	Route string `json:"route"`
	// RouteSource is "router" or "forced" (mdagents:route=…).
	RouteSource string `json:"route_source"`
	// RouteParse is how the router's reply was read: strict, code_rule (the
	// public code's substring rule) or default (basic); "" when forced.
	RouteParse string `json:"route_parse,omitempty"`
	// Fewshot is the training split the exemplars came from (the file's
	// name), "" without --fewshot-file.
	Fewshot string `json:"fewshot"`
	// ZeroShot is true when the path's exemplar step ran without exemplars
	// (no --fewshot-file, or none of the item's kind in it).
	ZeroShot bool `json:"zero_shot,omitempty"`
	// Exemplars are the ids of the exemplars shown, in order.
	Exemplars []string `json:"exemplars,omitempty"`
	Rule      string   `json:"rule"`

	// The intermediate path: the recruited experts, the rounds and turns
	// the discussion ran, its messages (sender and addressee, 1-based, per
	// round and turn) and the rounds that ended with the experts' answers.
	Experts   []Expert  `json:"experts,omitempty"`
	Rounds    int       `json:"rounds,omitempty"`
	TurnsRun  int       `json:"turns_run,omitempty"`
	Talks     int       `json:"talks,omitempty"` // participation answers read as yes (each followed by a choice)
	Messages  []Message `json:"messages,omitempty"`
	Finals    int       `json:"final_rounds,omitempty"`
	EarlyStop bool      `json:"early_stop,omitempty"` // a turn in which nobody wanted to talk ended it

	// The advanced path: the teams that ran (lead first), in order.
	Teams []Team `json:"teams,omitempty"`

	// Votes are the answers the decider was shown, per option (the experts'
	// last answers, the teams' reports); DeciderAnswer is its answer ("" when
	// unreadable).
	Votes         map[string]float64 `json:"votes,omitempty"`
	DeciderAnswer string             `json:"decider_answer,omitempty"`
	// Notes are what the parsers dropped or assumed (an expert beyond 5, a
	// fourth team, a chosen expert out of range).
	Notes []string `json:"notes,omitempty"`
}

// Message is one message of the intermediate discussion.
type Message struct {
	Round  int    `json:"round"`
	Turn   int    `json:"turn"`
	From   int    `json:"from"` // 1-based expert numbers
	To     int    `json:"to"`
	Answer string `json:"answer,omitempty"` // the option the message argues for ("" unread)
}
