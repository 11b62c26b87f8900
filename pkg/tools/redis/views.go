package redis

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// The views of query_redis (docs/SPEC.md#query_redis): fixed read-only
// commands, never a free-form one, never CONFIG GET (it returns
// requirepass and masterauth in clear).
const (
	ViewInfo    = "info"
	ViewSlowlog = "slowlog"
	ViewLatency = "latency"
	ViewClients = "clients"
	ViewMemory  = "memory"
	ViewCluster = "cluster"
)

// Views lists the views in the order the schema gives them.
var Views = []string{ViewInfo, ViewSlowlog, ViewLatency, ViewClients, ViewMemory, ViewCluster}

// Bounds of one node's answer.
const (
	// slowlogRead is how many slowlog entries are asked for (SLOWLOG GET).
	slowlogRead = 128
	// maxListed bounds each list a node's answer shows before the byte
	// cap shrinks it further.
	maxListed = 20
	// maxNodes bounds the nodes of CLUSTER NODES listed.
	maxNodes = 64
	// maxDoctor cuts LATENCY DOCTOR's text.
	maxDoctor = 1500
	// maxMemoryKeys bounds the members of MEMORY STATS shown.
	maxMemoryKeys = 64
)

// The sentences a view says where the server cannot give what it is asked.
const (
	latencyDisabled = "latency monitoring is disabled (latency-monitor-threshold 0): latency is unknown, not healthy"
	slowlogNote     = "the slowlog keeps commands slower than slowlog-log-slower-than, which is not read (it needs CONFIG GET); arguments are never shown, only their count"
	clusterDisabled = "cluster support is disabled: a standalone server"
)

// infoKeys are the INFO fields a view shows per section; a key ending in
// "*" is a prefix. keyspace and errorstats show every line.
var infoKeys = map[string][]string{
	"server":      {"redis_version", "redis_mode", "os", "arch_bits", "uptime_in_seconds", "hz", "run_id"},
	"clients":     {"connected_clients", "blocked_clients", "maxclients", "tracking_clients", "clients_in_timeout_table", "client_recent_max_input_buffer", "client_recent_max_output_buffer"},
	"memory":      {"used_memory", "used_memory_human", "used_memory_rss_human", "used_memory_peak_human", "used_memory_dataset_perc", "maxmemory", "maxmemory_human", "maxmemory_policy", "mem_fragmentation_ratio", "mem_not_counted_for_evict", "total_system_memory_human", "lazyfree_pending_objects"},
	"stats":       {"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec", "rejected_connections", "expired_keys", "evicted_keys", "evicted_clients", "keyspace_hits", "keyspace_misses", "latest_fork_usec", "total_error_replies", "total_blocking_keys", "sync_full", "sync_partial_ok", "sync_partial_err", "instantaneous_input_kbps", "instantaneous_output_kbps", "client_query_buffer_limit_disconnections", "client_output_buffer_limit_disconnections"},
	"replication": {"role", "connected_slaves", "master_host", "master_port", "master_link_status", "master_last_io_seconds_ago", "master_sync_in_progress", "master_link_down_since_seconds", "master_repl_offset", "slave_repl_offset", "slave*"},
	"persistence": {"loading", "async_loading", "rdb_changes_since_last_save", "rdb_bgsave_in_progress", "rdb_last_save_time", "rdb_last_bgsave_status", "rdb_last_bgsave_time_sec", "aof_enabled", "aof_rewrite_in_progress", "aof_last_bgrewrite_status", "aof_last_write_status", "aof_delayed_fsync"},
	"keyspace":    {"*"},
	"errorstats":  {"*"},
}

// infoSections is what the info view asks INFO for.
var infoSections = []string{"server", "clients", "memory", "stats", "replication", "persistence", "keyspace", "errorstats", "commandstats"}

// Info is the info view of one node.
type Info struct {
	Sections map[string]map[string]string `json:"sections"`
	// Commandstats are the most time-consuming commands; CommandsTotal
	// counts the commands INFO listed.
	Commandstats  []CommandStat `json:"commandstats"`
	CommandsTotal int           `json:"commands_total"`
}

// SlowEntry is one slowlog entry: never its arguments, only their count.
type SlowEntry struct {
	ID         int64  `json:"id"`
	Time       string `json:"time"`
	DurationUS int64  `json:"duration_us"`
	Command    string `json:"command"`
	Args       int    `json:"args"`
	Client     string `json:"client,omitempty"`
	ClientName string `json:"client_name,omitempty"`
}

// Slowlog is the slowlog view of one node, newest entry first.
type Slowlog struct {
	Length  int64       `json:"length"`
	Entries []SlowEntry `json:"entries"`
}

// LatencyEvent is one line of LATENCY LATEST.
type LatencyEvent struct {
	Event    string `json:"event"`
	Time     string `json:"time"`
	LatestMS int64  `json:"latest_ms"`
	MaxMS    int64  `json:"max_ms"`
}

// Monitoring states of the latency view.
const (
	MonitoringEnabled  = "enabled"
	MonitoringDisabled = "disabled"
)

// Latency is the latency view of one node.
type Latency struct {
	Monitoring string         `json:"monitoring"`
	Events     []LatencyEvent `json:"events"`
	Doctor     string         `json:"doctor"`
}

// Client is one connection of CLIENT LIST.
type Client struct {
	ID    int64  `json:"id"`
	Addr  string `json:"addr"`
	Name  string `json:"name,omitempty"`
	User  string `json:"user,omitempty"`
	AgeS  int64  `json:"age_s"`
	IdleS int64  `json:"idle_s"`
	Flags string `json:"flags"`
	Cmd   string `json:"cmd"`
	OmemB int64  `json:"omem_bytes"`
	QbufB int64  `json:"qbuf_bytes"`
}

// Clients is the clients view of one node: counts and the connections
// worth a look.
type Clients struct {
	Total   int            `json:"total"`
	ByState map[string]int `json:"by_state"`
	ByUser  map[string]int `json:"by_user"`
	// ByCommand counts the connections by their last command.
	ByCommand     map[string]int `json:"by_command"`
	OldestIdle    []Client       `json:"oldest_idle"`
	LargestOutput []Client       `json:"largest_output,omitempty"`
}

// Cluster is the cluster view: CLUSTER INFO and CLUSTER NODES.
type Cluster struct {
	Enabled bool              `json:"enabled"`
	Info    map[string]string `json:"info,omitempty"`
	Nodes   []ClusterNode     `json:"nodes,omitempty"`
}

// Node is what one server answered for a view.
type Node struct {
	Addr    string         `json:"addr"`
	Info    *Info          `json:"info,omitempty"`
	Slowlog *Slowlog       `json:"slowlog,omitempty"`
	Latency *Latency       `json:"latency,omitempty"`
	Clients *Clients       `json:"clients,omitempty"`
	Memory  map[string]any `json:"memory,omitempty"`
	Cluster *Cluster       `json:"cluster,omitempty"`
	// ClusterNode says a standalone source's server is one node of a
	// cluster: its answer is that node's only.
	ClusterNode bool `json:"cluster_node,omitempty"`
}

// conn is what a view needs of a client: go-redis's typed commands and Do
// for those it has no method for (LATENCY, MEMORY STATS).
type conn interface {
	goredis.Cmdable
	Do(ctx context.Context, args ...any) *goredis.Cmd
}

// read runs view on one server.
func read(ctx context.Context, c conn, view string, node *Node) error {
	switch view {
	case ViewInfo:
		return readInfo(ctx, c, node)
	case ViewSlowlog:
		return readSlowlog(ctx, c, node)
	case ViewLatency:
		return readLatency(ctx, c, node)
	case ViewClients:
		return readClients(ctx, c, node)
	case ViewMemory:
		return readMemory(ctx, c, node)
	case ViewCluster:
		return readCluster(ctx, c, node)
	}
	return fmt.Errorf("unknown view %q", view)
}

// readInfo reads INFO's diagnostic sections, the chosen keys of each.
func readInfo(ctx context.Context, c conn, node *Node) error {
	text, err := c.Info(ctx, infoSections...).Result()
	if err != nil {
		return fmt.Errorf("INFO: %w", err)
	}
	all := parseInfo(text)
	info := &Info{Sections: map[string]map[string]string{}}
	for section, keys := range infoKeys {
		kept := map[string]string{}
		for k, v := range all[section] {
			if keep(keys, k) && len(kept) < maxMemoryKeys {
				kept[clip(k)] = clip(v)
			}
		}
		if len(kept) > 0 {
			info.Sections[section] = kept
		}
	}
	stats := commandStats(all["commandstats"])
	info.CommandsTotal = len(stats)
	info.Commandstats = stats[:min(len(stats), maxListed)]
	node.Info = info
	return nil
}

// keep says whether key is among keys (a "*"-suffixed one is a prefix).
func keep(keys []string, key string) bool {
	for _, k := range keys {
		if p, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(key, p) || k == key {
			return true
		}
	}
	return false
}

// readSlowlog reads SLOWLOG LEN and the newest entries, keeping each
// command's name and argument count, never an argument.
func readSlowlog(ctx context.Context, c conn, node *Node) error {
	n, err := c.SlowLogLen(ctx).Result()
	if err != nil {
		return fmt.Errorf("SLOWLOG LEN: %w", err)
	}
	logs, err := c.SlowLogGet(ctx, slowlogRead).Result()
	if err != nil {
		return fmt.Errorf("SLOWLOG GET: %w", err)
	}
	s := &Slowlog{Length: n, Entries: []SlowEntry{}}
	for _, l := range logs {
		if len(s.Entries) >= maxListed {
			break
		}
		s.Entries = append(s.Entries, SlowEntry{
			ID: l.ID, Time: l.Time.UTC().Format(time.RFC3339), DurationUS: l.Duration.Microseconds(),
			Command: commandName(l.Args), Args: argCount(l.Args, l.CommandArgc),
			Client: clip(l.ClientAddr), ClientName: clip(l.ClientName),
		})
		l.Args = nil
	}
	node.Slowlog = s
	return nil
}

// readLatency reads LATENCY LATEST and LATENCY DOCTOR; DOCTOR tells
// whether monitoring is on at all.
func readLatency(ctx context.Context, c conn, node *Node) error {
	rows, err := c.Do(ctx, "latency", "latest").Slice()
	if err != nil {
		return fmt.Errorf("LATENCY LATEST: %w", err)
	}
	doctor, err := c.Do(ctx, "latency", "doctor").Text()
	if err != nil {
		return fmt.Errorf("LATENCY DOCTOR: %w", err)
	}
	l := &Latency{Monitoring: MonitoringEnabled, Events: []LatencyEvent{}, Doctor: clipTo(strings.TrimSpace(doctor), maxDoctor)}
	if strings.Contains(strings.ToLower(doctor), "monitoring is disabled") {
		l.Monitoring = MonitoringDisabled
	}
	for _, r := range rows {
		f, ok := r.([]any)
		if !ok || len(f) < 4 || len(l.Events) >= maxListed {
			continue
		}
		ev := LatencyEvent{Event: clip(fmt.Sprint(f[0])), LatestMS: number(f[2]), MaxMS: number(f[3])}
		if ts := number(f[1]); ts > 0 {
			ev.Time = time.Unix(ts, 0).UTC().Format(time.RFC3339)
		}
		l.Events = append(l.Events, ev)
	}
	node.Latency = l
	return nil
}

// readClients reads CLIENT LIST into counts and the connections idle the
// longest and holding the most output memory.
func readClients(ctx context.Context, c conn, node *Node) error {
	text, err := c.ClientList(ctx).Result()
	if err != nil {
		return fmt.Errorf("CLIENT LIST: %w", err)
	}
	node.Clients = clientsOf(text)
	return nil
}

// clientsOf summarises a CLIENT LIST answer.
func clientsOf(text string) *Clients {
	out := &Clients{ByState: map[string]int{}, ByUser: map[string]int{}, ByCommand: map[string]int{}, OldestIdle: []Client{}}
	var all []Client
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || i >= maxClients {
			continue
		}
		f := parseFields(line, ' ')
		cl := Client{ID: atoi(f["id"]), Addr: clip(f["addr"]), Name: clip(f["name"]), User: clip(f["user"]),
			AgeS: atoi(f["age"]), IdleS: atoi(f["idle"]), Flags: clip(f["flags"]), Cmd: clip(f["cmd"]),
			OmemB: atoi(f["omem"]), QbufB: atoi(f["qbuf"])}
		out.Total++
		for _, st := range states(cl.Flags) {
			out.ByState[st]++
		}
		if len(out.ByUser) < maxListed || out.ByUser[cl.User] > 0 {
			out.ByUser[cl.User]++
		}
		if len(out.ByCommand) < maxListed || out.ByCommand[cl.Cmd] > 0 {
			out.ByCommand[cl.Cmd]++
		}
		all = append(all, cl)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].IdleS > all[j].IdleS })
	out.OldestIdle = append(out.OldestIdle, all[:min(len(all), 5)]...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].OmemB > all[j].OmemB })
	for _, cl := range all[:min(len(all), 3)] {
		if cl.OmemB > 0 {
			out.LargestOutput = append(out.LargestOutput, cl)
		}
	}
	return out
}

// states names what a CLIENT LIST flags field says of a connection: its
// kind (normal, replica, master, pubsub) and whether it is blocked, in
// MULTI or closing.
func states(flags string) []string {
	kind := "normal"
	switch {
	case strings.Contains(flags, "S"):
		kind = "replica"
	case strings.Contains(flags, "M"):
		kind = "master"
	case strings.Contains(flags, "P"):
		kind = "pubsub"
	}
	out := []string{kind}
	for flag, st := range map[string]string{"b": "blocked", "x": "multi", "A": "closing", "c": "closing"} {
		if strings.Contains(flags, flag) && !contains(out, st) {
			out = append(out, st)
		}
	}
	return out
}

// contains says whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readMemory reads MEMORY STATS into its members (db.N nested).
func readMemory(ctx context.Context, c conn, node *Node) error {
	reply, err := c.Do(ctx, "memory", "stats").Result()
	if err != nil {
		return fmt.Errorf("MEMORY STATS: %w", err)
	}
	m, ok := pairs(reply, 0)
	if !ok {
		return errors.New("MEMORY STATS: the answer is not a list of names and values")
	}
	node.Memory = m
	return nil
}

// pairs reads a RESP2 array of alternating names and values (or a RESP3
// map) into a map, nested arrays of pairs too (depth-bounded).
func pairs(reply any, depth int) (map[string]any, bool) {
	out := map[string]any{}
	add := func(k any, v any) {
		if len(out) >= maxMemoryKeys {
			return
		}
		if nested, ok := pairs(v, depth+1); ok && depth < 2 {
			out[clip(fmt.Sprint(k))] = nested
			return
		}
		switch x := v.(type) {
		case int64, float64, bool, nil:
			out[clip(fmt.Sprint(k))] = x
		default:
			out[clip(fmt.Sprint(k))] = clip(fmt.Sprint(x))
		}
	}
	switch r := reply.(type) {
	case []any:
		if len(r)%2 != 0 {
			return nil, false
		}
		for i := 0; i < len(r); i += 2 {
			add(r[i], r[i+1])
		}
	case map[any]any:
		for k, v := range r {
			add(k, v)
		}
	default:
		return nil, false
	}
	return out, true
}

// readCluster reads CLUSTER INFO and CLUSTER NODES; a server with cluster
// support disabled answers Enabled false.
func readCluster(ctx context.Context, c conn, node *Node) error {
	info, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		if strings.Contains(err.Error(), "cluster support disabled") {
			node.Cluster = &Cluster{Enabled: false}
			return nil
		}
		return fmt.Errorf("CLUSTER INFO: %w", err)
	}
	nodes, err := c.ClusterNodes(ctx).Result()
	if err != nil {
		return fmt.Errorf("CLUSTER NODES: %w", err)
	}
	cl := &Cluster{Enabled: true, Info: map[string]string{}, Nodes: parseClusterNodes(nodes)}
	for k, v := range parseInfo(info)[""] {
		cl.Info[clip(k)] = clip(v)
	}
	node.Cluster = cl
	return nil
}

// number reads an integer of a RESP reply (an int64 or its text).
func number(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64) // not a number counts 0
		return n
	}
	return 0
}

// clipTo cuts s to n bytes at a rune boundary.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
