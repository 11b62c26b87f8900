package logs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Inspection is what `doctor` reports about one log source: how many files
// its globs match and which of them a query_logs call would skip, and why.
type Inspection struct {
	Files int
	// Skipped are the files a call would skip, each with the reason the model
	// sees and the underlying error for the operator.
	Skipped []SkippedFileDetail
	// TruncatedBy names the per-call limits the check itself hit: files past
	// that point were not checked.
	TruncatedBy []string
}

// SkippedFileDetail is a skipped file with its reason and the error behind it.
type SkippedFileDetail struct {
	SkippedFile
	Err error
}

// Inspect reads every file of src the way a query_logs call does (same
// skipping rules, same per-call limits) with a window no entry falls in, so
// doctor names exactly the files a call would skip. An error means the
// source itself is misconfigured or the globs cannot be expanded.
func Inspect(ctx context.Context, src Source) (Inspection, error) {
	t, err := New([]Source{src})
	if err != nil {
		return Inspection{}, err
	}
	s := t.sources[0]
	files, err := resolve(s.paths)
	if err != nil {
		return Inspection{}, err
	}
	in := Inspection{Files: len(files)}
	if len(files) == 0 {
		return in, nil
	}
	// near the last representable instant (leaving room for seekSlack):
	// time-ordered plain files are passed over by the binary search,
	// everything else is read to its end
	end := int64(math.MaxInt64) - int64(time.Hour)
	q := &query{startNS: end - int64(time.Minute), endNS: end, limit: 1}
	rep, err := t.scan(ctx, s, q, newAccumulator(1, s.loc), files)
	if err != nil {
		return in, fmt.Errorf("check log source %q: %w", s.name, err)
	}
	for i, sk := range rep.skipped {
		d := SkippedFileDetail{SkippedFile: sk, Err: rep.errs[i]}
		var fe *fileError
		if errors.As(rep.errs[i], &fe) {
			d.Err = fe.err
		}
		in.Skipped = append(in.Skipped, d)
	}
	in.TruncatedBy = rep.truncatedBy
	return in, nil
}
