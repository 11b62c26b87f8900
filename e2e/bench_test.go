package e2e

import (
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// BenchmarkDemoRun measures the wall time of the README's first command as a
// user runs it: the built binary, `diagnose --demo` with no model reachable
// (the scripted transcript on the real tools), a warm demo workspace and one
// run store that grows by one run per iteration.
func BenchmarkDemoRun(b *testing.B) {
	e := newEnv(b, testenv.ClosedURL(b))
	for b.Loop() {
		if r := e.run(b, "diagnose", "--demo", "-o", "json"); r.code != 0 {
			b.Fatalf("exit %d\n%s", r.code, r)
		}
	}
}

// BenchmarkScriptedDiagnosis measures one payment-timeout run of the binary
// against the Ollama test server: four real evidence checks on the demo
// data, the draft, the SemanticGuard call and the store.
func BenchmarkScriptedDiagnosis(b *testing.B) {
	srv := newServer(b)
	e := newEnv(b, srv.URL())
	draft := draftText(b, "payment-timeout")
	for b.Loop() {
		srv.Script(append(paymentTurns(), text(draft), verdict("SUPPORTED"))...)
		if r := e.run(b, "--demo", "diagnose", "-o", "json", queryPayment); r.code != 0 {
			b.Fatalf("exit %d\n%s", r.code, r)
		}
	}
}
