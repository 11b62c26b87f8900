package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/pkg/model"
)

// ChatAnswer is what the scripted chat model says to any message other than
// Query: what it can do, and how to get a real model.
const ChatAnswer = "This chat runs on the scripted demo model, because no model can answer here. " +
	"It diagnoses one question from the demo workspace: \"" + Query + "\". " +
	"For any other message, start Ollama (`ollama serve`, then `ollama pull qwen3:8b`) and chat again."

// PlayingNote is the spinner row of a demo run while the scripted
// transcript answers a model call (instead of "waiting for the model…").
const PlayingNote = "playing the scripted demo transcript…"

// ChatIntro heads the demo chat screen before anything is typed: that the
// chat is scripted and why, the one question it diagnoses, and that Tab
// fills it in. Each line fits 80 columns.
func ChatIntro(why string) string {
	return "Demo: this chat is scripted (" + why + ").\n" +
		"It diagnoses one question on the demo data, with the real tools:\n" +
		"  " + Query + "\n" +
		"Tab fills it in, Enter sends it. Other messages get a fixed answer."
}

// Chat is the scripted model of `chat --demo` when no model can answer: the
// router sends Query to DIAGNOSIS, where Transcript plays (afresh for each such
// message), and every other message to SYSTEM_CHAT, answered with ChatAnswer.
// Like Transcript it invents no evidence: the tools and guards are real.
type Chat struct {
	pace      time.Duration
	mu        sync.Mutex
	diagnosis *replay.Model // the transcript of the DIAGNOSIS turn in progress
}

// NewChat returns the scripted chat model; pace is each transcript round's
// wait (Pace on a watched terminal, 0 otherwise).
func NewChat(pace time.Duration) *Chat { return &Chat{pace: pace} }

// routerMessage is the router's user message (usecase.RouterRequest).
type routerMessage struct {
	Query      *string         `json:"query"`
	LastIntent json.RawMessage `json:"last_intent"`
	LastQuery  json.RawMessage `json:"last_query"`
}

// Chat answers one round: a route, a transcript round, or ChatAnswer.
func (c *Chat) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, &model.Error{Kind: model.ErrCancelled, Err: err}
	}
	if q, ok := routed(req); ok {
		intent := "SYSTEM_CHAT"
		if strings.TrimSpace(q) == Query {
			intent = "DIAGNOSIS"
			c.mu.Lock()
			c.diagnosis = replay.NewPaced(Transcript(), c.pace)
			c.mu.Unlock()
		}
		return c.text(`{"intent":"` + intent + `"}`), nil
	}
	if len(req.Tools) == 0 && len(req.Format) == 0 {
		return c.text(ChatAnswer), nil
	}
	c.mu.Lock()
	d := c.diagnosis
	c.mu.Unlock()
	if d == nil {
		return model.Response{}, &model.Error{Kind: model.ErrProtocol, Err: replay.ErrExhausted}
	}
	return d.Chat(ctx, req)
}

// routed reports whether req is the router's request, and its query.
func routed(req model.Request) (string, bool) {
	if len(req.Format) == 0 || len(req.Tools) > 0 || len(req.Messages) != 2 {
		return "", false
	}
	var m routerMessage
	dec := json.NewDecoder(bytes.NewReader([]byte(req.Messages[1].Content)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || m.Query == nil || m.LastIntent == nil {
		return "", false
	}
	return *m.Query, true
}

func (c *Chat) text(s string) model.Response {
	return model.Response{Message: model.Message{Role: model.RoleAssistant, Content: s}, Usage: model.Usage{PromptTokens: 300, CompletionTokens: 20}, DoneReason: "stop", Model: TranscriptNote}
}
