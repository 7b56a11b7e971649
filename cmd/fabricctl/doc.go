// Command fabricctl configures and validates RDMA fabrics (RoCE v2 over lossless
// Ethernet, and InfiniBand) from one YAML description.
//
// This package only wires: it parses flags with cobra, builds the pieces from
// fabric/, hostcfg/, switchcfg/ and checks/ — targets through action/fleet,
// renderings through action/render, the drivers from switchcfg/all — and
// maps their results to output and exit codes (DESIGN.md §3). stdout carries
// results; logs go to stderr.
//
// Each command lives in its own file and is listed once in commands() in root.go;
// help.go gives every command its help examples, hides the internal commands
// (agent, task, switch-sim: run by fabricctl itself, its lab and launchers)
// and wraps help at 120 columns.
package main
