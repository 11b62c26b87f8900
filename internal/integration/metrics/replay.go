package metrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
)

// What a pack holds of the metrics the run read.
const (
	// PackFile is the pack file of frozen samples, OpenMetrics text that
	// eval backfills into a Prometheus of the pack's own.
	PackFile = "metrics.om"
	// ScenarioKey is scenario.toml's list of the metrics sources PackFile
	// is served as.
	ScenarioKey = "metrics_sources"
	// DefaultSource is the metrics source PackFile is served as when
	// scenario.toml names none.
	DefaultSource = "prom"
	// MaxPackBytes bounds a pack's PackFile, and one answer eval pack reads.
	MaxPackBytes = 64 << 20
)

// Owns is PackFile and ScenarioKey.
func (Source) Owns() frozen.Owned {
	return frozen.Owned{Files: []string{PackFile}, ScenarioKeys: []string{ScenarioKey}}
}

// Replay reads a pack's PackFile (bounded) and the names it is served as;
// nil for a pack without PackFile, which may then name none.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	file := filepath.Join(r.Dir, frozen.ScenarioFile)
	var names []string
	if raw, ok := r.Scenario[ScenarioKey]; ok {
		list, _ := raw.([]any)
		for _, v := range list {
			s, ok := v.(string)
			if !ok {
				return nil, frozen.PackError(file, ScenarioKey, "%v is not a list of names", raw)
			}
			names = append(names, s)
		}
		if list == nil {
			return nil, frozen.PackError(file, ScenarioKey, "%v is not a list of names", raw)
		}
	}
	om := filepath.Join(r.Dir, PackFile)
	switch st, err := os.Stat(om); {
	case err == nil && st.Size() > MaxPackBytes:
		return nil, frozen.PackError(om, "", "larger than the %d MiB limit (%d bytes)", MaxPackBytes>>20, st.Size())
	case errors.Is(err, os.ErrNotExist):
		if len(names) > 0 {
			return nil, frozen.PackError(file, ScenarioKey, "names metrics sources, but the pack has no %s to serve", PackFile)
		}
		return nil, nil
	case err != nil:
		return nil, frozen.PackError(om, "", "%v", err)
	}
	if len(names) == 0 {
		names = []string{DefaultSource}
	}
	return served{om: om, names: names}, nil
}

// served is a pack's PackFile, served as the sources names.
type served struct {
	om    string
	names []string
}

// Missing is why packs with metrics cannot run here: promtool and
// prometheus must both be on PATH.
func (s served) Missing() string { return metricsMissing() }

// Start backfills the samples into a Prometheus of the pack's own.
func (s served) Start(ctx context.Context, work string) (frozen.Server, error) {
	prom, err := startPrometheus(ctx, s.om, work)
	if err != nil {
		return nil, err
	}
	return server{prom: prom, names: s.names}, nil
}

// server is the pack's running Prometheus.
type server struct {
	prom  *prometheus
	names []string
}

// Configure adds a [[metrics]] source on the pack's Prometheus for each name.
func (s server) Configure(cfg *config.Config) error {
	es := slices.Clone(Entries(cfg))
	for _, name := range s.names {
		m := NewEntry()
		m.Name, m.URL = name, s.prom.URL
		es = append(es, m)
	}
	SetEntries(cfg, es...)
	// The names are the pack's: checked as any configured source's.
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%s: %s: %w", frozen.ScenarioFile, ScenarioKey, err)
	}
	return nil
}

// Stop ends the pack's Prometheus.
func (s server) Stop() error { return s.prom.stop() }
