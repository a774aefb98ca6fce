package cli

import (
	"io"
)

// Factory holds what every command shares: where output goes, the channel
// closed by the first interrupt, and the command line as given (recorded,
// scrubbed of secrets, in the lock file and the manifest).
type Factory struct {
	Out, Err io.Writer
	Stop     <-chan struct{}
	Argv     []string
}
