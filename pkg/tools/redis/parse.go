package redis

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Parsers of the text answers Redis gives (INFO, CLIENT LIST, CLUSTER
// NODES, a slowlog entry's arguments): outside input, fuzzed in
// fuzz_test.go. Each bounds what it keeps.
const (
	// maxInfoLines bounds the lines of one INFO answer read.
	maxInfoLines = 4096
	// maxClients bounds the CLIENT LIST lines read.
	maxClients = 100000
	// maxFieldBytes cuts every value a result shows.
	maxFieldBytes = 200
)

// parseInfo reads an INFO answer into sections ("# Memory" → "memory") of
// key → value.
func parseInfo(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	section := ""
	for i, line := range strings.Split(text, "\n") {
		if i >= maxInfoLines {
			break
		}
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "#") {
			section = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(line, "#")))
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" {
			continue
		}
		if out[section] == nil {
			out[section] = map[string]string{}
		}
		out[section][k] = v
	}
	return out
}

// parseFields reads "k=v k2=v2" (a CLIENT LIST line) or "k=v,k2=v2" (a
// commandstat) into a map; sep is ' ' or ','.
func parseFields(line string, sep byte) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Split(line, string(sep)) {
		if k, v, ok := strings.Cut(f, "="); ok && k != "" {
			out[k] = v
		}
	}
	return out
}

// CommandStat is one command's line of INFO commandstats.
type CommandStat struct {
	Command       string  `json:"command"`
	Calls         int64   `json:"calls"`
	Usec          int64   `json:"usec"`
	UsecPerCall   float64 `json:"usec_per_call"`
	RejectedCalls int64   `json:"rejected_calls"`
	FailedCalls   int64   `json:"failed_calls"`
}

// commandStats reads the commandstats section, the most time-consuming
// command first.
func commandStats(section map[string]string) []CommandStat {
	var out []CommandStat
	for k, v := range section {
		name, ok := strings.CutPrefix(k, "cmdstat_")
		if !ok {
			continue
		}
		f := parseFields(v, ',')
		out = append(out, CommandStat{
			Command: clip(name), Calls: atoi(f["calls"]), Usec: atoi(f["usec"]), UsecPerCall: atof(f["usec_per_call"]),
			RejectedCalls: atoi(f["rejected_calls"]), FailedCalls: atoi(f["failed_calls"]),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Usec != out[j].Usec {
			return out[i].Usec > out[j].Usec
		}
		return out[i].Command < out[j].Command
	})
	return out
}

// moreArgs is the placeholder Redis puts last in a slowlog entry that has
// more than 32 arguments.
var moreArgs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.\.\. \((\d+) more arguments\)$`) })

// argCount is how many arguments a slowlog entry's command had after its
// name: args holds the name first and at most 32 arguments, the last one
// replaced by "... (N more arguments)" when there were more; argc, when
// the server gives it (Redis 8.10), is the total including the name.
func argCount(args []string, argc int64) int {
	if argc > 0 {
		return int(argc) - 1
	}
	if len(args) == 0 {
		return 0
	}
	n := len(args) - 1
	if m := moreArgs().FindStringSubmatch(args[len(args)-1]); m != nil && len(args) > 1 {
		more, err := strconv.Atoi(m[1])
		if err == nil && more >= 0 {
			n = len(args) - 2 + more
		}
	}
	return n
}

// containers are the commands whose first argument names a subcommand
// (CONFIG SET, CLIENT KILL): the slowlog shows "config|set", never a value.
var containers = map[string]bool{
	"acl": true, "client": true, "cluster": true, "command": true, "config": true, "debug": true, "function": true,
	"latency": true, "memory": true, "module": true, "object": true, "pubsub": true, "script": true, "slowlog": true,
	"xgroup": true, "xinfo": true,
}

// subcommand is the shape of a subcommand name.
var subcommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z-]{0,31}$`) })

// unreadableCommand is the name shown for a command whose name is not one.
const unreadableCommand = "(unreadable)"

// commandName is a slowlog entry's command as "get" or "config|set": the
// name, and the subcommand of a container command; never an argument.
func commandName(args []string) string {
	if len(args) == 0 {
		return ""
	}
	name := strings.ToLower(args[0])
	if !subcommand().MatchString(name) {
		return unreadableCommand
	}
	if containers[name] && len(args) > 1 && subcommand().MatchString(args[1]) && !moreArgs().MatchString(args[1]) {
		name += "|" + strings.ToLower(args[1])
	}
	return name
}

// ClusterNode is one line of CLUSTER NODES.
type ClusterNode struct {
	ID       string `json:"id"`
	Addr     string `json:"addr"`
	Flags    string `json:"flags"`
	MasterID string `json:"master_id,omitempty"`
	Link     string `json:"link"`
	Slots    string `json:"slots,omitempty"`
}

// parseClusterNodes reads CLUSTER NODES: id, address (ip:port@bus[,host]),
// flags, master, ping, pong, epoch, link state, slots.
func parseClusterNodes(text string) []ClusterNode {
	var out []ClusterNode
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || len(out) >= maxNodes {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		n := ClusterNode{ID: clip(f[0]), Addr: clip(addr), Flags: clip(f[2]), Link: clip(f[7])}
		if f[3] != "-" {
			n.MasterID = clip(f[3])
		}
		if len(f) > 8 {
			n.Slots = clip(strings.Join(f[8:], " "))
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// clip cuts a value a result shows to maxFieldBytes.
func clip(s string) string {
	if len(s) <= maxFieldBytes {
		return s
	}
	cut := maxFieldBytes
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // never inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// atoi reads an integer field, 0 when it is none.
func atoi(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64) // a missing field counts 0
	return n
}

// atof reads a number field, 0 when it is none.
func atof(s string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(s), 64) // a missing field counts 0
	return f
}
