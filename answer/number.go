package answer

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Numbers as models write them: "0.8", "85%", "7/10", "three".

// NumKind is the unit a number was written with.
type NumKind int

// The units of a number.
const (
	NumPlain    NumKind = iota // a bare number: "0.8", "85"
	NumPercent                 // "85%", "85 percent": the number is 85
	NumFraction                // "7/10": the number is the quotient, 0.7
)

var reLeadNum = regexp.MustCompile(`^[\s*_"'\x60(\[~≈]*([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:\s*(%|(?i:percent|per\s+cent)\b)|\s*/\s*(\d+(?:\.\d+)?)\b)?`)

// LeadNumber reads the number at the start of s (after markup, quotes or
// "~"): "0.8", "85%", "85 percent", "7/10", and its unit.
func LeadNumber(s string) (float64, NumKind, bool) {
	if len(s) > 200 {
		s = s[:200]
	}
	m := reLeadNum.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	x, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, 0, false
	}
	switch {
	case m[2] != "":
		return x, NumPercent, true
	case m[3] != "":
		d, err := strconv.ParseFloat(m[3], 64)
		if err != nil || d <= 0 {
			return 0, 0, false
		}
		return x / d, NumFraction, true
	}
	return x, NumPlain, true
}

// confidence converts a stated confidence (x, kind, ok from LeadNumber or
// RawNumber; raw is what the model wrote, for the note, or "" for x itself)
// by the rule of the package comment: a plain number must lie in [0,1]; a
// percentage or a fraction is converted; anything else is unknown (-1).
// Every value not taken as written is noted.
func (s *Set) confidence(x float64, kind NumKind, ok bool, raw string) float64 {
	if ok && kind == NumPlain && x >= 0 && x <= 1 {
		return x
	}
	raw = asWritten(x, raw)
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		s.note("confidence %q is not a number; recorded as unknown", raw)
		return -1
	}
	switch {
	case kind == NumPercent && (x < 0 || x > 100):
		s.note("confidence %s is outside 0–100%%; recorded as unknown", raw)
		return -1
	case kind == NumPercent:
		s.note("confidence %s is a percentage; read as %s", raw, strconv.FormatFloat(x/100, 'f', -1, 64))
		return x / 100
	case kind == NumFraction && x >= 0 && x <= 1:
		s.note("confidence %s is a fraction; read as %s", raw, strconv.FormatFloat(x, 'f', -1, 64))
		return x
	}
	s.note("confidence %s is outside [0,1]; recorded as unknown", raw)
	return -1
}

// asWritten is a stated number for a note: raw without its outer white
// space and cut at 40 bytes, or x when raw is "".
func asWritten(x float64, raw string) string {
	if raw == "" {
		raw = strconv.FormatFloat(x, 'g', -1, 64)
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > 40 {
		raw = raw[:40] + "…"
	}
	return raw
}

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}

var reFirstNum = regexp.MustCompile(`[+-]?\d+(?:\.\d+)?`)

// IntFromText reads the first whole number of the first line ("3", "agent 2",
// "3 (one per ...)") or a number word at its start ("three").
func IntFromText(s string) (int, bool) {
	s = FirstLine(s)
	if len(s) > 200 {
		s = s[:200]
	}
	if m := reFirstNum.FindString(s); m != "" {
		x, err := strconv.ParseFloat(m, 64)
		if err != nil {
			return 0, false
		}
		return wholeInt(x)
	}
	if n, ok := numberWords[LeadingWord(strings.TrimLeft(s, " \t*_\"'`"))]; ok {
		return n, true
	}
	return 0, false
}

// wholeInt is x as an int when it is a whole number of at most a million.
func wholeInt(x float64) (int, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x) || math.Abs(x) > 1e6 {
		return 0, false
	}
	return int(x), true
}

// BoolFromText reads a yes or a no at the start of s ("yes", "accepted",
// "no", "disagree"; "partially" is no); ok is false for anything else.
func BoolFromText(s string) (b, ok bool) {
	switch LeadingWord(strings.TrimLeft(s, " \t*_\"'`")) {
	case "yes", "y", "true", "accept", "accepts", "accepted", "agree", "agreed", "agrees":
		return true, true
	case "no", "n", "false", "reject", "rejects", "rejected", "disagree", "disagrees", "partially", "partly":
		return false, true
	}
	return false, false
}
