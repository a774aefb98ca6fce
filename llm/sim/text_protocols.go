package sim

// Sentences of the kinds of protocols/. As everywhere, they contain no
// single-letter word but the letters written into them, no semicolon, no
// quote, and no quality cue.

// Two-letter sentences of the chairman: %1 the choice, %2 the alternative.
var chairSentences = [...][3]string{
	{"Under the directive the council should answer ", " rather than ", "."},
	{"Weighing the peer evaluations, ", " is preferred to ", "."},
}

// A review's strength names the reviewed answer's first choice.
var reviewStrengths = [...][2]string{
	{"The case for ", " is clearly argued."},
	{"It weighs the findings behind ", " with care."},
}

// A review's weakness, by the tier of the perceived quality (worst first).
var reviewWeaknesses = [nTiers]string{
	"The key findings are left unexplained.",
	"Findings that do not fit are skipped over.",
	"The main alternative could be addressed more directly.",
	"The argument could be more concise.",
	"Nothing important is missing.",
}

// What a chairman says of a contributor.
var contribReasons = [...]string{
	"Proposed the answer with well reviewed reasoning",
	"Backed the answer the council adopted",
}
