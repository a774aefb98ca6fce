package sim

import "strconv"

// The answers of the kinds of protocols/ (protocols/FORMATS.md), as JSON
// (Schema set) or labelled lines.

// protocolJSON writes the answer of a kind of protocols/ as JSON.
func (c *call) protocolJSON(b []byte, a *answer) []byte {
	switch a.mech {
	case mechFirst:
		b = c.rankedJSON(b, a)
		if !a.hasVeto {
			return b
		}
		b = b[:len(b)-1] // reopen the object
		b = append(b, `,"risk":`...)
		b = strconv.AppendFloat(b, a.risk, 'f', 2, 64)
		b = append(b, `,"veto":`...)
		b = strconv.AppendBool(b, a.veto)
		return append(b, '}')
	}
	return b
}

// protocolPlain writes the answer of a kind of protocols/ as labelled lines.
func (c *call) protocolPlain(b []byte, a *answer) []byte {
	switch a.mech {
	case mechFirst:
		b = c.rankedPlain(b, a)
		if !a.hasVeto {
			return b
		}
		b = append(b, "\nRISK: "...)
		b = strconv.AppendFloat(b, a.risk, 'f', 2, 64)
		b = append(b, "\nVETO: "...)
		return append(b, yesNo(a.veto)...)
	}
	return b
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
