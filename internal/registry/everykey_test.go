package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
)

// module is the import path every folder of the repository is under.
const module = "github.com/superbiz/superbiz/"

// folderOf is the repository folder, relative to this package's, of the
// integration x (a Source or Provider value).
func folderOf(x any) string {
	return filepath.Join("..", "..", strings.TrimPrefix(reflect.TypeOf(x).PkgPath(), module))
}

// everyKeyFiles are internal/config's testdata/every_key.toml (its own
// tables) and each registered integration folder's testdata/every_key*.toml
// (its table's keys; keys that exclude each other in separate files).
func everyKeyFiles(t *testing.T) []string {
	files := []string{"../config/testdata/every_key.toml"}
	var folders []string
	for _, p := range Providers() {
		folders = append(folders, folderOf(p))
	}
	for _, s := range Sources() {
		folders = append(folders, folderOf(s))
	}
	for _, dir := range slices.Compact(folders) {
		m, err := filepath.Glob(filepath.Join(dir, "testdata", "every_key*.toml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// TestEveryKeyIsDecoded loads, one by one, files that together set every
// declared key to a value other than its default: each key must reach a
// loaded configuration, so a key the decoder skips (or reads into the wrong
// field) fails here. The files are config's own and each registered
// integration's, so a new source's keys are checked by its folder's file.
func TestEveryKeyIsDecoded(t *testing.T) {
	decoded := map[string]bool{}
	for _, file := range everyKeyFiles(t) {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, _, err := load(t, string(body), nil)
		if err != nil {
			t.Errorf("Load %s: %v", file, err)
			continue
		}
		for _, key := range config.Keys(Parts()...) {
			def := config.Default(key, Parts()...)
			for _, v := range cfg.Values(key) {
				decoded[key] = decoded[key] || !reflect.DeepEqual(v, def)
			}
		}
	}
	for _, key := range config.Keys(Parts()...) {
		if !decoded[key] {
			t.Errorf("%s: no every_key file loads a value other than its default (the decoder skipped it, or no file sets it: add it to its folder's testdata/every_key.toml)", key)
		}
	}
}
