// Package textdiff writes the unified diff of two texts, line by line, the
// way diff -u does (three lines of context, "@@ -a,n +b,m @@" hunks): what
// plan --native shows of a switch's configuration and what the switch
// simulators print for a configuration session's diff.
package textdiff
