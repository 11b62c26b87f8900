package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// benchPack is a built-in pack with a question and no metrics: the same
// diagnosis runs through eval and through diagnose.
const benchPack = "db-pool-exhaustion"

// BenchmarkEvalPack is one pack through `superbiz eval` with the scripted
// model: write the built-in suite, load it, a fresh workspace and store,
// the diagnosis, read back and grade. Compare with BenchmarkDiagnosePack
// for eval's own overhead per pack.
func BenchmarkEvalPack(b *testing.B) {
	tr := loadTranscript(b, benchPack)
	srv := ollamatest.NewServer()
	defer srv.Close()
	env := map[string]string{"OLLAMA_HOST": srv.URL(), "XDG_DATA_HOME": b.TempDir(), "XDG_CONFIG_HOME": b.TempDir()}
	for b.Loop() {
		srv.Script(tr.Good.turns(tr.Calls)...)
		if code := runB(env, "eval", "--filter", benchPack, "-o", "json"); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkDiagnosePack is the same diagnosis through `superbiz diagnose`
// on the pack's own configuration, in a fresh store each time.
func BenchmarkDiagnosePack(b *testing.B) {
	tr := loadTranscript(b, benchPack)
	suite, err := eval.WriteBuiltin(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	packs, err := eval.LoadSuite(suite)
	if err != nil {
		b.Fatal(err)
	}
	var p *eval.Pack
	for _, q := range packs {
		if q.ID == benchPack {
			p = q
		}
	}
	srv := ollamatest.NewServer()
	defer srv.Close()
	env := map[string]string{"OLLAMA_HOST": srv.URL(), "SUPERBIZ_NOW": p.Now.Format("2006-01-02T15:04:05Z07:00"), "XDG_CONFIG_HOME": b.TempDir()}
	dbs := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		srv.Script(tr.Good.turns(tr.Calls)...)
		env["SUPERBIZ_DB"] = filepath.Join(dbs, strconv.Itoa(i)+".db")
		if code := runB(env, "--config", filepath.Join(p.Dir, eval.ConfigFile), "diagnose", "-o", "json", p.Question); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// runB runs one command line in-process, its output discarded.
func runB(env map[string]string, args ...string) int {
	return run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
}

// BenchmarkEvalSuiteSetup is what every eval invocation does once, before
// any pack runs: write the built-in suite and load its 24 packs strictly.
func BenchmarkEvalSuiteSetup(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		suite, err := eval.WriteBuiltin(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eval.LoadSuite(suite); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalRegrade is eval's grading of one recorded pack with no
// model: suite setup, read the stored run back, grade, print.
func BenchmarkEvalRegrade(b *testing.B) {
	tr := loadTranscript(b, benchPack)
	srv := ollamatest.NewServer()
	defer srv.Close()
	dir := b.TempDir()
	env := map[string]string{"OLLAMA_HOST": srv.URL(), "SUPERBIZ_DB": filepath.Join(dir, "rec.db"), "XDG_CONFIG_HOME": dir}
	srv.Script(tr.Good.turns(tr.Calls)...)
	var out strings.Builder
	if code := run(context.Background(), []string{"eval", "--filter", benchPack, "--record", "-o", "json"}, strings.NewReader(""), &out, io.Discard, func(k string) string { return env[k] }); code != ExitOK {
		b.Fatalf("exit %d", code)
	}
	results := filepath.Join(dir, "results.json")
	if err := os.WriteFile(results, []byte(out.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if code := runB(env, "eval", "--filter", benchPack, "--regrade", results, "-o", "json"); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
