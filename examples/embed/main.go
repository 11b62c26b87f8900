// Command embed runs superbiz's diagnosis agent in another Go program
// through pkg/ only (a module of its own: Go refuses another module's
// internal/): its own tool (disk.go), a model on any OpenAI-compatible
// server (-url, -model or OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY;
// no URL: scripted.go plays one diagnosis), its own run store.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/superbiz/superbiz/pkg/diagnosis"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model/openai"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// query is the incident the agent diagnoses.
const query = "orders-db writes fail since 09:00"

func main() {
	url := flag.String("url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (empty: the scripted server)")
	name := flag.String("model", os.Getenv("OPENAI_MODEL"), "the model id the server serves")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *url, *name, "orders-db-1"); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run diagnoses query and prints the published outcome; anything else is an
// error. Without a url the scripted model asks host's disk usage.
func run(ctx context.Context, w io.Writer, url, name, host string) error {
	if url == "" {
		srv := scriptedServer(host)
		defer srv.Close()
		url, name = srv.URL+"/v1", "scripted"
	}
	m, err := openai.New(openai.Options{URL: url, Model: name, APIKey: os.Getenv("OPENAI_API_KEY"), RequestTimeout: 3 * time.Minute})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "embed")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := runstore.Open(ctx, filepath.Join(dir, "runs.db"))
	if err != nil {
		return err
	}
	defer store.Close()
	toolset, err := harness.NewToolset([]tools.Adapter{diskTool{"orders-db-1": 100, "orders-db-2": 41}}, nil)
	if err != nil {
		return err
	}
	res, err := diagnosis.Run(ctx, diagnosis.Config{Store: store, Model: m, ModelName: name, Host: m.Host(), Tools: toolset, Language: "en"}, diagnosis.Request{Query: query})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "outcome: %s (stop reason %s)\n", res.Decision.Outcome, res.Decision.StopReason)
	for _, c := range res.Checks {
		fmt.Fprintf(w, "check %s: %s, %s\n", c.Tool, c.EvidenceStatus, c.Summary)
	}
	if res.Decision.Published == nil {
		return fmt.Errorf("the run was not published: %s %s: %s", res.Decision.Outcome, res.Decision.StopReason, res.Decision.ErrorMessage)
	}
	out, err := json.MarshalIndent(res.Decision.Published, "", "  ")
	fmt.Fprintf(w, "published:\n%s\n", out)
	return err
}
