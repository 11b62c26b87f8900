package logs

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/superbiz/superbiz/internal/logparse"
)

var (
	errNoMap        = errors.New("memory mapping unavailable")
	errUnrecognized = errors.New("no line could be placed in time")
	errBinary       = errors.New("NUL or control bytes in more than 1/16 of the first 8 KiB")
)

// query is a resolved business input: what Execute filters on.
type query struct {
	startNS, endNS int64
	service        string // lower case; "" means any
	level          string // canonical; "" means any
	words          [][]byte
	limit          int
}

// scanner runs one query over the files of one source into one accumulator.
type scanner struct {
	q *query
	// format is the source's configured format, named when a file is refused.
	format string
	tc     logparse.TimeCtx
	lay    *logparse.Layout
	acc    *accumulator
	rec    logparse.Record
	probe  logparse.Record
	pf     *prefilter
	// src is the mapped file being searched, which scanPart reads, and
	// srcAt the file offset of the data scanMapped searches.
	src    io.ReaderAt
	srcAt  int64
	noSeek bool // tests: force the linear path
	// chunk is the read size of the chunked scans (0: streamChunk); tests
	// shrink it so small inputs cross chunk ends.
	chunk int
	// seekMin is the size from which a time-ordered file is searched by
	// binary search; a smaller one is read in full (scanLimits.seekMin).
	seekMin int64
	// entered says the file's first entry header has been seen: lines
	// before it belong to no entry and are counted as unparsed.
	entered bool
	ticks   int
	// work is the line text parsed since the last context check.
	work int
	// gap is the last long newline-free run the binary search crossed.
	gap gap
	ctx context.Context
	// budget is what is left of the call's decompressed-byte limit.
	budget int64
	// latest is the latest entry time read so far in the file, and
	// disordered says an entry (or a sample) went back further than
	// seekSlack before it: the file is not in time order.
	latest     int64
	disordered bool
	// pathService is the container a Kubernetes node log's path names,
	// the service of a wrapped layout's entries ("" for other paths).
	pathService string
	// service is the source's configured service ([[logs]] service), the
	// service of every entry that names none.
	service []byte
	// lastIn says the file's last timed entry lay in the window; pending
	// counts the untimed entries read since it (see notePlace).
	lastIn  bool
	pending int
	// open is the entry a chunk of a chunked scan ended inside.
	open openEntry
	// partsCut says the entry being judged is joined from parts and was
	// cut at logparse.MaxJoinedBytes; skipParts says a chunked scan judged
	// such an entry from its first chunk and drops its remaining parts.
	partsCut, skipParts bool
	// inOrder says the window comes near a change of the source zone's
	// offset (foldNear): files are read whole, in order, without the
	// prefilter, so that fold can place the stamps of a repeated hour.
	inOrder bool
	fold    foldState
	// searchCut says a contains word was searched for in an entry of which
	// a line was not searched to its end (entryContains), and goesOnAt is
	// where the chunk being scanned ends inside a line that goes on past
	// it, unread (0: the data holds its lines whole).
	searchCut bool
	goesOnAt  int
}

// parse reads an entry's header line into r: the layout's parse, then for
// a container runtime's wrapper the service the file's path names (the
// service the line itself gives, if another, kept as the field component).
func (s *scanner) parse(line []byte, r *logparse.Record) logparse.LineKind {
	s.tc.Fold = logparse.Fold{}
	kind := s.lay.ParseLine(line, &s.tc, r)
	if s.lay.Wrapped && s.pathService != "" && kind != logparse.LineCont {
		if len(r.Service) > 0 && !bytes.EqualFold(r.Service, []byte(s.pathService)) {
			r.Fields = append(r.Fields, logparse.KV{Key: []byte("component"), Val: r.Service})
		}
		r.Service = []byte(s.pathService)
	}
	if len(r.Service) == 0 && kind != logparse.LineCont {
		r.Service = s.service
	}
	return kind
}

// joined is the one line an entry of partial lines makes (the layout's
// Join, over the entry's first logparse.MaxJoinedBytes: cut says the
// entry went on past them), or the entry's first line cut at lineCap (cut
// says so); next is where its continuation starts; hay, when not nil, is
// the joined text the contains words are matched against (nil: match the
// entry's line heads).
func (s *scanner) joined(data []byte, hs, end int) (line []byte, next int, hay []byte, cut bool) {
	line, next, cut = s.line(data, hs, end)
	if s.lay.Join != nil {
		span := data[hs:end]
		over := len(span) > logparse.MaxJoinedBytes
		if over {
			span = span[:logparse.MaxJoinedBytes]
			if k := bytes.LastIndexByte(span, '\n'); k > 0 {
				span = span[:k+1] // whole parts only
			}
		}
		if j := s.lay.Join(span); j != nil {
			return j, end, j, over
		}
	}
	return line, next, nil, cut
}

// noteTime records the time of an entry read in file order and marks the
// file disordered when it goes back more than seekSlack.
func (s *scanner) noteTime(ts int64) {
	if s.latest != 0 && ts < s.latest-int64(seekSlack) {
		s.disordered = true
	}
	s.latest = max(s.latest, ts)
}

// tick checks the call's context every 1024 lines and after every
// tickBytes of line text parsed, so neither many short lines nor a few long
// ones outlast the time cap, the run's deadline or a cancellation.
func (s *scanner) tick() error {
	s.ticks++
	if s.ticks&1023 == 0 || s.work >= tickBytes {
		s.work = 0
		return s.ctx.Err()
	}
	return nil
}

// stopped reports whether the call's context has ended (the skip of a long
// line's tail checks it between chunks).
func (s *scanner) stopped() bool { return s.ctx.Err() != nil }
