// Package infile reads the files a user names on the command line or
// places in a --from-dir tree, the same careful way for every command:
//
//   - only regular files are read: a directory, named pipe (FIFO), device or
//     socket is refused at once, without blocking on it (the open is
//     non-blocking, the type is checked on the opened file);
//   - a size budget is checked before reading, from the file's size, and
//     again while reading, so that a file that grows, or one whose size the
//     kernel does not know (/proc), never makes fabricctl read past it;
//   - reading gives way to the context (--timeout, the first Ctrl-C or
//     SIGTERM) between reads (standard input, whose reads may block, is
//     wrapped by the caller with ctxio.NewReader);
//   - in a directory tree (Dir), a symbolic link is followed only where it
//     stays inside the tree: one that leads out of it (to /dev/zero, /etc) is
//     refused like a special file.
//
// Every refusal wraps one of ErrNotRegular, ErrTooLarge or ErrOutside, so
// that a caller tells them apart with errors.Is, and names the path once:
//
//	data, err := infile.ReadFile(ctx, "leaf-01.cfg", infile.MaxCapture)
//	// "leaf-01.cfg: is a named pipe (FIFO), not a regular file"
//
//	d, err := infile.OpenDir("captures", 16<<20)
//	err = fs.WalkDir(d, ".", ...)   // d is an fs.FS; d.ReadFile is budgeted
package infile
