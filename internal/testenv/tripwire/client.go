package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clientOf names the local process that opened c, and its parent, from
// Linux's /proc (a test binary such as e2e.test, or the superbiz binary a
// test started): on a machine shared by several test runs this says whose
// test touched the port. Elsewhere, or when the socket is already gone, it
// says why it cannot tell.
func clientOf(c net.Conn) string {
	remote, ok1 := c.RemoteAddr().(*net.TCPAddr)
	local, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return "client unknown: not TCP"
	}
	inode, err := socketInode(remote.Port, local.Port)
	if err != nil {
		return "client unknown: " + err.Error()
	}
	pid, err := socketOwner(inode)
	if err != nil {
		return "client unknown: " + err.Error()
	}
	desc := describe(pid)
	if ppid, err := parentOf(pid); err == nil && ppid > 1 {
		desc += " (parent " + describe(ppid) + ")"
	}
	return desc
}

// socketInode finds the inode of the socket whose local port is from and
// remote port is to, in /proc/net/tcp and tcp6.
func socketInode(from, to int) (string, error) {
	want := fmt.Sprintf(":%04X", from)
	wantRemote := fmt.Sprintf(":%04X", to)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			if strings.HasSuffix(fields[1], want) && strings.HasSuffix(fields[2], wantRemote) {
				f.Close()
				return fields[9], nil
			}
		}
		f.Close()
	}
	return "", fmt.Errorf("no socket from port %d to %d in /proc/net/tcp{,6}", from, to)
}

// socketOwner finds the process holding socket inode among /proc/PID/fd.
func socketOwner(inode string) (int, error) {
	target := "socket:[" + inode + "]"
	fds, err := filepath.Glob("/proc/[0-9]*/fd/*")
	if err != nil {
		return 0, fmt.Errorf("list /proc/*/fd: %w", err)
	}
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && link == target {
			pid, err := strconv.Atoi(strings.Split(fd, "/")[2])
			if err != nil {
				return 0, fmt.Errorf("pid of %s: %w", fd, err)
			}
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no process holds socket %s", inode)
}

// describe is "pid N in DIR: command line", the command line cut to 160
// bytes; the directory tells a package's test binary (go test runs it in the
// package's directory) and whose checkout it belongs to.
func describe(pid int) string {
	d := fmt.Sprintf("pid %d", pid)
	if dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil {
		d += " in " + dir
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return d
	}
	cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(cmd) > 160 {
		cmd = cmd[:160] + "…"
	}
	return d + ": " + cmd
}

// parentOf reads the parent pid from /proc/PID/stat (the field after the
// parenthesised command name, which may itself hold spaces).
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read stat of %d: %w", pid, err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat of %d has no command name", pid)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, fmt.Errorf("stat of %d is short", pid)
	}
	return strconv.Atoi(fields[1])
}
