package logs

import (
	"errors"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
)

// Per-call scan bounds. One query_logs call reads at most this much data out
// of gzip files (over all its files together) and scans for at most this
// long; past either, it stops and says so in truncated_by instead of running
// until the run's deadline (a 4.7 MB gzip that expands to 2 GiB once took 20
// s). Plain files are bounded by their size on disk and by the time cap.
// 256 MiB of decompressed text is days of a busy service's rotated logs and
// about a second of decompression; searching it takes longer when most lines
// match, which the time limit bounds. 5 s keeps one call a small part of a
// run's deadline.
const (
	defaultMaxDecompressed int64 = 256 << 20
	defaultMaxScanTime           = 5 * time.Second
)

// defaultSeekMin is the size from which a plain file that looks time-ordered
// is searched by binary search. A smaller file is read in full, so an entry
// out of order anywhere in it is found: reading 16 MiB takes a few tens of
// milliseconds, and files that small are where merged multi-node logs (the
// Loghub HPC sample) are met; a binary search's saving matters for the
// gigabyte files.
const defaultSeekMin int64 = 16 << 20

// A line longer than its layout's LineCap (logparse.MaxLineBytes, or
// logparse.MaxBatchLineBytes for a batch layout) is cut: its head is parsed
// and the rest is skipped to the next newline without copying, in skipChunk
// steps between which the call's context is checked; such lines are counted
// in long_lines. tickBytes of parsed line text between context checks, one
// line's head, keep the time cap and the run's end prompt on long lines
// (a custom regexp over a 64 KiB head takes milliseconds, tens under -race).
const (
	skipChunk = 16 << 20
	tickBytes = logparse.MaxLineBytes
)

// scanLimits are the per-call scan bounds of a Tool (tests inject small ones).
type scanLimits struct {
	// decompressed caps the bytes read out of gzip streams in one call.
	decompressed int64
	// time caps the wall time of one call's scan.
	time time.Duration
	// seekMin is the file size from which binary search is used.
	seekMin int64
}

func defaultLimits() scanLimits {
	return scanLimits{decompressed: defaultMaxDecompressed, time: defaultMaxScanTime, seekMin: defaultSeekMin}
}

// Values of truncated_by: which per-call limit stopped the scan early.
const (
	limitDecompressed = "decompressed_bytes"
	limitTime         = "time"
)

var (
	// errDecompressedCap ends a gzip stream once the call's budget is spent.
	errDecompressedCap = errors.New("per-call limit of decompressed bytes reached")
	// errScanTimeCap is the cause of the call's own scan deadline, told apart
	// from the run's deadline (which fails the call with TIMEOUT).
	errScanTimeCap = errors.New("per-call scan time limit reached")
)

// maxSkippedListed bounds skipped_files in a result; skipped_count has all.
const maxSkippedListed = 5

// Reasons a file is skipped, as the model and doctor see them: fixed texts,
// never raw error strings (the detail goes to the audit and to doctor). One
// of the suffixes says whether part of the file was searched before it.
const (
	reasonOpen        = "cannot be opened or read"
	reasonGzipHeader  = "gzip header is invalid or incomplete"
	reasonGzipEnds    = "gzip data ends early (truncated or still being written)"
	reasonGzipCorrupt = "gzip data is corrupt"
	reasonBinary      = "binary data, not a log"
	reasonNoTime      = "no line with a recognisable timestamp among the lines sampled"
	reasonShrank      = "the file shrank while it was read (truncated or rotated)"

	suffixPartlyRead = "; searched up to that point"
	suffixNotRead    = "; not read"
)

// fileError is a fault of one file: it is skipped (the others are still
// read) and named in skipped_files with its reason.
type fileError struct {
	reason string
	err    error
}

func (e *fileError) Error() string { return e.reason + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

func fileFault(reason string, err error) error {
	return &fileError{reason: reason, err: err}
}

// SkippedFile is a log file a call could not read (fully), and why.
type SkippedFile struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}
