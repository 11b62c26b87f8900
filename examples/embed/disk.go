package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/toolschema"
)

// diskTool is this program's own evidence tool: the used share of a host's
// data disk, read here from a fixed table (a real one would ask the hosts).
type diskTool map[string]int

// diskInput is the tool's input as the model sends it; its JSON Schema is
// derived from the struct (toolschema.For).
type diskInput struct {
	Host string `json:"host" jsonschema:"required,minLength=1" jsonschema_description:"host name"`
}

// diskResult is the whitelisted projection the model sees.
type diskResult struct {
	Host        string `json:"host"`
	UsedPercent int    `json:"used_percent"`
}

func (diskTool) Definition() model.Tool {
	return model.Tool{Name: "disk_usage", Description: "The used share of a host's data disk, in percent.", Parameters: toolschema.For[diskInput]()}
}

func (diskTool) Canonical(input json.RawMessage) (tools.Canonical, error) {
	var in diskInput
	dec := json.NewDecoder(strings.NewReader(string(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return tools.Canonical{}, tools.InvalidInput("disk_usage input: %v", err)
	}
	if in.Host = strings.TrimSpace(in.Host); in.Host == "" {
		return tools.Canonical{}, tools.InvalidInput("host is required")
	}
	canon, err := tools.EncodeCanonical(in)
	return tools.Canonical{Input: canon, Summary: "disk usage of " + in.Host}, err
}

func (t diskTool) Execute(_ context.Context, call tools.Call) tools.Outcome {
	var in diskInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Failed(tools.CodeInternal, fmt.Errorf("decode canonical input: %w", err))
	}
	used, ok := t[in.Host]
	if !ok {
		return tools.Outcome{Status: tools.NoEvidence, Result: diskResult{Host: in.Host}}
	}
	return tools.Outcome{Status: tools.EvidenceFound, Result: diskResult{Host: in.Host, UsedPercent: used}}
}
