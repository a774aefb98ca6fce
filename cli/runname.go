package cli

import "fmt"

// maxRunName is the longest --run-name accepted.
const maxRunName = 128

// checkRunName checks a --run-name: one path segment of letters, digits,
// '.', '_' and '-', not starting with '.' or '-' (so never "." or "..",
// a hidden directory or something read as a flag), at most maxRunName
// bytes. "" (the default name) is accepted. Anything else could put the run
// outside --out or make a name a terminal or shell would misread.
func checkRunName(name string) error {
	if name == "" {
		return nil
	}
	if len(name) > maxRunName {
		return usagef("--run-name: %d bytes; give at most %d", len(name), maxRunName)
	}
	for i, c := range []byte(name) {
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			(c == '.' || c == '-') && i > 0
		if !safe {
			return usagef("--run-name %s: byte %d (%s) is not allowed; give one directory name of letters, digits, '.', '_' and '-' that does not start with '.' or '-', e.g. pilot-2026.1",
				fmt.Sprintf("%q", name), i+1, fmt.Sprintf("%q", string(c)))
		}
	}
	return nil
}
