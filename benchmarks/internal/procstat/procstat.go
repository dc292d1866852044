// Package procstat reads another process's CPU from /proc, for the benchmarks that count what a
// store's or a server's processes spend per unit of work.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ClockTick is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on Linux).
const ClockTick = 10 * time.Millisecond

// CPU is the user and system CPU that process pid has used, from /proc/<pid>/stat; 0 for a
// process that is gone.
func CPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command (field 2) is in parentheses and may hold spaces: count from its end.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * ClockTick
}
