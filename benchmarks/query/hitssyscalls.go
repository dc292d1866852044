package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// syscallEvents are the server's system calls that -hits-syscalls counts during the HTTP run
// (perf's tracepoints): every one, then those a hit was seen to make.
var syscallEvents = []struct{ name, event string }{
	{"all", "raw_syscalls:sys_enter"},
	{"read", "syscalls:sys_enter_read"},
	{"write", "syscalls:sys_enter_write"},
	{"epoll_pwait", "syscalls:sys_enter_epoll_pwait"},
	{"futex", "syscalls:sys_enter_futex"},
	{"nanosleep", "syscalls:sys_enter_nanosleep"},
	{"sched_yield", "syscalls:sys_enter_sched_yield"},
}

// perfStatArgs are the arguments of `perf stat` that count syscallEvents in process pid for as
// long as the command that follows them runs, writing the counts as CSV to out.
func perfStatArgs(pid int, out string) []string {
	events := make([]string, len(syscallEvents))
	for i, e := range syscallEvents {
		events[i] = e.event
	}
	return []string{"stat", "-x,", "-o", out, "-e", strings.Join(events, ","), "-p", strconv.Itoa(pid), "--"}
}

// readPerfStat reads the counts perf stat wrote to path, by syscallEvents' names.
func readPerfStat(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := make(map[string]string, len(syscallEvents))
	for _, e := range syscallEvents {
		names[e.event] = e.name
	}
	counts := make(map[string]int64, len(syscallEvents))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// count,unit,event,run time,enabled %,...; comments and blank lines between.
		cols := strings.Split(sc.Text(), ",")
		if len(cols) < 3 || strings.HasPrefix(cols[0], "#") {
			continue
		}
		if name, ok := names[cols[2]]; ok {
			n, err := strconv.ParseInt(cols[0], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("perf stat's count of %s: %q", cols[2], cols[0])
			}
			counts[name] = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(counts) != len(syscallEvents) {
		return nil, fmt.Errorf("perf stat counted %d of %d events (%s)", len(counts), len(syscallEvents), path)
	}
	return counts, nil
}
