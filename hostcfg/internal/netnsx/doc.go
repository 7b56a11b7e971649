// Package netnsx runs a function inside another network namespace.
//
// Sockets keep the namespace they were created in, so a backend opens its
// socket through Do and then uses it from any goroutine. Do is safe for
// concurrent use: each call gets its own throw-away OS thread.
package netnsx
