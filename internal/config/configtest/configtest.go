// Package configtest loads a configuration file in a throwaway workspace
// for the tests of the integration folders, each of which checks its own
// share of the configuration (config.Part) where it is written.
package configtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
)

// Load writes body as ./superbiz.toml of a fresh working directory, with
// XDG and HOME inside the test's temporary directory and env beside them,
// and loads it with parts. It returns the file's path too.
func Load(t testing.TB, body string, env map[string]string, parts ...config.Part) (*config.Config, string, error) {
	t.Helper()
	root := t.TempDir()
	wd := filepath.Join(root, "wd")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(wd, "superbiz.toml")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "xdgconfig"), "XDG_DATA_HOME": filepath.Join(root, "xdgdata"), "HOME": filepath.Join(root, "home")}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.Load(config.LoadOptions{WorkDir: wd, Getenv: func(k string) string { return vars[k] }, Parts: parts})
	return cfg, file, err
}

// Case is a file that must not load: its error says every text of Want
// (and names the file) and none of Not (a secret).
type Case struct {
	Name string
	TOML string
	Want []string
	Not  []string
}

// Errors loads each case with parts and checks its *config.Error.
func Errors(t *testing.T, parts []config.Part, cases []Case) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			cfg, file, err := Load(t, tt.TOML, nil, parts...)
			if err == nil {
				t.Fatalf("Load succeeded, want error; config:\n%s", cfg)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not *config.Error: %v", err, err)
			}
			msg := err.Error()
			for _, s := range append(tt.Want, file) {
				if !strings.Contains(msg, s) {
					t.Errorf("error lacks %q:\n%s", s, msg)
				}
			}
			for _, s := range tt.Not {
				if strings.Contains(msg, s) {
					t.Errorf("error contains %q:\n%s", s, msg)
				}
			}
		})
	}
}
