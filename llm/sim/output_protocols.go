package sim

// appendField adds a field to an answer written by the core's writers: a
// member value before the closing brace of a JSON object (when b ends with
// one), else a labelled line "label: value".
func appendField(b []byte, name, label string, value []byte, asJSON bool) []byte {
	if asJSON {
		if n := len(b); n > 0 && b[n-1] == '}' {
			b = appendQuoted(append(b[:n-1], ','), name)
			b = append(append(b, ':'), value...)
			return append(b, '}')
		}
		return b
	}
	b = append(append(append(b, '\n'), label...), ": "...)
	return append(b, value...)
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
