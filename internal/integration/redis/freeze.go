package redis

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// RecordedFile is the pack file of recorded query_redis answers: a pack
// holds no Redis server, so it holds the run's views and what they showed
// (frozen.Recording), and eval answers an equal call from it.
const RecordedFile = "redis.json"

// recordedURL is where a recorded source "is": the discard port of the
// loopback, never dialled (the recording answers every call on it).
const recordedURL = "redis://127.0.0.1:9"

// Freezes is query_redis.
func (Source) Freezes() []string { return []string{redistool.ToolName} }

// Freeze records the run's query_redis calls on each source it read, with
// their observations (redacted), in RecordedFile; the URL and the password
// are not kept, only the source's name.
func (s Source) Freeze(_ context.Context, p *frozen.Pack) error {
	names := p.SourcesRead(redistool.ToolName, s.Reads)
	for _, name := range names {
		if !slices.ContainsFunc(Entries(p.Config), func(r redistool.Source) bool { return r.Name == name }) {
			return p.Gone("redis source", name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	rec := frozen.Recording{Tool: redistool.ToolName, Sources: names, Calls: p.Record(redistool.ToolName, names, s.Reads)}
	return p.WriteRecording(RecordedFile, rec)
}

// Owns is RecordedFile.
func (Source) Owns() frozen.Owned { return frozen.Owned{Files: []string{RecordedFile}} }

// Replay reads the pack's RecordedFile; nil when the pack has none.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	rec, err := frozen.ReadRecording(filepath.Join(r.Dir, RecordedFile), redistool.ToolName)
	if rec == nil || err != nil {
		return nil, err
	}
	return rec.Serve(addRecorded), nil
}

// addRecorded adds the recorded source name to cfg, on no server.
func addRecorded(cfg *config.Config, name string) {
	r := NewEntry()
	r.Name, r.URL = name, recordedURL
	config.SetTable(cfg, table, append(slices.Clone(Entries(cfg)), r))
}
