package netnsx

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Do runs fn on a fresh OS thread that has entered the network namespace
// whose handle is at nsPath (/run/netns/NAME, /proc/PID/ns/net). With an
// empty nsPath fn runs in the caller's namespace. The thread is never given
// back to the scheduler, so the changed namespace cannot leak.
func Do(nsPath string, fn func() error) error {
	if nsPath == "" {
		return fn()
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		fd, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			done <- fmt.Errorf("opening network namespace %s: %w", nsPath, err)
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("entering network namespace %s: %w", nsPath, err)
			return
		}
		done <- fn()
	}()
	return <-done
}
