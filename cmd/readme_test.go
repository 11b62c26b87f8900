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

// TestReadmeGoInstall keeps the README's `go install MODULE@latest` working:
// the path is go.mod's module path, whose last element names the binary, the
// main package sits at the module root, and go.mod has no replace or exclude
// directive (`go install pkg@version` refuses a module that has one).
func TestReadmeGoInstall(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for line := range strings.Lines(string(mod)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "module":
			path = f[1]
		case "replace", "exclude":
			t.Errorf("go.mod has a %s directive, which `go install %s@latest` refuses: %q", f[0], path, strings.TrimSpace(line))
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "`go install " + path + "@latest`"; !strings.Contains(string(readme), want) {
		t.Errorf("README lacks %s", want)
	}
	if filepath.Base(path) != "superbiz" {
		t.Errorf("module path %q: go install would name the binary %q", path, filepath.Base(path))
	}
	main, err := os.ReadFile(filepath.Join("..", "main.go"))
	if err != nil || !strings.Contains(string(main), "\npackage main\n") {
		t.Errorf("main.go at the module root is not package main (%v)", err)
	}
}
