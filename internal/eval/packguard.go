package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/filekind"
	"github.com/superbiz/superbiz/internal/integration/databases"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// A pack is shared data (a suite cloned from a colleague, a published
// pack): its files are read bounded, it holds only the tables below, and
// everything it names lies inside its own folder.
const (
	// MaxPackEntries bounds the files and folders of one pack.
	MaxPackEntries = 10000
)

// packTOML is how scenario.toml and a pack's superbiz.toml are read: through
// the configuration's guards (a regular file, its size bound, then its
// nesting bound before any decoder runs).
var packTOML = config.Untrusted{What: "pack file", Limit: config.MaxFileBytes, Kind: "a .toml file", Size: "a pack's TOML is a few KiB"}

// readTOML reads one of a pack's TOML files through packTOML and the
// configuration's nesting bound.
func readTOML(file string) ([]byte, error) {
	data, err := config.ReadRegular(file, packTOML)
	if err != nil {
		return nil, err
	}
	if err := config.CheckNesting(data); err != nil {
		return nil, fmt.Errorf("%s:%w", file, err)
	}
	return data, nil
}

// packTables are the superbiz.toml tables a pack may hold beside those of
// the registry's Packed sources (registry.PackTables). Every other one is
// refused: [model] (the eval command line chooses the model), [alerts]
// (the alert is in scenario.toml), [[metrics]] (a pack's metrics are its
// metrics.om), and the rest, which would name a network endpoint, an
// environment variable or the runner's own files.
var packTables = []registry.PackTable{{Key: "logs", Shown: "[[logs]]"}, {Key: "databases", Shown: "[[databases]]"}}

// allowedTables are the keys of every table a pack may hold, and the
// sentence naming them ("[[logs]], …, [knowledge] and [skills]").
func allowedTables() (keys []string, shown string) {
	var names []string
	for _, t := range append(slices.Clone(packTables), registry.PackTables()...) {
		keys, names = append(keys, t.Key), append(names, t.Shown)
	}
	return keys, strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// checkTables refuses a table a pack may not hold, and a database that is
// not a SQLite file of the pack (a MySQL DSN is a network endpoint).
func checkTables(file string, raw map[string]any) error {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	allowed, shown := allowedTables()
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return packError(file, k, "a pack may hold only %s (and its own %s): the model comes from the eval command line, the alert from %s, and a pack names no network endpoint, environment variable or file outside its folder", shown, strings.Join(ownedFiles(), ", "), ScenarioFile)
		}
	}
	dbs, _ := raw["databases"].([]map[string]any)
	for i, db := range dbs {
		if d, ok := db["driver"].(string); ok && d != string(sqlquery.DriverSQLite) {
			return packError(file, fmt.Sprintf("databases[%d].driver", i), "%q: a pack's database is a SQLite file or .sql script in the pack; a %s DSN names a network endpoint", d, d)
		}
	}
	return nil
}

// within reports whether path (absolute, cleaned) lies in dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// insidePack refuses a resolved pack configuration naming a path outside
// the pack's folder dir: a log path, a SQLite DSN, or a path of a Packed
// source's table (a runbook or playbook folder).
func insidePack(dir string, cfg *config.Config) error {
	type named struct{ key, path string }
	var paths []named
	for i, l := range logsource.Entries(cfg) {
		for j, p := range l.Paths {
			paths = append(paths, named{fmt.Sprintf("logs[%d].paths[%d]", i, j), p})
		}
	}
	for i, d := range databases.Entries(cfg) {
		paths = append(paths, named{fmt.Sprintf("databases[%d].dsn", i), d.DSN.Reveal()})
	}
	for _, pp := range registry.PackPaths(cfg) {
		paths = append(paths, named{pp.Key, pp.Path})
	}
	for _, n := range paths {
		if !filepath.IsAbs(n.path) || !within(dir, filepath.Clean(n.path)) {
			return packError(filepath.Join(dir, ConfigFile), n.key, "%q lies outside the pack %s: a pack names only its own files", n.path, dir)
		}
	}
	return nil
}

// walkPack checks every entry of the pack's folder dir: folders and regular
// files, and symbolic links that resolve to one of them inside the pack.
// A link out of the pack, a FIFO, a device or a socket is refused, and so
// is a pack of more than MaxPackEntries entries.
func walkPack(dir string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("pack %s: %w", dir, err)
	}
	n := 0
	errTooMany := errors.New("too many entries")
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > MaxPackEntries {
			return errTooMany
		}
		typ := d.Type()
		if typ&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				return packError(path, "", "a link that does not resolve: %v", err)
			}
			if !within(root, target) {
				return packError(path, "", "links to %s, outside the pack: a pack names only its own files", target)
			}
			st, err := os.Stat(target)
			if err != nil {
				return packError(path, "", "%v", err)
			}
			typ = st.Mode().Type()
		}
		if typ.IsDir() || typ.IsRegular() {
			return nil
		}
		return packError(path, "", "is %s, not a regular file: a pack holds files and folders", filekind.Describe(typ))
	})
	if errors.Is(err, errTooMany) {
		return fmt.Errorf("pack %s: more than %d files and folders", dir, MaxPackEntries)
	}
	return err
}
