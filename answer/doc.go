// Package answer reads a model's answer to a multiple-choice question. Parse
// turns one reply into a ranking of the question's options (best first), a
// confidence, the reasoning and the facts it states, and records how the
// answer was read (Method). The reply may be the JSON object the answer
// schema asks for (whole, fenced, embedded in prose, or cut off), the
// labelled plain-text lines of teamwork/FORMATS.md, or free text, whichever
// the model wrote.
//
// Nothing here ever guesses. An answer that cannot be read, or that commits
// to different options without a clear conclusion, is an abstention with a
// reason code (Answer.Reason, one of the Reason constants) and a sentence
// (Answer.Err), never a default letter.
//
// Letters are only ever the question's own option letters, read by letterOf
// and readLetter, which refuse a letter that is the start of a word and treat
// the capitals "A" and "I" (an article and a pronoun in English prose) as
// letters only when what follows them cannot be prose. A letter given with
// another option's text ("B) Ceftriaxone" when ceftriaxone is C, as after
// --shuffle-options) names no known option: a ranking stops before it and a
// commitment to it is ambiguous. Full-width forms ("Ａ", "：") are read as
// their ASCII letters and marks.
//
// Structured answers are authoritative: a JSON ranking (an array, a "B > A"
// string, or an object mapping positions to letters or letters to ranks), a
// RANKING line, a list under a RANKING header, a line that is only a chain of
// options, or a markdown table with a rank and an option column (but a list
// of the options in their own order without a RANKING label is a
// restatement of the question, not a ranking, and a numbered list without
// a RANKING label yields to an explicit answer statement that names
// another option or several: see Real replies). Free text is read carefully
// (commit.go): only explicit commitments count, negated or excluded options
// ("B is not indicated", "rather than B", "A and D can be excluded") are not
// commitments, and two commitments to different options without a clear
// conclusion ("final answer", "in conclusion", a revision such as "on
// reflection") are an abstention with reason "ambiguous", never a guess.
//
// # Real replies
//
// What real models write (measured on 27,277 published replies, see
// answer/testdata/realoutputs_labels.md and TestRealOutputs): a base model
// that answers and then writes invented "Question: …" blocks, or a chat
// model that goes on to "summarize all the answers", is read up to that
// continuation (continuation.go); a sentence or a few sentences repeated in
// a loop are read once; a bulleted list of options is an enumeration, not a
// ranking (only a numbered list or a RANKING label ranks); a numbered list
// of facts or option texts ("1. Growth hormone 2. Prolactin …") beside an
// explicit answer statement is no ranking when the statement names another
// option ("The answer is (F)." → F) or several ("The answer is (H), (I),
// (J)." → ambiguous): the statement outranks the list (a list it agrees
// with stays the ranking); an answer statement whose sentence closes the
// reply with a paraphrase ending in an option in parentheses ("the most
// appropriate next step would be to perform a lumbar puncture (option
// A).") names that option, unless the words before the option negate it,
// set a condition, name another letter or alternatives ("or", "rather
// than"); an answer line that closes the reply settles rival picks,
// per-option verdicts ("E is correct") and options named by their text in the reasoning, but not a
// rival answer statement naming another letter; "a combination of (C), (F)
// and (I)" and "none of the options is correct" commit to no option. A reply
// cut off at its token limit (MarkCut, finish reason "length") or in the
// middle of a sentence is read only from its answer statements
// (truncation.go): never a letter from the middle of its reasoning. A refusal and a reply stopped by the
// content filter (MarkReply) abstain with reasons refusal and
// content_filter, whatever their text.
//
// # Notes
//
// What a reading does not take as written is recorded as a note, one short
// sentence each, never silently dropped or rescaled:
//   - a letter that is not one of the options is ignored, with a note; an
//     authoritative answer (the JSON answer, the RANKING line) that names
//     only such letters is an abstention (not_an_option), not a fallback to
//     the reasoning;
//   - an element whose letter and text disagree, and a ranking object giving
//     two options the same rank, are noted;
//   - a structured ranking whose text states another first choice ("the
//     final answer is A" beside a ranking led by C) is used, with a note;
//   - a confidence must be a number in [0,1]. A bare number outside it (85,
//     1.7, -0.2) is not rescaled, because 85 may be a percentage, a score out
//     of 100 or a slip: it is recorded as unknown (-1) with a note, as is a
//     word ("high"). An explicit percentage ("85%", "85 percent") or fraction
//     ("7/10") has its unit and is converted, with a note saying so.
//
// The notes of one reading are kept by its Set (the options the reply may
// name) and returned with what was read: Answer.Notes for Parse, Set.Notes
// for the parsers built on a Set.
//
// # Other replies
//
// The parsers of other replies (package teamwork's recruiter and leader
// kinds) are built on the same reading, exported for them: the JSON object
// of a reply (DecodeObject, Object and the Raw readers, ExtractJSON),
// labelled lines (Prepare, Sections, SplitItems), numbers (LeadNumber,
// IntFromText, BoolFromText), and the options a reply may name, with the
// notes of its reading (Set: NewSet, TiedSet, and its Letter, ReadLead, One
// and Read). The package imports only the standard library.
package answer
