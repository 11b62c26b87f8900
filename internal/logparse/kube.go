package logparse

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kubernetes node logs: every container's output sits in
// /var/log/containers/<pod>_<namespace>_<container>-<id>.log, a link into
// /var/log/pods/<namespace>_<pod>_<uid>/<container>/<n>.log, each line wrapped
// by the container runtime: docker's json-file driver writes
// {"log":"…\n","stream":"stdout","time":"…"}, containerd and CRI-O write
// "<RFC 3339 nano> stdout F …" (P for a part of a longer line, F for the last
// part). The wrapper gives the time and the stream; the line inside is read
// by the other layouts (JSON, logfmt, the text layouts, else a level word
// among its first words) for its level, service, message and fields, and the
// service comes from the path (PathService).

// MaxDockerLineBytes is how much of a docker json-file line is parsed:
// docker splits a longer line into pieces of 16 KiB of text, and a piece
// escaped as JSON (\u0001 is 6 bytes for 1) stays within it, so every line
// docker writes is read whole, its time (the last member) included.
const MaxDockerLineBytes = 128 << 10

// dockerLine is one docker json-file line's members: log (decoded),
// stream and time.
type dockerLine struct {
	log, stream, stamp []byte
}

// readDocker reads the members of a docker json-file line.
func readDocker(line []byte) (d dockerLine, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return d, false
	}
	ok = jsonMembers(line, i, func(key []byte, vs, _ int) bool {
		if line[vs] != '"' {
			return true // attrs and the like
		}
		v, _, _ := jsonString(line, vs)
		switch string(key) {
		case "log":
			d.log = v
		case "stream":
			d.stream = v
		case "time":
			d.stamp = v
		}
		return true
	})
	return d, ok && d.log != nil && d.stream != nil && d.stamp != nil
}

// partial says the line is a piece of a longer one: docker writes a line
// longer than 16 KiB as pieces whose log does not end in a newline, the
// last piece's does.
func (d dockerLine) partial() bool {
	return !bytes.HasSuffix(d.log, []byte("\n"))
}

// dockerPartial reports whether a docker json-file line is a piece that the
// next line continues.
func dockerPartial(line []byte) bool {
	d, ok := readDocker(line)
	return ok && d.partial()
}

// dockerJoin turns an entry that starts with pieces into one docker
// json-file line: the first piece's stream and time and the log of every
// piece in order up to the last; nil when the entry's first line is no
// piece.
func dockerJoin(entry []byte) []byte {
	first, rest, _ := bytes.Cut(entry, []byte("\n"))
	d, ok := readDocker(bytes.TrimSuffix(first, []byte("\r")))
	if !ok || !d.partial() {
		return nil
	}
	log := append([]byte{}, d.log...)
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if p, ok := readDocker(bytes.TrimSuffix(line, []byte("\r"))); ok {
			log = append(log, p.log...)
			if !p.partial() {
				break
			}
		}
	}
	out := append([]byte(`{"log":`), jsonQuote(log)...)
	out = append(append(out, `,"stream":`...), jsonQuote(d.stream)...)
	out = append(append(out, `,"time":`...), jsonQuote(d.stamp)...)
	return append(out, '}')
}

// jsonQuote is b as a JSON string.
func jsonQuote(b []byte) []byte {
	q, err := json.Marshal(string(b))
	if err != nil { // a string always marshals
		return []byte(`""`)
	}
	return q
}

// parseDockerJSON reads one docker json-file line: an object with the
// members log, stream and time and no others that matter; any other JSON
// line is left to the json layout. A line cut to its MaxDockerLineBytes
// head (never one docker wrote) is an entry of its own without a time
// (docker writes the time last), never glued to the entry before it.
func parseDockerJSON(line []byte, tc *TimeCtx, r *Record) LineKind {
	d, ok := readDocker(line)
	if !ok {
		if len(line) >= MaxDockerLineBytes && bytes.HasPrefix(line[skipSpace(line, 0):], []byte(`{"log":"`)) {
			return LineUntimed
		}
		return LineCont
	}
	log, stream, stamp := d.log, d.stream, d.stamp
	ts, timed := valueTime(stamp, tc)
	parseInner(trimNewline(log), tc, r)
	r.Fields = append(r.Fields, KV{Key: []byte("stream"), Val: stream})
	if !timed {
		r.TS = 0
		return LineUntimed
	}
	r.TS = ts
	return LineTimed
}

// parseCRI reads one line of the CRI log format (containerd, CRI-O):
// "2023-01-29T09:41:49.552795573Z stdout F message".
func parseCRI(line []byte, tc *TimeCtx, r *Record) LineKind {
	ts, inner, stream, _, ok := criParts(line, tc)
	if !ok {
		return LineCont
	}
	parseInner(inner, tc, r)
	r.TS = ts
	r.Fields = append(r.Fields, KV{Key: []byte("stream"), Val: stream})
	return LineTimed
}

// criParts splits a CRI line into its time, the line inside, its stream
// and whether it is a partial line (tag P).
func criParts(line []byte, tc *TimeCtx) (ts int64, inner, stream []byte, partial, ok bool) {
	ts, n, ok := isoTime(line, tc)
	if !ok || n >= len(line) || line[n] != ' ' {
		return 0, nil, nil, false, false
	}
	rest := line[n+1:]
	switch {
	case bytes.HasPrefix(rest, []byte("stdout ")), bytes.HasPrefix(rest, []byte("stderr ")):
	default:
		return 0, nil, nil, false, false
	}
	stream, rest = rest[:6], rest[7:]
	if len(rest) == 0 || (rest[0] != 'F' && rest[0] != 'P') || (len(rest) > 1 && rest[1] != ' ') {
		return 0, nil, nil, false, false
	}
	partial = rest[0] == 'P'
	if len(rest) > 1 {
		inner = rest[2:]
	}
	return ts, inner, stream, partial, true
}

// criPartial reports whether a CRI line is a part (P) that the next line of
// the same stream continues.
func criPartial(line []byte) bool {
	tc := TimeCtx{Loc: time.UTC} // the stamp's zone does not matter here
	_, _, _, partial, ok := criParts(line, &tc)
	return ok && partial
}

// criJoin turns an entry that starts with partial lines into one CRI line:
// the first line's stamp and stream, tag F, and the text of every part in
// order; nil when the entry's first line is no partial one.
func criJoin(entry []byte) []byte {
	first, rest, _ := bytes.Cut(entry, []byte("\n"))
	first = bytes.TrimSuffix(first, []byte("\r"))
	if !criPartial(first) {
		return nil
	}
	tc := TimeCtx{Loc: time.UTC} // the stamp's zone does not matter here
	_, inner, _, _, _ := criParts(first, &tc)
	head := first[:bytes.Index(first, []byte(" P"))+1] // "<stamp> <stream> "
	out := append(append(append([]byte{}, head...), 'F', ' '), inner...)
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if _, part, _, partial, ok := criParts(line, &tc); ok {
			out = append(out, part...)
			if !partial {
				break
			}
		}
	}
	return out
}

// innerParsers are the layouts a wrapped line is read with, in order.
func innerParsers() [21]func([]byte, *TimeCtx, *Record) LineKind {
	return [...]func([]byte, *TimeCtx, *Record) LineKind{
		parseSyslog, parseGlog, parsePostgres, parseMySQL, parseLambda, parseEnvoy, parseGunicorn,
		parseRubyLogger, parseRedis, parseElasticsearch, parseLogcat, parseAccess, parseApacheError, parseCBS,
		parseFileDated, parseHDFS, parseSpark, parseCompact, parseMonthDay, parseText, parseRAS,
	}
}

// parseInner reads the line inside a wrapper into r: a JSON object, logfmt
// with a level or msg key, a line of a text layout, else the whole line as
// the message with a level word among its first four words. The time is the
// wrapper's, set by the caller.
func parseInner(inner []byte, tc *TimeCtx, r *Record) {
	inner = trimEnd(inner)
	if i := skipSpace(inner, 0); i < len(inner) && inner[i] == '{' {
		if parseJSON(inner, tc, r) != LineCont {
			return
		}
		r.reset()
	}
	if a, ok := logfmtRecord(inner, r); ok && (a.levP != 99 || a.msgP != 99) {
		a.finish(tc, true)
		return
	}
	r.reset()
	for _, p := range innerParsers() {
		if p(inner, tc, r) != LineCont {
			return
		}
		r.reset()
	}
	r.Msg = inner
	for i, words := 0, 0; i < len(inner) && words < 4; words++ {
		if _, lvl, _ := levelWord(inner, i); lvl != "" {
			r.Level = lvl
			return
		}
		i = skipSpace(inner, token(inner, i))
	}
}

// trimNewline drops the newline docker keeps at the end of a log member.
func trimNewline(b []byte) []byte {
	return bytes.TrimRight(b, "\r\n")
}

// podLog is /var/log/containers/<pod>_<namespace>_<container>-<64 hex>.log;
// podsDir is the <namespace>_<pod>_<uid> directory of /var/log/pods.
var (
	podLog = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?_[a-z0-9]([-a-z0-9]*[a-z0-9])?_([a-z0-9]([-a-z0-9]*[a-z0-9])?)-[0-9a-f]{64}\.log$`)
	})
	podsDir = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?_[a-z0-9]([-a-z0-9.]*[a-z0-9])?_[0-9a-f-]{36}$`)
	})
	podsLog = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+\.log(\..*)?$`) })
)

// PathService is the service a Kubernetes node log's path names:
// /var/log/containers/<pod>_<namespace>_<container>-<id>.log, or
// /var/log/pods/<namespace>_<pod>_<uid>/<container>/<n>.log (rotated
// <n>.log.<date> too); "" for any other path. It is the container's name,
// unless that name is generic (GenericContainers: TrainTicket names every
// service's container "server"), when it is the pod's workload
// (PodWorkload).
func PathService(path string) string {
	base := filepath.Base(path)
	if m := podLog().FindStringSubmatch(base); m != nil {
		return containerService(m[3], base[:strings.IndexByte(base, '_')])
	}
	dir := filepath.Dir(path)
	if pd := filepath.Base(filepath.Dir(dir)); podsLog().MatchString(base) && podsDir().MatchString(pd) {
		pod, _, _ := strings.Cut(pd[strings.IndexByte(pd, '_')+1:], "_")
		return containerService(strings.ToLower(filepath.Base(dir)), pod)
	}
	return ""
}

// GenericContainers are container names that say nothing of the service:
// a pod's container so named is the pod's workload's.
var GenericContainers = []string{"app", "application", "container", "main", "server", "service", "web"}

// containerService is the service of container in pod.
func containerService(container, pod string) string {
	if slices.Contains(GenericContainers, container) {
		if w := PodWorkload(pod); w != "" {
			return w
		}
	}
	return container
}

// podHash is the end of a pod's name its controller added: a Deployment's
// ReplicaSet hash (pod-template-hash: 6 to 10 characters of the alphabet
// Kubernetes writes them in, which has no vowels, or digits in older
// releases) and the pod's own 5 characters; a ReplicaSet's, DaemonSet's
// or Job's 5 characters alone; a StatefulSet's ordinal.
var podHash = sync.OnceValue(func() *regexp.Regexp {
	const safe = `[bcdfghjklmnpqrstvwxz2456789]`
	return regexp.MustCompile(`^(.+?)(-(` + safe + `{6,10}|[0-9]{6,10})-` + safe + `{5}|-` + safe + `{5}|-[0-9]+)$`)
})

// PodWorkload is the workload a pod's name belongs to, its controller's
// suffixes stripped (ts-order-service-5b67c48447-mv5hb: ts-order-service;
// web-0: web); the name itself when it has none.
func PodWorkload(pod string) string {
	if m := podHash().FindStringSubmatch(pod); m != nil {
		return m[1]
	}
	return pod
}
