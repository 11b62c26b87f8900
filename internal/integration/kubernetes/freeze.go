package kubernetes

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// RecordedFile is the pack file of recorded query_kubernetes answers: a
// pack holds no cluster, so it holds the run's calls and what they showed
// (frozen.Recording), and eval answers an equal call from it.
const RecordedFile = "kubernetes.json"

// Freezes is query_kubernetes.
func (Source) Freezes() []string { return []string{kubetool.ToolName} }

// Freeze records the run's query_kubernetes calls on each cluster they
// read, with their observations (redacted), in RecordedFile, and each
// source's namespace allowlist (the tool is offered again as the run
// offered it); the kubeconfig and its context are not kept, only the name.
func (s Source) Freeze(_ context.Context, p *frozen.Pack) error {
	names := p.SourcesRead(kubetool.ToolName, s.Reads)
	rec := frozen.Recording{Tool: kubetool.ToolName, Sources: names, Calls: p.Record(kubetool.ToolName, names, s.Reads)}
	for _, name := range names {
		es := Entries(p.Config)
		i := slices.IndexFunc(es, func(k kubetool.Source) bool { return k.Name == name })
		if i < 0 {
			return p.Gone("kubernetes source", name)
		}
		if ns := es[i].Namespaces; len(ns) > 0 {
			if rec.Allowlists == nil {
				rec.Allowlists = map[string][]string{}
			}
			rec.Allowlists[name] = ns
		}
	}
	return p.WriteRecording(RecordedFile, rec)
}

// Owns is RecordedFile.
func (Source) Owns() frozen.Owned { return frozen.Owned{Files: []string{RecordedFile}} }

// Replay reads the pack's RecordedFile; nil when the pack has none.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	rec, err := frozen.ReadRecording(filepath.Join(r.Dir, RecordedFile), kubetool.ToolName)
	if rec == nil || err != nil {
		return nil, err
	}
	return rec.Serve(func(cfg *config.Config, name string) {
		k := NewEntry()
		// no kubeconfig at all (never the user's own): the recording
		// answers every call on the source, none reaches a cluster
		k.Name, k.Namespaces, k.Kubeconfig = name, rec.Allowlists[name], os.DevNull
		SetEntries(cfg, append(slices.Clone(Entries(cfg)), k))
	}), nil
}
