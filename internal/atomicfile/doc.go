// Package atomicfile writes files so that a reader sees either the old
// content or the whole new content, never part of it, and does so cheaply
// enough to write thousands of files (one per fabric target) at once.
//
// On Linux a file that does not exist yet is written as an unnamed O_TMPFILE
// and linked into place when complete: one directory operation instead of
// the create-then-rename pair. A file that exists is replaced through a
// temporary name and rename(2), as it is on every other system.
//
// WriteTree writes a set of files under a directory. A new (or empty)
// directory is built beside its place and renamed there, so the whole tree
// appears at once; files in an existing directory are replaced one by one
// with WriteFile.
//
// A Tree holds its staging directory locked (flock) while it lives; the
// kernel drops the lock when the process dies, however it dies. A new Tree
// for the same directory removes the staging directories that nobody holds
// locked: those of runs that were killed.
package atomicfile
