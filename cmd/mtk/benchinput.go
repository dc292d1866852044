package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// The limits of what `mtk bench` reads and sends (CONTRACT "Hostile input, second pass"): a
// query body is small, a report is a few cells, and a laptop cannot hold more callers or a
// faster schedule than these anyway.
const (
	maxBodyFile     = 1 << 20
	maxCompareFile  = 64 << 20
	maxBenchClients = 10000
	maxBenchRate    = 100000
)

// readRegular reads the regular file name, refusing at once anything else (a device such as
// /dev/zero, a FIFO, a directory) and a file over max bytes: bench must never read forever,
// block on a FIFO without a writer, or hold an endless file. what names the flag in messages.
func readRegular(what, name string, max int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file (%s); give a file", what, name, info.Mode().Type())
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s %s: %d bytes, at most %d", what, name, info.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	if int64(len(b)) > max { // it grew while read
		return nil, fmt.Errorf("%s %s: more than %d bytes", what, name, max)
	}
	return b, nil
}

// benchStopped is the end of a run that a signal stopped: exit status 2, as for a usage error,
// so that a script tells it from a run whose figures failed.
type benchStopped struct{ cells int }

func (e benchStopped) Error() string {
	return fmt.Sprintf("stopped by SIGINT or SIGTERM after %d finished cells (their figures are printed)", e.cells)
}
