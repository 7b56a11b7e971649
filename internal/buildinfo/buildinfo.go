package buildinfo

import (
	"regexp"
	"runtime/debug"
)

// Info identifies a build.
type Info struct {
	// Version is what `fabricctl version` prints first.
	Version string `json:"version"`
	// Revision is the full VCS commit, or "unknown".
	Revision string `json:"revision"`
	// Modified is set when the work tree had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// Time is the commit time (RFC 3339) when recorded.
	Time string `json:"time,omitempty"`
}

// Unknown is the Revision of a build that recorded none.
const Unknown = "unknown"

// Dev is the Version of a build that recorded nothing at all.
const Dev = "dev"

// pseudoRev finds the commit in a pseudo-version
// (v0.0.0-20260102150405-abcdef123456, v1.2.4-0.20260102150405-abcdef123456).
var pseudoRev = regexp.MustCompile(`(?:^|[-.])\d{14}-([0-9a-f]{12})(?:\+dirty)?$`)

// From resolves a build's identity from the -X version (ldVersion, "" or
// Dev when none was given) and the toolchain's build information (nil when
// the binary has none).
func From(ldVersion string, bi *debug.BuildInfo) Info {
	info := Info{Version: ldVersion, Revision: Unknown}
	var modVersion string
	if bi != nil {
		modVersion = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			case "vcs.time":
				info.Time = s.Value
			}
		}
	}
	if modVersion == "(devel)" {
		modVersion = ""
	}
	if info.Revision == Unknown {
		if m := pseudoRev.FindStringSubmatch(modVersion); m != nil {
			info.Revision = m[1]
		}
	}
	if info.Version != "" && info.Version != Dev {
		return info
	}
	switch {
	case modVersion != "":
		info.Version = modVersion
	case info.Revision != Unknown:
		info.Version = info.Revision[:min(12, len(info.Revision))]
		if info.Modified {
			info.Version += "-dirty"
		}
	default:
		info.Version = Dev
	}
	return info
}

// Read resolves the running binary's identity.
func Read(ldVersion string) Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return From(ldVersion, bi)
}
