//go:build unix

package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth is the width of the terminal f, 0 when it cannot be read.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
