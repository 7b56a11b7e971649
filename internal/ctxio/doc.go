// Package ctxio makes blocking reads and opens give way to a context: a
// command waiting on stdin, a terminal's answer or a named pipe returns as
// soon as its context is cancelled (the first Ctrl-C or SIGTERM) instead of
// waiting for input that may never come.
//
//	r := ctxio.NewReader(ctx, os.Stdin)
//	line, err := bufio.NewReader(r).ReadString('\n') // ctx.Err() once cancelled
//	f, err := ctxio.Open(ctx, "/path/to/fifo")       // likewise while open blocks
//
// Confirm asks a yes/no question on a terminal the same way (and refuses to
// guess when stdin is not one); IsTerminal tells a terminal from a file.
//
// The blocked read or open goes on in a goroutine until it returns; its
// result is kept for the next Read, so nothing is lost when the context is
// still live. A Reader is not safe for concurrent use (neither is its
// underlying reader); Open, Confirm and IsTerminal are (Confirm reads only
// the reader it is given).
package ctxio
