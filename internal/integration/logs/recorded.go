package logs

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// RecordedFile is the pack file of recorded query_logs answers on
// victorialogs sources: a pack holds no VictoriaLogs server, so it holds
// the run's calls on those sources and what they observed
// (frozen.Recording), and eval answers an equal call from it; calls on the
// pack's file sources run on the frozen files.
const RecordedFile = "victorialogs.json"

// recordedURL is where a recorded source "is": the discard port of the
// loopback, never dialled (the recording answers every call on it).
const recordedURL = "http://127.0.0.1:9"

// maxRecordedWindow is a recorded source's max_window: the longest any
// source may have, so a call the run made is never refused in replay.
const maxRecordedWindow = 744 * time.Hour

// freezeRecorded records the run's query_logs calls on the victorialogs
// sources names, with their observations (redacted), in RecordedFile; the
// URL, tenant and credentials are not kept, only the source's name.
func (s Source) freezeRecorded(p *frozen.Pack, names []string) error {
	if len(names) == 0 {
		return nil
	}
	rec := frozen.Recording{Tool: logtool.ToolName, Sources: names, Calls: p.Record(logtool.ToolName, names, s.Reads)}
	return p.WriteRecording(RecordedFile, rec)
}

// Owns is RecordedFile.
func (Source) Owns() frozen.Owned { return frozen.Owned{Files: []string{RecordedFile}} }

// Replay reads the pack's RecordedFile; nil when the pack has none.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	rec, err := frozen.ReadRecording(filepath.Join(r.Dir, RecordedFile), logtool.ToolName)
	if rec == nil || err != nil {
		return nil, err
	}
	return rec.Serve(addRecorded), nil
}

// addRecorded adds the recorded source name to cfg, on no server.
func addRecorded(cfg *config.Config, name string) {
	s := NewEntry()
	s.Name, s.Backend, s.URL, s.Timezone, s.MaxWindow = name, logtool.BackendVictoriaLogs, recordedURL, "UTC", maxRecordedWindow
	SetEntries(cfg, append(slices.Clone(Entries(cfg)), s)...)
}
