// Package buildinfo says which fabricctl a binary is, from what the Go
// toolchain recorded in it (runtime/debug.BuildInfo) and, when the Makefile
// built it, the version passed with -ldflags "-X main.version=…".
//
//	info := buildinfo.Read(version) // version: the -X value, "dev" without one
//	fmt.Println(info.Version, info.Revision, info.Modified)
//
// Where each answer comes from, first match wins:
//
//   - Version: the -X value (make build: `git describe --always --dirty`);
//     else the module version go install recorded (`go install
//     …/cmd/fabricctl@v1.2.0` → "v1.2.0"; a pseudo-version for a commit);
//     else the VCS revision's first 12 hex digits, with "-dirty" when the
//     work tree had changes (plain `go build` in a git clone); else "dev".
//   - Revision: vcs.revision; else the commit a pseudo-version names; else
//     "unknown".
//
// `go build` stamps vcs.* only in a git work tree whose .git is a directory
// (not in a `git worktree`, whose .git is a file) and when -buildvcs is not
// false (GOFLAGS=-buildvcs=false turns it off).
//
// Everything here is pure except Read, which reads the running binary's
// build information; all of it is safe for concurrent use.
package buildinfo
