package medagents

// Details is medagents' record (protocol_json).
type Details struct {
	Method string `json:"method"`
	Rule   string `json:"rule"`
	// The gathered domains (exactly qd and od, padded with General
	// Medicine when a reply named fewer) and how many each reply named.
	QuestionDomains     []string `json:"question_domains"`
	OptionDomains       []string `json:"option_domains"`
	QuestionDomainsRead int      `json:"question_domains_read"`
	OptionDomainsRead   int      `json:"option_domains_read"`
	// Rounds are the consultation rounds (syn_verif): each expert's vote.
	Rounds []Round `json:"rounds"`
	// Consensus is true when the last round's votes had no "no" (the
	// consultation ended before its round limit, or at it).
	Consensus   bool `json:"consensus"`
	Advice      int  `json:"advice"`       // advice calls (one per "no")
	Revisions   int  `json:"revisions"`    // revision calls (= revision_rounds)
	UnreadVotes int  `json:"unread_votes"` // votes read as neither yes nor no (counted as yes)
	// The decision: the option read ("" when unreadable), how it was read,
	// and why not.
	FinalAnswer string `json:"final_answer"`
	FinalParse  string `json:"final_parse"`
	FinalReason string `json:"final_reason,omitempty"`
	Calls       int    `json:"calls"` // the calls this question made
}

// Round is one consultation round.
type Round struct {
	Round int `json:"round"`
	// Votes holds each expert's vote, question domains first: yes, no or
	// unread (counted as yes, as the reference code does).
	Votes   []string `json:"votes"`
	No      int      `json:"no"`
	Unread  int      `json:"unread"`
	Revised bool     `json:"revised"` // the report was revised after the votes
}
