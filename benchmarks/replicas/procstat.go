package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// processCPU is the user and system CPU that process pid has used, from /proc/<pid>/stat; 0 for a
// process that is gone.
func processCPU(pid int) time.Duration {
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
	return time.Duration(utime+stime) * clockTick
}

// listener is the process listening on TCP port of the loopback or any address: its socket's
// inode from /proc/net/tcp{,6}, then the process holding that socket.
func listener(port int) (int, error) {
	inodes := map[string]bool{}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			// local_address is HEXIP:HEXPORT, st 0A is LISTEN, the inode is the tenth field.
			if len(fs) < 10 || fs[3] != "0A" {
				continue
			}
			if _, p, ok := strings.Cut(fs[1], ":"); ok {
				if n, err := strconv.ParseInt(p, 16, 32); err == nil && int(n) == port {
					inodes["socket:["+fs[9]+"]"] = true
				}
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("nothing listens on port %d", port)
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && inodes[link] {
			return strconv.Atoi(strings.Split(fd, "/")[2])
		}
	}
	return 0, fmt.Errorf("the process listening on port %d is not visible here", port)
}
