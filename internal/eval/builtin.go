package eval

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// builtinFS is the built-in suite (`--suite builtin`): one directory per pack.
//
//go:embed all:builtin
var builtinFS embed.FS

// BuiltinSuite is the --suite value naming the embedded suite.
const BuiltinSuite = "builtin"

// WriteBuiltin writes the built-in suite under dir (a pack's data must be
// real files for the tools to read) and returns the suite's directory.
func WriteBuiltin(dir string) (string, error) {
	root := filepath.Join(dir, BuiltinSuite)
	err := fs.WalkDir(builtinFS, BuiltinSuite, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := builtinFS.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		return "", fmt.Errorf("write the built-in suite: %w", err)
	}
	return root, nil
}
