package cmd

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeCommandsMatchCI keeps the README's two newcomer commands and the
// command .ci/run runs from drifting apart.
func TestReadmeCommandsMatchCI(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := firstCodeBlock(string(readme))
	if len(block) != 2 {
		t.Fatalf("the README's first code block must hold exactly the two newcomer commands, got %q", block)
	}
	if block[0] != "go run . diagnose --demo" {
		t.Errorf("first newcomer command is %q, want %q", block[0], "go run . diagnose --demo")
	}
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if n := countCommand(string(ci), block[1]); n != 1 {
		t.Errorf("README test command %q appears %d times as a line of .ci/run, want exactly once", block[1], n)
	}
	if !strings.Contains(string(ci), `GOFLAGS="${GOFLAGS:+$GOFLAGS }-race"`) {
		t.Errorf(".ci/run no longer adds the race detector to the README's test command")
	}
	fi, err := os.Stat(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		t.Errorf(".ci/run is not executable (mode %v)", fi.Mode())
	}
}

// firstCodeBlock returns the non-blank lines of the first fenced block.
func firstCodeBlock(md string) []string {
	var lines []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			if in {
				return lines
			}
			in = true
			continue
		}
		if in && line != "" {
			lines = append(lines, line)
		}
	}
	return nil
}

// countCommand counts the lines of a shell script that are exactly cmd
// (surrounding blanks aside); comments never count.
func countCommand(script, cmd string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(script))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == cmd {
			n++
		}
	}
	return n
}

// TestReadmeInstallModule keeps the README's `go install .` naming the
// binary superbiz: go.mod's module path ends in superbiz and the main
// package sits at the module root. (e2e TestReadmeInstallFromClone runs it.)
func TestReadmeInstallModule(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for line := range strings.Lines(string(mod)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			path = f[1]
		}
	}
	if filepath.Base(path) != "superbiz" {
		t.Errorf("module path %q: go install . would name the binary %q", path, filepath.Base(path))
	}
	main, err := os.ReadFile(filepath.Join("..", "main.go"))
	if err != nil || !strings.Contains(string(main), "\npackage main\n") {
		t.Errorf("main.go at the module root is not package main (%v)", err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(readme), "go install "+path+"@latest` puts") {
		t.Errorf("the README offers `go install %s@latest`, which fails while the module is not published", path)
	}
}
