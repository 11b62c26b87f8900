// Package demo is the built-in demo workspace behind `--demo`: Markdown
// runbooks (English and Chinese), a day of logs from four services and MySQL,
// and a SQLite orders database whose rows agree with the logs, so each of the
// five built-in playbooks can be exercised end to end with no setup.
//
// Runbooks and the schema are embedded; logs and rows are generated
// deterministically (fixed PCG seeds) from one incident model, so the bytes
// written are identical on every machine and every call.
package demo

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/superbiz/superbiz/pkg/defaults"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// Version names the content of the workspace; bump it whenever generated or
// embedded content changes so Materialize rewrites stale workspaces.
const Version = "superbiz-demo/2"

// The fixed demo day and clock: every relative window ("since 1h") of the demo
// query resolves against NowText, the way SUPERBIZ_NOW would.
const (
	Day     = "2026-11-28"
	NowText = "2026-11-28T15:00:00Z"
)

// TimelineSince is how far back from NowText the demo's timeline looks
// (`timeline --demo`'s default and the demo diagnosis's build_timeline
// call): its payment incident began at 14:00, so the hour before it, with
// payment-service's 13:58 deploy, must be in the window.
const TimelineSince = 2 * time.Hour

// Query is the built-in demo query: the default when --demo is given no query,
// and the only query the scripted demo transcript answers.
const Query = "payment timeouts on order-service since 14:00, many 504s at checkout"

// The incident windows in the demo logs and database (UTC, end exclusive),
// one per built-in playbook; README.md tells the story of each.
const (
	JVMStart      = "2026-11-28T06:00:00Z" // payment-service heap > 85 %, Full GCs, OOMKilled at 06:46
	JVMEnd        = "2026-11-28T06:48:00Z"
	RedisStart    = "2026-11-28T09:10:00Z" // user-service Redis timeouts at 3000 ms
	RedisEnd      = "2026-11-28T09:25:00Z"
	SlowStart     = "2026-11-28T11:00:00Z" // gateway P99 > 3 s on /api/orders/history and /api/orders/search
	SlowEnd       = "2026-11-28T11:30:00Z"
	PaymentStart  = "2026-11-28T14:00:00Z" // payment timeouts: HikariPool-1 50/50, slow full scan on payments
	PaymentEnd    = "2026-11-28T14:40:00Z"
	LogsEndText   = NowText // the logs cover Day 00:00 up to the demo clock
	DatabaseName  = "orders"
	LogSourceName = "demo"
)

// Now is the demo clock as a time.
func Now() time.Time { return mustTime(NowText) }

// Incident is one diagnosable case in the demo data, for tests and docs.
type Incident struct {
	// Playbook is the built-in playbook that fits the case.
	Playbook string
	Service  string
	Start    time.Time
	End      time.Time
}

// Incidents lists the demo's cases in time order.
func Incidents() []Incident {
	return []Incident{
		{"diagnose-jvm-memory-risk", "payment-service", mustTime(JVMStart), mustTime(JVMEnd)},
		{"diagnose-redis-timeout", "user-service", mustTime(RedisStart), mustTime(RedisEnd)},
		{"diagnose-slow-response", "gateway", mustTime(SlowStart), mustTime(SlowEnd)},
		{"diagnose-payment-timeout", "order-service", mustTime(PaymentStart), mustTime(PaymentEnd)},
		{"diagnose-mysql-connection-pool", "payment-service", mustTime(PaymentStart), mustTime(PaymentEnd)},
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(fmt.Sprintf("demo: bad built-in time %q: %v", s, err))
	}
	return t
}

// Workspace is a materialized demo: absolute paths the demo config points the
// runbook, log and database tools at (the demo has no metrics server).
type Workspace struct {
	Root        string
	RunbooksDir string
	// LogSources are the demo's [[logs]] entries, as config would load them.
	LogSources []logtool.Source
	// DBPath is the SQLite orders database; open it read-only.
	DBPath string
	// DBName is the database name the query_mysql tool exposes.
	DBName string
}

//go:embed workspace
var content embed.FS

// markerName is the file, written last, that holds the workspace's manifest:
// Version, then the SHA-256 of every other file.
const markerName = ".superbiz-demo"

// Materialize returns the demo workspace at dir, building it if needed. An
// existing workspace is used only when verify accepts it: a private (0700)
// directory of this user whose files are exactly those its marker lists,
// with those digests, and whose runbooks are the built-in ones. Otherwise a
// fresh workspace is built in a private sibling directory and renamed into
// place (the old one moved aside and removed), so a planted or half-written
// file is never used and two processes never tear one workspace. dir's
// parent must belong to this user and not be writable by others; a dir owned
// by another user is refused.
func Materialize(ctx context.Context, dir string) (*Workspace, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("demo workspace %s: %w", dir, err)
	}
	parent := filepath.Dir(root)
	if err := os.MkdirAll(parent, dirMode); err != nil {
		return nil, fmt.Errorf("create demo workspace: %w", err)
	}
	if err := checkPrivate(parent); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(root); err == nil && !ownedByMe(fi) {
		return nil, fmt.Errorf("demo workspace: %s belongs to another user: remove it or set XDG_CACHE_HOME", root)
	}
	if verify(root) == nil {
		return layout(root), nil
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(root)+".build-*")
	if err != nil {
		return nil, fmt.Errorf("create demo workspace: %w", err)
	}
	if err := build(ctx, tmp); err != nil {
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	if err := install(root, tmp); err != nil {
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	return layout(root), nil
}

// build writes a complete workspace under the empty private directory tmp,
// the marker with its manifest last.
func build(ctx context.Context, tmp string) error {
	if err := writeRunbooks(tmp); err != nil {
		return err
	}
	data := generate()
	for _, f := range data.files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("write demo logs: %w", err)
		}
		if err := writeFile(filepath.Join(tmp, filepath.FromSlash(f.path)), f.data); err != nil {
			return fmt.Errorf("write demo logs: %w", err)
		}
	}
	if err := buildDB(ctx, layout(tmp).DBPath, data); err != nil {
		return err
	}
	m, err := manifest(tmp)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, markerName), m); err != nil {
		return fmt.Errorf("write demo workspace marker: %w", err)
	}
	return nil
}

// install puts the built workspace tmp at root, unless another process
// installed a good one meanwhile (then tmp is dropped).
func install(root, tmp string) error {
	if verify(root) == nil {
		return os.RemoveAll(tmp)
	}
	aside := ""
	if _, err := os.Lstat(root); err == nil {
		aside = tmp + ".old"
		if err := os.Rename(root, aside); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("replace demo workspace %s: %w", root, err)
			}
			aside = ""
		}
	}
	if err := os.Rename(tmp, root); err != nil {
		if verify(root) != nil {
			return fmt.Errorf("install demo workspace %s: %w", root, err)
		}
		// Another process installed a good one first.
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("drop demo workspace build: %w", err)
		}
	}
	if aside != "" {
		if err := os.RemoveAll(aside); err != nil {
			return fmt.Errorf("remove replaced demo workspace: %w", err)
		}
	}
	return nil
}

// Layout is the workspace Materialize would give for dir, its paths only:
// nothing is checked, built or written, and the files may not exist yet.
// The shell completion names the demo's sources from it, since completing
// must never write (the cache is built by the first command that reads it).
func Layout(dir string) (*Workspace, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("demo workspace %s: %w", dir, err)
	}
	return layout(root), nil
}

func layout(root string) *Workspace {
	logs := filepath.Join(root, "logs")
	return &Workspace{
		Root:        root,
		RunbooksDir: filepath.Join(root, "runbooks"),
		LogSources:  []logtool.Source{logSource(logs)},
		DBPath:      filepath.Join(root, "orders.db"),
		DBName:      DatabaseName,
	}
}

// logSource is the demo's one [[logs]] entry over the log directory: the
// declared defaults, format auto, every stamp in UTC.
func logSource(dir string) logtool.Source {
	s := defaults.Of[logtool.Source]()
	s.Name = LogSourceName
	s.Paths = []string{filepath.Join(dir, "*", "*.log"), filepath.Join(dir, "*", "*.log.*.gz")}
	s.Format = logtool.FormatAuto
	s.Timezone, s.Location = "UTC", time.UTC
	return s
}

func writeRunbooks(root string) error {
	return fs.WalkDir(content, "workspace/runbooks", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read embedded runbooks: %w", err)
		}
		if d.IsDir() {
			return nil
		}
		data, err := content.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read embedded runbook %s: %w", p, err)
		}
		rel := path.Clean(p[len("workspace/"):])
		if err := writeFile(filepath.Join(root, filepath.FromSlash(rel)), data); err != nil {
			return fmt.Errorf("write demo runbook: %w", err)
		}
		return nil
	})
}

// writeFile replaces name atomically (a uniquely named temp file, then a
// rename, so two processes materializing the same directory cannot tear a
// file) unless it already holds exactly data.
func writeFile(name string, data []byte) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		return errors.Join(err, os.Remove(f.Name()))
	}
	return nil
}
