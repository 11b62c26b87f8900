package logparse

import (
	"bytes"
)

// What application frameworks write after the level: Spring Boot's
// "pid --- [thread] logger :" and zap's console encoder.

// threadWords are words that name a thread, not a service, inside the
// "[…]" of a log4j/logback/JUL line: Tomcat's http-nio-8080-exec-19, a
// pool-1-thread-3, main, an event loop, a scheduler.
var threadWords = [...]string{"thread", "exec", "pool", "worker", "nio", "eventloop", "schedul", "task", "reactor",
	"executor", "dispatcher", "qtp", "grpc", "consumer", "producer", "timer", "async", "http-", "parallel", "elastic", "listener"}

// looksThread reports whether the text of a bracket names a thread: one of
// threadWords, "main", or text with a blank or '|' (a service name has none).
func looksThread(b []byte) bool {
	b = bytes.TrimSpace(b)
	if string(b) == "main" || bytes.ContainsAny(b, " |") {
		return true
	}
	var buf [MaxServiceText]byte
	low := buf[:0]
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	for _, w := range threadWords {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return false
}

// dottedNext reports whether a logger's dotted name (com.shop.Orders,
// c.e.Foo) starts at b[i]: the shape that tells a "[thread] LEVEL logger"
// line from "[service] LEVEL message".
func dottedNext(b []byte, i int) bool {
	e := token(b, i)
	w := b[i:e]
	colon := bytes.HasSuffix(w, []byte(":")) // Hadoop's "org.apache.hadoop.Foo: msg"
	w = bytes.TrimSuffix(w, []byte(":"))
	return len(w) > 2 && bytes.IndexByte(w, '.') > 0 && w[len(w)-1] != '.' && bytes.IndexByte(w, ':') < 0 &&
		(colon || e == len(b) || bytes.HasPrefix(b[e:], []byte(" - ")) || bytes.HasPrefix(b[e:], []byte(" : ")))
}

// springTail reads what Spring Boot writes after the level: "1234 ---
// [app] [thread] [trace] logger : msg" (Boot 3.2+ names the application
// when spring.application.name is set; Boot 2 and 3.0 write only the
// thread). The application is the service, else the logger; the thread is
// a field, never the service. It reports whether the line had that shape.
func springTail(line []byte, i int, r *Record) bool {
	pe := digitsEnd(line, i)
	if pe == i || !bytes.HasPrefix(line[pe:], []byte(" --- ")) {
		return false
	}
	pid := line[i:pe]
	j := pe + len(" --- ")
	var br [3][]byte
	n := 0
	for n < len(br) {
		b, k, ok := bracketed(line, j, MaxServiceText)
		if !ok {
			break
		}
		br[n] = bytes.TrimSpace(b)
		n++
		j = skipSpace(line, k)
	}
	if n == 0 {
		return false
	}
	k := bytes.Index(line[j:], []byte(" : "))
	if k < 0 || k > 2*MaxServiceText {
		return false
	}
	logger := bytes.TrimSpace(line[j : j+k])
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: pid})
	switch n {
	case 1:
		r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: br[0]})
		r.nameField("logger", logger)
	default:
		r.Service = br[0]
		r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: br[1]}, KV{Key: []byte("logger"), Val: logger})
		if n == 3 && len(br[2]) > 0 {
			r.Fields = append(r.Fields, KV{Key: []byte("trace"), Val: br[2]})
		}
	}
	r.Msg = trimEnd(line[j+k+3:])
	return true
}

// callerShape reports whether b is a source location, "pkg/file.go:42".
func callerShape(b []byte) bool {
	c := bytes.LastIndexByte(b, ':')
	return c > 0 && c+1 < len(b) && digitsEnd(b, c+1) == len(b) && bytes.IndexByte(b[:c], '.') > 0
}

// zapTail reads zap's console encoder after the level (sep is where the
// level ends): tab-separated "[logger<TAB>]caller<TAB>msg[<TAB>{json}]".
// The logger, when named, is the service; the caller is a field.
func zapTail(line []byte, sep int, r *Record) bool {
	if sep >= len(line) || line[sep] != '\t' {
		return false
	}
	rest := line[sep+1:]
	a, after, ok := bytes.Cut(rest, []byte("\t"))
	if !ok {
		return false
	}
	switch {
	case callerShape(a):
		r.Fields = append(r.Fields, KV{Key: []byte("caller"), Val: a})
	default:
		b, after2, ok := bytes.Cut(after, []byte("\t"))
		if !ok || !callerShape(b) || len(a) > 64 {
			return false
		}
		r.nameField("logger", a)
		r.Fields = append(r.Fields, KV{Key: []byte("caller"), Val: b})
		after = after2
	}
	r.Msg = trimEnd(after)
	return true
}
