package logs

import (
	"bytes"
	"sort"
	"strconv"
)

// Exception chains survive clipping: when an entry's text must be cut to
// its message bound, its head, every cause line and the final exception
// line stay, and stack frames go first, their number said ("… 57 frames
// …"). The innermost cause (class and message) becomes fields.exception.

// maxChainMessage bounds the message of an entry whose text holds a cause
// chain (a Java "Caused by:", a Python traceback, a Go panic, a .NET
// "--->"): room for the head, the causes and a few frames. Other entries
// keep maxMessage.
const maxChainMessage = 1024

// maxChainScan bounds the continuation text searched for cause lines, so
// the innermost cause of a long trace is found and one huge entry costs
// a bounded search.
const maxChainScan = 1 << 20

// maxChainLines bounds the continuation lines judged one by one; lines
// past it count as dropped frames.
const maxChainLines = 4096

// goFrames is how many frames (function and file line each) after a Go
// goroutine header are kept with the panic.
const goFrames = 2

// traceFields name the fields that hold a whole stack trace in JSON logs
// (Serilog's @x, ECS's error.stack_trace, pino's err.stack, zap's
// stacktrace): read as the entry's continuation when it has none.
var traceFields = [...]string{"@x", "exception", "exception.stacktrace", "stack_trace", "stacktrace", "stack", "err.stack", "error.stack", "error.stack_trace", "exc_info"}

// chainKind is what one continuation line is to the chain.
type chainKind uint8

const (
	frame  chainKind = iota // a stack frame or wrapped text: dropped first
	cause                   // a cause or exception line: kept
	anchor                  // a frame kept with its cause (a Go panic's first frames)
)

type chainLine struct {
	text []byte
	kind chainKind
}

// condensed is an entry's text as the model reads it.
type condensed struct {
	// text is the head, then the kept lines, within its bound.
	text []byte
	// exception is the innermost cause, nil when the entry holds none.
	exception []byte
	// chain says the entry holds cause lines (its bound is maxChainMessage).
	chain bool
	// past says the continuation ran past maxChainScan: causes after it
	// were not read, so exception may not be the root.
	past bool
}

// isIndented reports whether a raw line starts with a blank or a tab.
func isIndented(l []byte) bool { return len(l) > 0 && (l[0] == ' ' || l[0] == '\t') }

// hasAnyPrefix reports whether b starts with one of ps.
func hasAnyPrefix(b []byte, ps ...string) bool {
	for _, p := range ps {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// exceptionShape reports whether t reads "Name: message" or "Name" where
// Name is a class or error name (letters, digits, . $ _ without blanks).
func exceptionShape(t []byte) bool {
	name := t
	if k := bytes.IndexByte(t, ':'); k >= 0 {
		name = t[:k]
	}
	if len(name) == 0 || len(name) > 200 {
		return false
	}
	letters := 0
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		case c >= '0' && c <= '9', c == '.', c == '$', c == '_':
		default:
			return false
		}
	}
	return letters > 0
}

// classify splits cont into its lines and judges each, and finds the
// innermost cause: Java's last "Caused by:", .NET's last "--->", a Go
// panic, else the first exception line of a Python chain ("During
// handling…", "The above exception…": the first traceback is the cause)
// or the last exception line.
func classify(cont []byte) (lines []chainLine, dropped int, exception []byte) {
	var last, firstPy []byte
	pyChain, inGo, goLeft := false, false, 0
	for len(cont) > 0 {
		l := cont
		if k := bytes.IndexByte(cont, '\n'); k >= 0 {
			l, cont = cont[:k], cont[k+1:]
		} else {
			cont = nil
		}
		l = bytes.TrimRight(l, "\r \t")
		if len(l) == 0 {
			inGo = false
			continue
		}
		if len(lines) == maxChainLines {
			dropped++
			continue
		}
		t := bytes.TrimLeft(l, " \t")
		kind := frame
		switch {
		case goLeft > 0:
			kind = anchor
			goLeft--
		case hasAnyPrefix(t, "goroutine ") && bytes.HasSuffix(t, []byte("]:")):
			kind, inGo, goLeft = cause, true, 2*goFrames
		case inGo:
		case hasAnyPrefix(t, "Caused by:"):
			kind, last = cause, bytes.TrimSpace(t[len("Caused by:"):])
		case hasAnyPrefix(t, "Suppressed:"):
			kind = cause
		case hasAnyPrefix(t, "During handling of the above exception", "The above exception was the direct cause"):
			kind, pyChain = cause, true
		case hasAnyPrefix(t, "Traceback (most recent call last)"):
			kind = cause
		case hasAnyPrefix(t, "panic:", "fatal error:"):
			kind, last = cause, t
		case bytes.Contains(t, []byte("---> ")):
			kind = cause
			last = t[bytes.LastIndex(t, []byte("---> "))+len("---> "):]
		case !isIndented(l) && !hasAnyPrefix(t, "at ", "...") && exceptionShape(t):
			kind = cause
			if firstPy == nil {
				firstPy = t
			}
			last = t
		}
		lines = append(lines, chainLine{text: t, kind: kind})
	}
	switch {
	case pyChain && firstPy != nil:
		exception = firstPy
	default:
		exception = last
	}
	return lines, dropped, exception
}

// condense builds an entry's message from its head and continuation
// within the bound: with no room for everything, frames are dropped first
// (each run of dropped frames said as "… N frames …"), then middle cause
// lines, then the head is cut; the first and innermost causes stay.
func condense(head, cont []byte) condensed {
	head = bytes.TrimRight(head, " \r\n")
	if len(cont) == 0 {
		return condensed{text: head}
	}
	past := len(cont) > maxChainScan
	if past {
		cont = cont[:maxChainScan]
	}
	lines, extra, exc := classify(cont)
	chain := false
	for _, l := range lines {
		if l.kind == cause {
			chain = true
			break
		}
	}
	bound := maxMessage
	if chain {
		bound = maxChainMessage
	}
	total := len(head)
	for _, l := range lines {
		total += 1 + len(l.text)
	}
	if total <= bound && extra == 0 {
		b := append([]byte{}, head...)
		for _, l := range lines {
			b = append(append(b, '\n'), l.text...)
		}
		return condensed{text: b, exception: exc, chain: chain, past: past}
	}
	if len(lines) > 0 && len(head) > maxHeadWithFrames {
		head = clipBytes(head, maxHeadWithFrames)
	}
	keep := make([]bool, len(lines))
	room := bound - len(head)
	// the causes first, as many as fit, outermost and innermost before the middle
	order := causeOrder(lines)
	for _, i := range order {
		if need := 1 + len(lines[i].text) + markerRoom; need <= room {
			keep[i] = true
			room -= need
		} else if room > 64 {
			lines[i].text = clipBytes(lines[i].text, room-1-markerRoom)
			keep[i] = true
			room = 0
		}
	}
	// then frames, the first of each cause's first
	for _, i := range frameOrder(lines) {
		if keep[i] {
			continue
		}
		if need := 1 + len(lines[i].text); need+markerRoom <= room {
			keep[i] = true
			room -= need
		}
	}
	text := render(head, lines, keep, extra)
	for len(text) > bound {
		// markers cost more than reserved: give back the last kept frame
		j := -1
		for i := len(lines) - 1; i >= 0; i-- {
			if keep[i] && lines[i].kind != cause {
				j = i
				break
			}
		}
		if j < 0 {
			text = clipBytes(text, bound)
			break
		}
		keep[j] = false
		text = render(head, lines, keep, extra)
	}
	return condensed{text: text, exception: exc, chain: chain, past: past}
}

// markerRoom is reserved per kept line for a "… N frames …" marker before it.
const markerRoom = 18

// causeOrder lists the cause and anchor lines to keep, most needed first:
// the innermost (last Caused by) and the first, then the others from the
// end, then the anchors.
func causeOrder(lines []chainLine) []int {
	var causes, anchors []int
	for i, l := range lines {
		switch l.kind {
		case cause:
			causes = append(causes, i)
		case anchor:
			anchors = append(anchors, i)
		}
	}
	if len(causes) == 0 {
		return anchors
	}
	order := []int{causes[0]}
	for k := len(causes) - 1; k > 0; k-- {
		order = append(order, causes[k])
	}
	return append(order, anchors...)
}

// frameOrder lists the frame lines by their distance from the cause line
// above them (the head counts as one), nearest first, then in file order.
func frameOrder(lines []chainLine) []int {
	dist := make([]int, len(lines))
	d := 0
	var order []int
	for i, l := range lines {
		if l.kind != frame {
			d = 0
			continue
		}
		d++
		dist[i] = d
		order = append(order, i)
	}
	sort.SliceStable(order, func(a, b int) bool { return dist[order[a]] < dist[order[b]] })
	return order
}

// render writes head and the kept lines, each run of dropped lines as one
// marker line, and extra lines past maxChainLines in the last marker.
func render(head []byte, lines []chainLine, keep []bool, extra int) []byte {
	b := append([]byte{}, head...)
	gap := 0
	for i, l := range lines {
		if !keep[i] {
			gap++
			continue
		}
		if gap > 0 {
			b = appendMarker(b, gap)
			gap = 0
		}
		b = append(append(b, '\n'), l.text...)
	}
	if gap+extra > 0 {
		b = appendMarker(b, gap+extra)
	}
	return b
}

func appendMarker(b []byte, n int) []byte {
	b = append(b, "\n… "...)
	b = strconv.AppendInt(b, int64(n), 10)
	if n == 1 {
		return append(b, " frame …"...)
	}
	return append(b, " frames …"...)
}

// clipBytes cuts b to at most n bytes without splitting a UTF-8 sequence,
// ending in "…" when cut.
func clipBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	const ell = "…"
	if n <= len(ell) {
		return nil
	}
	k := n - len(ell)
	for k > 0 && b[k]&0xC0 == 0x80 {
		k--
	}
	return append(append([]byte{}, b[:k]...), ell...)
}
