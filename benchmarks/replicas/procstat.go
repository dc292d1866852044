package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

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
