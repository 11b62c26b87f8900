// Command superbiz diagnoses production incidents from evidence with a single
// ReAct agent, on an Ollama or OpenAI-compatible model server. Everything
// lives in package cmd; main only hands over so the CLI can be driven
// in-process by tests.
package main

import "github.com/superbiz/superbiz/cmd"

func main() {
	cmd.Execute()
}
