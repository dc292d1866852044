package main

import (
	"syscall"
	"time"
)

// usage is what getrusage tells of this process: CPU time in user space and in the kernel (system
// calls, and the network stack's work done on their behalf), and context switches.
type usage struct {
	user, sys time.Duration
	// switches are voluntary (a thread that blocked: epoll_wait, a futex) and involuntary ones.
	switches int64
}

// processUsage is this process's usage so far (zero if getrusage fails).
func processUsage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	return usage{user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()), switches: ru.Nvcsw + ru.Nivcsw}
}

// since is what the process used between u0 and u.
func (u usage) since(u0 usage) usage {
	return usage{user: u.user - u0.user, sys: u.sys - u0.sys, switches: u.switches - u0.switches}
}

// cpu is the CPU time, user and system together.
func (u usage) cpu() time.Duration { return u.user + u.sys }

// processCPU is the CPU time (user and system) this process used so far.
func processCPU() time.Duration { return processUsage().cpu() }
