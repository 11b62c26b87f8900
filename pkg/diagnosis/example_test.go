package diagnosis_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/diagnosis"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/toolschema"
)

// pingTool is a program's own evidence tool: whether a host answers.
type pingTool struct{}

type pingInput struct {
	Host string `json:"host" jsonschema:"required,minLength=1"`
}

func (pingTool) Definition() model.Tool {
	return model.Tool{Name: "ping", Description: "Whether a host answers.", Parameters: toolschema.For[pingInput]()}
}

func (pingTool) Canonical(input json.RawMessage) (tools.Canonical, error) {
	var in pingInput
	if err := json.Unmarshal(input, &in); err != nil || in.Host == "" {
		return tools.Canonical{}, tools.InvalidInput("ping needs a host")
	}
	canon, err := tools.EncodeCanonical(in)
	return tools.Canonical{Input: canon, Summary: "ping " + in.Host}, err
}

func (pingTool) Execute(_ context.Context, call tools.Call) tools.Outcome {
	return tools.Outcome{Status: tools.NoEvidence, Result: map[string]bool{"answers": true}}
}

// turns is a model that plays fixed answers, one per round.
type turns []string

func (t *turns) Chat(ctx context.Context, _ model.Request) (model.Response, error) {
	if len(*t) == 0 {
		return model.Response{}, errors.New("no turn left")
	}
	msg := model.Message{Role: model.RoleAssistant, Content: (*t)[0]}
	if (*t)[0] == "ping" {
		msg = model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "call_ping0001", Name: "ping", Arguments: json.RawMessage(`{"input":{"host":"db-1"}}`)}}}
	}
	*t = (*t)[1:]
	return model.Response{Message: msg, DoneReason: "stop"}, ctx.Err()
}

// A diagnosis whose one check found nothing: the guards publish no root
// cause, the run and its audit are in the store, and the answer's next
// steps point at the embedding program's own command (its Hints).
func Example() {
	dir, _ := os.MkdirTemp("", "diagnosis")
	defer os.RemoveAll(dir)
	store, err := runstore.Open(context.Background(), filepath.Join(dir, "runs.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	toolset, err := harness.NewToolset([]tools.Adapter{pingTool{}}, nil)
	if err != nil {
		panic(err)
	}
	m := &turns{"ping", `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"db-1 answers","missing_info":["the database's log"]}}`}
	res, err := diagnosis.Run(context.Background(), diagnosis.Config{
		Store: store, Model: m, Tools: toolset, Language: "en",
		Clock: harness.FixedClock{T: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)},
		Hints: map[string]release.Hints{"en": {InspectRun: "See the run with `opsbot runs %s`."}},
	}, diagnosis.Request{Query: "why is db-1 slow?"})
	if err != nil {
		panic(err)
	}
	stored, err := store.GetRun(context.Background(), res.RunID)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Decision.Outcome, res.Decision.StopReason, res.Decision.Published == nil)
	fmt.Println(res.Checks[0].Tool, res.Checks[0].EvidenceStatus, len(stored.Invocations), stored.Status == runrecord.RunStatusSuccess)
	lines := strings.Split(strings.TrimSpace(res.Decision.Answer), "\n")
	fmt.Println(strings.Replace(lines[len(lines)-1], res.RunID, "RUN_ID", 1))
	// Output:
	// FALLBACK NO_CONCLUSION true
	// ping NO_EVIDENCE 1 true
	// - See the run with `opsbot runs RUN_ID`.
}
