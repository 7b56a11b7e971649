//go:build !unix

package output

import "os"

// terminalWidth is 0 (unlimited) where the width is not read.
func terminalWidth(*os.File) int { return 0 }
