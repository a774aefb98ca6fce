package cli

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Stamped by the Makefile's build (-ldflags "-X ...") for builds without
// Go's own VCS stamping (go run, go test, -buildvcs=false, a source copy
// without .git); the build info wins when it has them.
var (
	stampVersion  = ""
	stampRevision = ""
)

// buildVersion is what 'medteam version' says: the module version, the VCS
// revision (with "+dirty" for uncommitted changes) and its time, and the
// Go version, from the build info bi (nil: none) and the -ldflags stamps.
type buildVersion struct {
	Module, Revision, Time, Go string
	Dirty                      bool
}

func versionOf(bi *debug.BuildInfo, ok bool, stampV, stampR string) buildVersion {
	v := buildVersion{Module: "(devel)", Revision: "unknown"}
	if ok && bi != nil {
		v.Go = bi.GoVersion
		if bi.Main.Version != "" {
			v.Module = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Dirty = s.Value == "true"
			}
		}
	}
	if v.Module == "(devel)" && stampV != "" {
		v.Module = stampV
	}
	if v.Revision == "unknown" && stampR != "" {
		v.Revision = strings.TrimSuffix(stampR, "+dirty")
		v.Dirty = v.Dirty || strings.HasSuffix(stampR, "+dirty")
	}
	return v
}

func (v buildVersion) String() string {
	rev := v.Revision
	if v.Dirty {
		rev += "+dirty"
	}
	s := fmt.Sprintf("medteam %s (revision %s", v.Module, rev)
	if v.Time != "" {
		s += ", " + v.Time
	}
	if v.Go != "" {
		s += ", " + v.Go
	}
	return s + ")"
}

func currentVersion() buildVersion {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok, stampVersion, stampRevision)
}

// newVersionCmd builds 'medteam version'.
func newVersionCmd(w io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print medteam's module version and VCS revision (also: medteam --version)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(w, currentVersion())
			return err
		},
	}
}
