package logs

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/superbiz/superbiz/internal/logparse"
)

// scanFile runs the query over one file: gzip (by magic bytes) and platforms
// without mmap stream; plain files are mapped and, when time-ordered,
// searched by binary search for the window. read says whether any of the
// file was searched; a fault of the file itself is a *fileError.
func (s *scanner) scanFile(path string, cands []*logparse.Layout) (read bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fileFault(reasonOpen, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fileFault(reasonOpen, err)
	}
	if st.Size() == 0 {
		return false, nil
	}
	// stamps without a year belong to the year of the file's last write
	s.tc.SetRef(max(st.ModTime().UnixNano(), 1))
	s.pathService = logparse.PathService(path)
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return false, fileFault(reasonGzipHeader, err)
		}
		defer zr.Close()
		read, err := s.scanStream(&cappedReader{r: zr, budget: &s.budget}, cands)
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && !errors.Is(err, errDecompressedCap) && s.ctx.Err() == nil {
			// the gzip stream itself failed part way
			reason := reasonGzipCorrupt
			if errors.Is(err, io.ErrUnexpectedEOF) {
				reason = reasonGzipEnds
			}
			err = fileFault(reason, err)
		}
		return read, err
	}
	if logparse.IsUTF16(magic[:]) { // decoded while it is streamed
		read, err := s.scanStream(f, cands)
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && s.ctx.Err() == nil {
			err = fileFault(reasonOpen, err)
		}
		return read, err
	}
	data, release, err := mapFile(f, st.Size())
	if errors.Is(err, errNoMap) {
		read, err := s.scanStream(f, cands)
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && s.ctx.Err() == nil {
			err = fileFault(reasonOpen, err)
		}
		return read, err
	}
	if err != nil {
		return false, fileFault(reasonOpen, err)
	}
	// munmap fails only for an address range that was never mapped, which
	// would be a bug here, not a condition of the file.
	defer func() { _ = release() }()
	s.src, s.srcAt = f, 0
	defer func() { s.src = nil }()
	return s.scanMapped(data, cands)
}

// scanMapped searches a mapped file. One smaller than seekMin is read in
// full; a larger one that its samples show in time order is searched by
// binary search for the window, the seek then checked against the lines
// around it and the entries it reads: when any of them is out of order, the
// rest of the file is read too. A file that shrinks while it is mapped
// (rotated by truncation, rewritten) faults on the pages past its new end:
// that fault becomes a skip of this file instead of a crash of the process.
func (s *scanner) scanMapped(data []byte, cands []*logparse.Layout) (read bool, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			fault, ok := r.(interface{ Addr() uintptr })
			if !ok {
				panic(r)
			}
			err = fileFault(reasonShrank, fmt.Errorf("memory fault at %#x reading the mapped file: %v", fault.Addr(), r))
		}
	}()
	full := len(data)
	data = bytes.TrimPrefix(data, logparse.UTF8BOM)
	if blank(data) {
		return false, nil
	}
	if err := s.setup(cands, data); err != nil {
		return false, err
	}
	read = true // from here a fault means part of the file was searched
	// the header before the first entry (of any length) is counted as
	// unparsed, not searched: seek or not, the search starts past it
	start, err := s.skipLeading(data)
	if err != nil {
		return true, err
	}
	data = data[start:]
	s.srcAt = int64(full - len(data))
	lo, hi := 0, len(data)
	// a batch line is placed by its first record, while its other records
	// may lie anywhere in time: such files are read linearly
	// the samples mark a file out of order whether or not it is sought
	ordered := s.lay.Each == nil && s.ordered(data)
	if ordered && !s.noSeek && !s.inOrder && int64(len(data)) >= s.seekMin {
		l, lok := s.lowerBound(data, s.q.startNS-int64(seekSlack))
		h, hok := s.lowerBound(data, s.q.endNS+int64(seekSlack)+1)
		if lok && hok {
			lo, hi = l, max(h, l)
			s.checkSeek(data, lo, hi)
		}
	}
	if hi > lo && !s.reads() {
		adviseRead(data[lo:min(hi, lo+maxAdvise)])
	}
	if err := s.scanPart(data, lo, hi); err != nil {
		return true, err
	}
	if s.disordered && (lo > 0 || hi < len(data)) {
		// the range the binary search chose cannot be trusted: the rest
		// of the file is searched too (still within the call's limits)
		if err := s.scanPart(data, 0, lo); err != nil {
			return true, err
		}
		return true, s.scanPart(data, hi, len(data))
	}
	return true, nil
}

// maxAdvise bounds the range adviseRead pre-faults before a scan: the
// advice is one system call the call's time limit cannot interrupt, and
// pre-faulting a 60 GiB window (a sparse file's hole) took 38-80 s. Past
// it, pages are faulted as the scan reaches them.
const maxAdvise = 256 << 20

// reads says whether scanPart reads the file instead of the mapping: for
// a contains scan, which parses only the entries around its matches. On a
// virtual machine a scan of mapped pages pays a page-table walk per 4 KiB
// and each first touch of a page a fault of microseconds; reading the
// range in chunks cut the time of BenchmarkContainsNeedles by over half, and
// the entries around a match are then parsed from the chunk, never
// faulted in one by one.
func (s *scanner) reads() bool {
	return s.pf != nil && s.src != nil
}

// scanPart runs the query over data[lo:hi] of a mapped file: scanRange on
// the mapping, or when s.reads, the chunked stream scan over that range
// of the file. A range that reads short (the file shrank) is a fault of
// the file, as a fault of its mapping would be.
func (s *scanner) scanPart(data []byte, lo, hi int) error {
	if !s.reads() || hi <= lo {
		return s.scanRange(data, lo, hi)
	}
	r := &countingReader{r: io.NewSectionReader(s.src, s.srcAt+int64(lo), int64(hi-lo))}
	// a small range gets a buffer of its size (and a byte to see its end)
	if _, err := s.scanChunks(r, nil, min(s.chunkSize(), hi-lo+1)); err != nil {
		return err
	}
	if r.n < int64(hi-lo) && s.ctx.Err() == nil {
		return fileFault(reasonShrank, fmt.Errorf("read %d of the %d bytes searched: the file shrank", r.n, hi-lo))
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
