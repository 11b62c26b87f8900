package logs

import (
	"bytes"
	"io"

	"github.com/superbiz/superbiz/internal/logparse"
)

// streamChunk is the read size for gzip files and platforms without mmap.
const streamChunk = 4 << 20

// cappedReader counts what is read out of r against the call's remaining
// decompressed-byte budget and ends with errDecompressedCap once it is spent.
type cappedReader struct {
	r      io.Reader
	budget *int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if *c.budget <= 0 {
		return 0, errDecompressedCap
	}
	if int64(len(p)) > *c.budget {
		p = p[:*c.budget]
	}
	n, err := c.r.Read(p)
	*c.budget -= int64(n)
	return n, err
}

// scanStream reads r in chunks, each cut before its last entry header so an
// entry and its continuation lines are always scanned together. When r fails
// part way (a truncated gzip, the byte limit), the complete lines read so
// far are still searched before the error is returned; read says whether
// any of the stream was searched.
func (s *scanner) scanStream(r io.Reader, cands []*logparse.Layout) (read bool, err error) {
	r = logparse.DecodeBOM(r)
	s.lay = nil // detected again for this file
	return s.scanChunks(r, cands, s.chunkSize())
}

// chunkSize is the read size of the chunked scans.
func (s *scanner) chunkSize() int {
	if s.chunk > 0 {
		return s.chunk
	}
	return streamChunk
}

// scanChunks is scanStream's loop over chunks of at most size bytes: the
// layout is detected from the first chunk unless one is set already
// (scanPart reading a range of a file whose layout its head gave). Each
// chunk is cut before its last entry header; a chunk holding no header
// after its first line ends inside an entry, which is carried (s.open) to
// the chunks its continuation fills and judged once, where it ends.
func (s *scanner) scanChunks(r io.Reader, cands []*logparse.Layout, size int) (read bool, err error) {
	buf := make([]byte, 0, size)
	first := s.lay == nil
	read = !first
	eof := false
	s.open.on, s.skipParts = false, false
	defer func() { s.open.on, s.skipParts = false, false }()
	// inLong says the buffer starts inside a line longer than a chunk whose
	// head was scanned: its tail is dropped up to the next newline.
	inLong := false
	var readErr error
	for {
		if err := s.ctx.Err(); err != nil {
			return read, err
		}
		for !eof && readErr == nil && len(buf) < cap(buf) {
			// a hole or a long line's tail dropped chunk after chunk keeps
			// this loop reading: the call's limits end it too
			if err := s.ctx.Err(); err != nil {
				return read, err
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				readErr = err
			}
			if k := leadingNULs(buf); k > 0 {
				// a hole at a line start: dropped, the line after it kept
				buf = buf[:copy(buf, buf[k:])]
			}
			if inLong {
				k := bytes.IndexByte(buf, '\n')
				if k < 0 {
					buf = buf[:0]
					continue
				}
				buf = buf[:copy(buf, buf[k+1:])]
				inLong = false
			}
			if s.skipParts {
				// the parts of an entry judged at its bound: dropped
				k, long := s.partsEnd(buf)
				buf = buf[:copy(buf, buf[k:])]
				inLong = long
			}
		}
		last := eof || readErr != nil
		cut := len(buf)
		atHeader := false
		switch {
		case readErr != nil:
			// a line cut by the failure is dropped, not half-parsed
			cut = bytes.LastIndexByte(buf, '\n') + 1
		case !eof:
			cut, atHeader = s.lastHeaderStart(buf)
		}
		if first {
			first = false
			if last && blank(buf[:cut]) {
				return false, readErr
			}
			if err := s.setup(cands, buf[:cut]); err != nil {
				if readErr != nil {
					return false, readErr // the cause, not its symptom
				}
				return false, err
			}
			read = true
			if !last {
				// detection read whole lines: now cut before an entry
				cut, atHeader = s.lastHeaderStart(buf)
			}
		}
		if !last && s.lay != nil && cut == len(buf) && len(buf) <= s.lineCap() && bytes.IndexByte(buf, '\n') < 0 {
			// one line fills a chunk smaller than its layout's line cap (an
			// otlp_batch line): the chunk grows to hold the line's head whole
			buf = append(make([]byte, 0, min(2*cap(buf), s.lineCap()+1)), buf...)
			continue
		}
		if !last && s.lay != nil && len(s.q.words) > 0 && cut == len(buf) && cap(buf) < joinedChunk(size) && bytes.IndexByte(buf, '\n') < 0 {
			// one line fills the chunk and contains words are searched: the
			// chunk grows to hold the line whole, up to maxSearchLine, for
			// the words may lie past its head
			buf = append(make([]byte, 0, min(2*cap(buf), joinedChunk(size))), buf...)
			continue
		}
		if !last && s.lay != nil && s.lay.Partial != nil && !atHeader && cap(buf) < joinedChunk(size) && cut > 0 && s.lay.Partial(s.lastLine(buf, cut)) {
			// an entry of parts (CRI P lines) fills the chunk: it grows to
			// hold the entry whole, up to its bound, never judged in pieces
			buf = append(make([]byte, 0, min(2*cap(buf), joinedChunk(size))), buf...)
			continue
		}
		// one line fills the chunk: it goes on past it, unread
		long := !last && cut == len(buf) && bytes.IndexByte(buf, '\n') < 0
		s.goesOnAt = 0
		if long {
			s.goesOnAt = len(buf)
		}
		err := s.scanChunk(buf, cut, !last && !atHeader)
		s.goesOnAt = 0
		if err != nil {
			return read, err
		}
		// an entry of parts longer than its bound was judged from what
		// the chunk held: its other parts are no entries of their own
		s.skipParts = !last && !atHeader && cut > 0 && s.lay.Partial != nil && s.lay.Partial(s.lastLine(buf, cut))
		if last {
			s.closeOpen()
			return read, readErr
		}
		if long {
			// its head was scanned (and its words searched for in the
			// chunk), the tail is skipped (counted here when the head was
			// not already cut)
			inLong = true
			if len(buf) <= s.lineCap() {
				s.acc.longLines++
			}
		}
		rest := copy(buf, buf[cut:])
		buf = buf[:rest]
	}
}

// joinedChunk is the largest chunk of a chunked scan reading chunks of
// size: one that holds an entry joined from parts to its bound whole.
func joinedChunk(size int) int {
	return logparse.MaxJoinedBytes + size
}

// partsEnd is where the parts of the entry being skipped (s.skipParts) end
// in buf: after its closing line, which ends the skip, or at the start of
// buf's last incomplete line. long says buf holds one incomplete line only,
// dropped whole (its tail up to the newline too, inLong): when its head is
// a part, the skip goes on after it.
func (s *scanner) partsEnd(buf []byte) (end int, long bool) {
	for i := 0; i < len(buf); {
		k := bytes.IndexByte(buf[i:], '\n')
		if k < 0 {
			if i > 0 || len(buf) < cap(buf) {
				return i, false // completed by the next read
			}
			s.skipParts = s.lay.Partial(buf[:min(len(buf), s.lineCap())])
			return len(buf), true
		}
		line, next := buf[i:i+k], i+k+1
		if !s.lay.Partial(bytes.TrimSuffix(line, []byte("\r"))) {
			s.skipParts = false
			return next, false
		}
		i = next
	}
	return len(buf), false
}

// scanChunk runs the query over buf[:cut], a chunk of a chunked scan: the
// continuation of the open entry first, then the entries after it. goesOn
// says that the chunk's last entry may go on in the next chunk: when it
// is the only one (no header after the chunk's first line), it is opened
// instead of judged.
func (s *scanner) scanChunk(buf []byte, cut int, goesOn bool) error {
	from := 0
	if s.open.on {
		if from = s.continueOpen(buf, 0, cut); from < cut {
			s.closeOpen()
		} else if goesOn {
			return nil // the whole chunk continues the open entry
		}
	}
	if goesOn && from == 0 && s.carries() {
		if line, next, cut0 := s.line(buf, 0, cut); s.isHeader(line) {
			s.countCut(cut0)
			s.openAt(line, bytes.TrimRight(buf[:next], "\r\n"), next == s.goesOnAt)
			s.continueOpen(buf, next, cut)
			return nil
		}
	}
	return s.scanRange(buf, from, cut)
}

// openEntry is an entry a chunk ended inside: its header line and what
// its continuation held so far, judged (by closeOpen) once its end is read.
type openEntry struct {
	on bool
	// head is the header line (cut at its lineCap), cont the first
	// maxChainScan bytes of the continuation, both copied out of the chunk.
	head, cont []byte
	// glued counts the continuation's lines holding text.
	glued int
	// found has bit i set once the i-th contains word was found.
	found uint
	// searchCut says a line of it was not searched to its end: one that
	// went on past the chunk holding it.
	searchCut bool
}

// carries says whether an entry a chunk ends inside is carried to the next
// chunks: not for batch lines (one line each) nor for a layout whose
// entries are joined from parts (Layout.Join), whose search runs over the
// joined text.
func (s *scanner) carries() bool {
	return s.lay.Each == nil && s.lay.Join == nil && s.lay.Partial == nil
}

// openAt opens the entry whose header line is line (cut at its lineCap),
// whole the line as the chunk holds it: its words are searched in whole,
// and goesOn says the line goes on past the chunk, unsearched.
func (s *scanner) openAt(line, whole []byte, goesOn bool) {
	o := &s.open
	*o = openEntry{on: true, head: append(o.head[:0], line...), cont: o.cont[:0], searchCut: goesOn}
	s.entered = true
	o.search(s.q.words, whole)
}

// search marks the words line holds.
func (o *openEntry) search(words [][]byte, line []byte) {
	for i, w := range words {
		if o.found&(1<<i) == 0 && containsFold(line, w) {
			o.found |= 1 << i
		}
	}
}

// continueOpen reads the lines of data[from:hi] up to the next header as
// the open entry's continuation (their heads searched for the words, as
// entryContains searches a long entry) and returns where they end.
func (s *scanner) continueOpen(data []byte, from, hi int) int {
	o := &s.open
	all := uint(1)<<len(s.q.words) - 1
	i := from
	for i < hi {
		line, next, cut := s.line(data, i, hi)
		if s.isHeader(line) {
			break
		}
		s.countCut(cut)
		if o.found != all {
			// the whole line as the chunk holds it, not only its head
			o.search(s.q.words, bytes.TrimRight(data[i:next], "\r\n"))
			o.searchCut = o.searchCut || next == s.goesOnAt
		}
		if len(bytes.TrimSpace(line)) > 0 {
			o.glued++
		}
		i = next
	}
	// one byte past the bound, so condense sees that the chain went on
	if room := maxChainScan + 1 - len(o.cont); room > 0 {
		o.cont = append(o.cont, data[from:from+min(room, i-from)]...)
	}
	return i
}

// closeOpen judges the open entry, now read to its end. With a prefilter,
// an entry that never held its word is not read, as in a scan of the
// whole range.
func (s *scanner) closeOpen() {
	o := &s.open
	if !o.on {
		return
	}
	o.on = false
	if s.pf != nil && !o.searchCut {
		for i, w := range s.q.words {
			if bytes.Equal(w, s.pf.word) && o.found&(1<<i) == 0 {
				return
			}
		}
	}
	s.judge(o.head, o.cont, o.glued, func(i int, _ []byte) bool {
		s.searchCut = s.searchCut || o.searchCut
		return o.found&(1<<i) != 0
	})
}

// lastHeaderStart is where the next chunk must begin: the last header line of
// a full buffer (atHeader), or (if none but the first) the end of its last
// whole line.
func (s *scanner) lastHeaderStart(buf []byte) (cut int, atHeader bool) {
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return len(buf), false // one huge line: scan it alone
	}
	if s.lay == nil { // the first chunk, before detection: whole lines
		return end + 1, false
	}
	j := end + 1 // start of the incomplete last line
	for j > 0 {
		k := bytes.LastIndexByte(buf[:j-1], '\n')
		ls := k + 1
		line, _, _ := cutLine(buf, ls, len(buf), s.lineCap(), nil)
		// the cheap test of the line before first: a line after a part
		// (CRI P) is no header whatever it holds
		if ls > 0 && (s.lay.Partial == nil || !s.lay.Partial(s.lastLine(buf, ls))) && s.isHeader(line) {
			return ls, true
		}
		if ls == 0 {
			break
		}
		j = ls
	}
	return end + 1, false
}
