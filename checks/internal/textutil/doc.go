// Package textutil cleans text that tools print before the checks' parsers
// read it: StripANSI removes terminal escape sequences, which some tools
// (nvidia-smi topo -m on recent drivers) write even when stdout is not a
// terminal and TERM=dumb.
//
//	line = textutil.StripANSI(line)
//
// Safe for concurrent use.
package textutil
