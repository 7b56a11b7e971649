// Package kfs reads and writes kernel attribute files (sysfs, debugfs,
// configfs) the way echo and cat do: one value per file, one write(2) per
// value, never creating a file. sysfs, debugfs and configfs build their
// typed APIs on it. Its functions hold no state and are safe for concurrent use.
package kfs
