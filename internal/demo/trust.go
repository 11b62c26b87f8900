package demo

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/adrg/xdg"
)

// dirMode is the mode of the workspace directory and of its parent when
// superbiz creates it: nobody else may plant runbook text or logs there.
const dirMode = 0o700

// maxMarkerBytes bounds the manifest read back from the marker file.
const maxMarkerBytes = 64 << 10

// DefaultDir is where --demo keeps its workspace: a per-user cache
// directory, $XDG_CACHE_HOME/superbiz/demo (adrg/xdg's platform default when
// XDG_CACHE_HOME is unset), never a shared temporary directory. getenv nil
// means os.Getenv.
func DefaultDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	base := xdg.CacheHome
	if v := getenv("XDG_CACHE_HOME"); filepath.IsAbs(v) {
		base = v
	}
	return filepath.Join(base, "superbiz", "demo")
}

// IndexDB is the file the demo's runbook index lives in, beside the demo
// workspace (DefaultDir), so --demo never writes into the person's run store.
func IndexDB(getenv func(string) string) string { return DefaultDir(getenv) + "-index.db" }

// errUntrusted marks a workspace that must be rebuilt before use.
var errUntrusted = errors.New("demo workspace does not match this superbiz")

// checkPrivate refuses a directory another user owns or may write to:
// for the workspace's parent, where such a directory could be swapped.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("demo workspace: %w", err)
	}
	switch {
	case !fi.IsDir():
		return fmt.Errorf("demo workspace: %s is not a directory: remove it or set XDG_CACHE_HOME", dir)
	case !ownedByMe(fi):
		return fmt.Errorf("demo workspace: %s belongs to another user: remove it or set XDG_CACHE_HOME", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("demo workspace: %s is writable by other users (mode %04o): chmod go-w it or set XDG_CACHE_HOME", dir, fi.Mode().Perm())
	}
	return nil
}

// verify checks a materialized workspace before it is trusted: the root is
// a real directory owned by this user with mode 0700, its marker names this
// Version and lists a SHA-256 for every file, the files on disk are exactly
// those (no extra file, no link, no special file) with those digests, and
// the runbooks' digests are the embedded runbooks'. Any difference is
// errUntrusted (wrapped with what differed).
func verify(root string) error {
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("%w: %v", errUntrusted, err)
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm() != dirMode {
		return fmt.Errorf("%w: %s is not a private directory of this user (mode %v)", errUntrusted, root, fi.Mode())
	}
	want, err := readManifest(filepath.Join(root, markerName))
	if err != nil {
		return err
	}
	embedded, err := runbookDigests()
	if err != nil {
		return err
	}
	for rel, sum := range embedded {
		if want[rel] != sum {
			return fmt.Errorf("%w: runbook %s is not the built-in one", errUntrusted, rel)
		}
	}
	got, err := digestTree(root)
	if err != nil {
		return fmt.Errorf("%w: %v", errUntrusted, err)
	}
	if len(got) != len(want) {
		return fmt.Errorf("%w: %d files on disk, %d expected", errUntrusted, len(got), len(want))
	}
	for rel, sum := range got {
		if want[rel] != sum {
			return fmt.Errorf("%w: %s was changed", errUntrusted, rel)
		}
	}
	return nil
}

// readManifest parses the marker: the Version line, then one
// "<sha256 hex>  <slash path>" line per file.
func readManifest(marker string) (map[string]string, error) {
	fi, err := os.Lstat(marker)
	if err != nil {
		return nil, fmt.Errorf("%w: no marker: %v", errUntrusted, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxMarkerBytes {
		return nil, fmt.Errorf("%w: the marker is not a small regular file", errUntrusted)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUntrusted, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != Version {
		return nil, fmt.Errorf("%w: marker of another version", errUntrusted)
	}
	out := map[string]string{}
	for sc.Scan() {
		sum, rel, ok := strings.Cut(sc.Text(), "  ")
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != sha256.Size*2 || rel == "" {
			return nil, fmt.Errorf("%w: malformed marker line %q", errUntrusted, sc.Text())
		}
		out[rel] = sum
	}
	return out, nil
}

// digestTree hashes every file under root except the marker, refusing
// anything that is neither a directory nor a regular file.
func digestTree(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == markerName {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		sum, err := fileDigest(p)
		if err != nil {
			return err
		}
		out[rel] = sum
		return nil
	})
	return out, err
}

// fileDigest is the hex SHA-256 of one file.
func fileDigest(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runbookDigests hashes the embedded runbooks by workspace-relative path.
func runbookDigests() (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(content, "workspace/runbooks", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := content.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[path.Clean(strings.TrimPrefix(p, "workspace/"))] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read embedded runbooks: %w", err)
	}
	return out, nil
}

// manifest is the marker's content for the tree under root.
func manifest(root string) ([]byte, error) {
	sums, err := digestTree(root)
	if err != nil {
		return nil, fmt.Errorf("digest demo workspace: %w", err)
	}
	rels := make([]string, 0, len(sums))
	for rel := range sums {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var b bytes.Buffer
	b.WriteString(Version + "\n")
	for _, rel := range rels {
		fmt.Fprintf(&b, "%s  %s\n", sums[rel], rel)
	}
	return b.Bytes(), nil
}
