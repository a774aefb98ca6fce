package sim

import "strconv"

// writeFirst writes the shared first answer (protocols/FORMATS.md) as JSON
// (Schema set) or labelled lines: a ranked answer, and the risk and veto
// flag when the request asked for them.
func (c *call) writeFirst(b []byte, a *answer, asJSON bool) []byte {
	if asJSON {
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
	b = c.rankedPlain(b, a)
	if !a.hasVeto {
		return b
	}
	b = append(b, "\nRISK: "...)
	b = strconv.AppendFloat(b, a.risk, 'f', 2, 64)
	b = append(b, "\nVETO: "...)
	return append(b, yesNo(a.veto)...)
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
