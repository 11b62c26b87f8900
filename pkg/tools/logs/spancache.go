package logs

import (
	"context"
	"os"
	"sync"
)

// maxCachedSpans bounds the files whose coverage sample one source keeps.
const maxCachedSpans = 4096

// spanCache keeps the coverage sample of each file of a source while the
// file stays the same (the same file, size and modification time), so the
// calls of one run (a timeline makes dozens over the same files) sample
// each file once instead of reading its head and tail at every call.
type spanCache struct {
	mu sync.Mutex
	m  map[string]cachedSpan
}

// cachedSpan is one file's sample and what the file was when it was taken.
type cachedSpan struct {
	info os.FileInfo
	rep  FileReport
}

// span is the coverage sample of path (sample with no entries), taken again
// only when the file changed since the last one. The file is looked at
// before it is sampled, so a change during the sample makes the next call
// sample again.
func (s *source) span(ctx context.Context, path string) (FileReport, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileReport{}, err
	}
	c := s.spans
	c.mu.Lock()
	got, ok := c.m[path]
	c.mu.Unlock()
	if ok && os.SameFile(got.info, st) && got.info.Size() == st.Size() && got.info.ModTime().Equal(st.ModTime()) {
		return got.rep, nil
	}
	rep, _, err := s.sample(ctx, path, 0)
	if err != nil {
		return rep, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedSpans {
		c.m = map[string]cachedSpan{}
	}
	c.m[path] = cachedSpan{info: st, rep: rep}
	return rep, nil
}
