package logparse

import (
	"bytes"
)

// The words of a text line after its stamp, shared by the text layouts:
// level, service, thread and logger readers.

// isWordByte reports whether c may be part of a level or service word.
func isWordByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_'
}

// skipSeps skips the separators text layouts put between their columns:
// blanks, '-', ',', ':' and '|'.
func skipSeps(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '-', ',', ':', '|':
			i++
			continue
		}
		break
	}
	return i
}

// token returns the end of the run of non-blank bytes at b[i].
func token(b []byte, i int) int {
	for i < len(b) && b[i] != ' ' && b[i] != '\t' {
		i++
	}
	return i
}

// trimEnd drops trailing blanks and CRs.
func trimEnd(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// levelWord recognises a level at b[i]: ERROR, [ERROR], ERROR:, level=error,
// DEBUG2, and Apache 2.4's [module:level] (whose module is returned as the
// service). Words under three letters are not levels here ("a", "I" are
// prose); the layouts that use single letters read them themselves.
func levelWord(b []byte, i int) (end int, lvl string, module []byte) {
	j := i
	bracketed := j < len(b) && b[j] == '['
	if bracketed {
		j++
	}
	if bytes.HasPrefix(b[j:], []byte("level=")) {
		j += len("level=")
	}
	ws := j
	for j < len(b) && isWordByte(b[j]) {
		j++
	}
	if bracketed && j < len(b) && b[j] == ':' && j-ws <= 32 { // [core:error]
		module = b[ws:j]
		j++
		ws = j
		for j < len(b) && isWordByte(b[j]) {
			j++
		}
	}
	if j-ws < 3 {
		return i, "", nil
	}
	lvl = normLevel(b[ws:j])
	if lvl == "" {
		return i, "", nil
	}
	if bracketed {
		if j >= len(b) || b[j] != ']' {
			return i, "", nil
		}
		j++
	}
	if j < len(b) && (isWordByte(b[j]) || b[j] == '.' || b[j] == '=') {
		return i, "", nil
	}
	return j, lvl, module
}

// serviceWord recognises a component name at b[i] the way text layouts put
// one after the level: "dfs.DataNode$PacketResponder:" (HDFS, Spark, Python's
// "name:"), "com.foo.Bar - " (log4j), or a dotted name of three or more
// parts ("nova.osapi_compute.wsgi.server"). It returns the name and where
// the message starts.
func serviceWord(b []byte, i int) ([]byte, int) {
	if i >= len(b) || !((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z')) {
		return nil, i
	}
	j, dots := i, 0
	for j < len(b) && j-i <= MaxServiceText {
		c := b[j]
		if c == '.' {
			dots++
		} else if !isWordByte(c) && c != '$' && c != '-' && c != '/' {
			break
		}
		j++
	}
	if j-i > 64 {
		return nil, i
	}
	name := b[i:j]
	switch {
	case j < len(b) && b[j] == ':' && (j+1 == len(b) || b[j+1] == ' ' || b[j+1] != ':'):
		return name, skipSpace(b, j+1)
	case bytes.HasPrefix(b[j:], []byte(" - ")):
		return name, skipSpace(b, j+3)
	case dots >= 2 && (j == len(b) || b[j] == ' '):
		return name, skipSpace(b, j)
	}
	return nil, i
}

// bracketService reads "[name]" at b[i]: up to MaxServiceText bytes
// without blanks, brackets inside it nested (closeBracket).
func bracketService(b []byte, i int) ([]byte, int) {
	if i < len(b) && b[i] == '[' {
		if j := closeBracket(b, i, MaxServiceText); j > i+1 && bytes.IndexByte(b[i+1:j], ' ') < 0 {
			return b[i+1 : j], skipSpace(b, j+1)
		}
	}
	return nil, i
}

// textTail reads what follows a stamp: an optional thread or process number,
// the level in any of its spellings and separators ("- ERROR", ":ERROR:",
// "[error]", "[core:error]"), a name as "[name]", a component name after
// the level or a name before it ("- name - LEVEL -", Python), and the
// message. The name is a field (logger, class, module or component), never
// the service: only Spring Boot's application name is one.
func textTail(line []byte, i int, r *Record) {
	if key := textCols(line, i, r); key != "" && r.Service != nil {
		r.nameField(key, r.Service)
		r.Service = nil
	}
}

// textCols reads the columns of textTail into r, a name into r.Service, and
// returns the field the name belongs in ("" when r.Service is a service).
func textCols(line []byte, i int, r *Record) string {
	key := ""
	i = skipSeps(line, i)
	if j := digitsEnd(line, i); j > i && j < len(line) && line[j] == ' ' {
		k := skipSpace(line, j)
		if _, lvl, _ := levelWord(line, k); lvl != "" {
			r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: line[i:j]})
			i = k
		}
	}
	if thr, j, ok := bracketed(line, i, MaxServiceText); ok && len(thr) > 0 { // "[thread] LEVEL logger - msg"
		k := skipSpace(line, j)
		if e, lvl, _ := levelWord(line, k); lvl != "" && (looksThread(thr) || dottedNext(line, skipSeps(line, e))) {
			r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: bytes.TrimSpace(thr)})
			r.Level = lvl
			i = skipSeps(line, e)
		}
	}
	if j, lvl, module := levelWord(line, i); r.Level == "" && lvl != "" {
		r.Level = lvl
		sep := j
		i = skipSeps(line, j)
		if springTail(line, i, r) || zapTail(line, sep, r) {
			r.nameField("module", module)
			return ""
		}
		r.Service, key = module, "module"
		if thr, j, ok := bracketed(line, i, MaxServiceText); ok && len(thr) > 0 && (looksThread(thr) || dottedNext(line, skipSeps(line, j)) || bytes.HasPrefix(line[skipSpace(line, j):], []byte("- "))) {
			// "%t:%C{1}@%L" (ZooKeeper): the class is a field
			if c, at := bytes.LastIndexByte(thr, ':'), bytes.LastIndexByte(thr, '@'); c > 0 && at > c+1 && digitsEnd(thr, at+1) == len(thr) {
				r.Service, key = thr[c+1:at], "class"
				thr = thr[:c]
			}
			r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: bytes.TrimSpace(thr)})
			i = skipSeps(line, j)
		}
	}
	if r.Service == nil {
		if svc, j := bracketService(line, i); svc != nil {
			r.Service, key, i = svc, "component", j
		}
	}
	if r.Level == "" && r.Service == nil { // "ts - name - LEVEL - msg" (Python)
		if svc, j := serviceWord(line, i); svc != nil {
			if k, lvl, _ := levelWord(line, skipSeps(line, j)); lvl != "" {
				r.Service, key, r.Level, i = svc, "logger", lvl, skipSeps(line, k)
			}
		}
	}
	if r.Level == "" { // "ts [svc] LEVEL msg"
		if j, lvl, _ := levelWord(line, i); lvl != "" {
			r.Level = lvl
			i = skipSeps(line, j)
		}
	} else if r.Service == nil {
		if svc, j := serviceWord(line, i); svc != nil {
			r.Service, key, i = svc, "logger", j
		}
	}
	if bytes.HasPrefix(line[i:], []byte("- ")) {
		i = skipSpace(line, i+2)
	}
	r.Msg = trimEnd(line[i:])
	if r.Service == nil && r.Level != "" {
		r.Service, r.Msg = loggerAtEnd(r.Msg)
		key = "logger"
	}
	return key
}

// loggerAtEnd splits log4j 1's "message (com.foo.Bar)" (Kafka's
// "[%d] %p %m (%c)%n") into the logger, a dotted name, and the message.
func loggerAtEnd(msg []byte) (logger, rest []byte) {
	n := len(msg)
	if n < 4 || msg[n-1] != ')' {
		return nil, msg
	}
	k := bytes.LastIndex(msg, []byte(" ("))
	if k < 0 || n-k > MaxServiceText {
		return nil, msg
	}
	name := msg[k+2 : n-1]
	if bytes.IndexByte(name, '.') <= 0 || bytes.ContainsAny(name, " ()=,") {
		return nil, msg
	}
	return name, trimEnd(msg[:k])
}

// digitsEnd is the end of the run of digits at b[i].
func digitsEnd(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// afterStamp reports whether the stamp may end at b[i]: at the end of the
// line or before a blank or a column separator (',' ':' '|').
func afterStamp(b []byte, i int) bool {
	return i >= len(b) || b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == ',' || b[i] == ':' || b[i] == '|'
}
