package ollamatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Synthetic timings (nanoseconds) on the done chunk; fixed so streams are
// reproducible.
const (
	totalDuration      = 1_500_000_000
	loadDuration       = 20_000_000
	promptEvalDuration = 300_000_000
	evalDuration       = 1_100_000_000
)

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		i := s.record(r, body, nil)
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeJSON(w, http.StatusBadRequest, errorBody{Error: err.Error()})
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		i := s.record(r, body, nil)
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeJSON(w, http.StatusBadRequest, errorBody{Error: err.Error()})
		return
	}
	i := s.record(r, body, &req)
	fail := func(status int, f Fault, msg string) {
		s.setOutcome(i, status, f)
		writeJSON(w, status, errorBody{Error: msg})
	}

	// The checks a real server makes before it schedules the model.
	if req.Model == "" {
		fail(http.StatusBadRequest, FaultNone, "model is required")
		return
	}
	m, ok := s.lookupModel(req.Model)
	if !ok {
		fail(http.StatusNotFound, FaultNone, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if len(req.Tools) > 0 && !slices.Contains(m.Capabilities, "tools") {
		fail(http.StatusBadRequest, FaultNone, qualifiedName(req.Model)+" does not support tools")
		return
	}
	if thinkOn(req.Think) && !slices.Contains(m.Capabilities, "thinking") {
		fail(http.StatusBadRequest, FaultNone, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}

	turn, ok := s.nextTurn(req)
	if !ok {
		fail(http.StatusInternalServerError, FaultNone, s.problem("script exhausted: /api/chat call %d has no scripted turn", s.ChatCount()))
		return
	}
	if !SleepCtx(r, turn.FirstByteDelay) {
		s.setOutcome(i, 0, turn.Fault)
		return
	}
	msg := func(def string) string {
		if turn.ErrorMessage != "" {
			return turn.ErrorMessage
		}
		return def
	}

	switch turn.Fault {
	case FaultHTTP500Body:
		fail(http.StatusInternalServerError, turn.Fault, msg(DefaultServerError))
		return
	case FaultHTTP500Empty:
		s.setOutcome(i, http.StatusInternalServerError, turn.Fault)
		w.WriteHeader(http.StatusInternalServerError)
		return
	case FaultModelNotFound:
		fail(http.StatusNotFound, turn.Fault, msg(fmt.Sprintf("model %q not found, try pulling it first", req.Model)))
		return
	case FaultToolsNotSupported:
		fail(http.StatusBadRequest, turn.Fault, msg(qualifiedName(req.Model)+" does not support tools"))
		return
	case FaultBadRequest:
		fail(http.StatusBadRequest, turn.Fault, msg(DefaultBadRequest))
		return
	case FaultUnauthorized:
		fail(http.StatusUnauthorized, turn.Fault, msg("unauthorized"))
		return
	case FaultProxyHTML:
		s.setOutcome(i, http.StatusBadGateway, turn.Fault)
		writeHTML(w, http.StatusBadGateway, ProxyHTML)
		return
	case FaultHTMLPage:
		s.setOutcome(i, http.StatusOK, turn.Fault)
		writeHTML(w, http.StatusOK, HTMLPage)
		return
	}

	calls, err := wireCalls(turn.ToolCalls)
	if err != nil {
		fail(http.StatusInternalServerError, FaultNone, s.problem("invalid scripted turn: %v", err))
		return
	}
	s.setOutcome(i, http.StatusOK, turn.Fault)
	if !req.Streaming() {
		s.writeWhole(w, req.Model, turn, calls)
		return
	}
	s.writeStream(w, r, req.Model, turn, calls)
}

// thinkOn reports whether the raw think member asks for thinking.
func thinkOn(raw json.RawMessage) bool {
	t := string(bytes.TrimSpace(raw))
	return t != "" && t != "null" && t != "false"
}

// SleepCtx waits d unless the client of r goes away first (false then),
// for test servers that pace or hold an answer.
func SleepCtx(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// writeHTML answers with an HTML page instead of the API's JSON.
func writeHTML(w http.ResponseWriter, status int, page string) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, page)
}

func wireCalls(calls []ToolCall) ([]WireToolCall, error) {
	out := make([]WireToolCall, 0, len(calls))
	for i, c := range calls {
		if c.ArgsAsString {
			quoted, err := json.Marshal(c.Args)
			if err != nil {
				return nil, fmt.Errorf("tool call %d (%s): quote Args: %w", i, c.Name, err)
			}
			out = append(out, WireToolCall{ID: c.ID, Function: WireFunction{Index: i, Name: c.Name, Arguments: quoted}})
			continue
		}
		args := strings.TrimSpace(c.Args)
		if args == "" {
			args = "{}"
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("tool call %d (%s): Args must be a JSON object, got %q", i, c.Name, c.Args)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(args)); err != nil {
			return nil, fmt.Errorf("tool call %d (%s): compact Args: %w", i, c.Name, err)
		}
		out = append(out, WireToolCall{ID: c.ID, Function: WireFunction{Index: i, Name: c.Name, Arguments: buf.Bytes()}})
	}
	return out, nil
}

func (s *Server) doneChunk(model string, turn Turn) chatChunk {
	reason := turn.DoneReason
	if reason == "" {
		reason = "stop"
	}
	return chatChunk{
		Model: model, CreatedAt: s.cfg.now().UTC(),
		Message: Message{Role: "assistant"}, Done: true, DoneReason: reason,
		TotalDuration: totalDuration, LoadDuration: loadDuration,
		PromptEvalCount: turn.PromptEvalCount, PromptEvalDuration: promptEvalDuration,
		EvalCount: turn.EvalCount, EvalDuration: evalDuration,
	}
}

// writeWhole answers stream:false with one object holding the whole turn.
func (s *Server) writeWhole(w http.ResponseWriter, model string, turn Turn, calls []WireToolCall) {
	switch turn.Fault {
	case FaultErrorLineMidStream:
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: orDefault(turn.ErrorMessage, DefaultMidStreamError)})
		return
	case FaultCutMidStream:
		Cut(w)
		return
	case FaultMalformedLine:
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, MalformedLine+"\n")
		return
	}
	c := s.doneChunk(model, turn)
	c.Message.Thinking = strings.Join(turn.Thinking, "")
	c.Message.Content = strings.Join(turn.Content, "")
	c.Message.ToolCalls = calls
	if turn.Fault == FaultNoDone {
		c.Done = false
	}
	writeJSON(w, http.StatusOK, c)
}

// writeStream answers with NDJSON chunks, flushed one by one, as Ollama does:
// thinking, then content, then the tool calls, then the done chunk.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, model string, turn Turn, calls []WireToolCall) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	first := true
	send := func(c chatChunk) bool {
		if !first && !SleepCtx(r, turn.ChunkDelay) {
			return false
		}
		first = false
		if err := enc.Encode(c); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	chunk := func(m Message) chatChunk {
		m.Role = "assistant"
		return chatChunk{Model: model, CreatedAt: s.cfg.now().UTC(), Message: m}
	}
	for _, t := range turn.Thinking {
		if !send(chunk(Message{Thinking: t})) {
			return
		}
	}
	for _, c := range turn.Content {
		if !send(chunk(Message{Content: c})) {
			return
		}
	}
	switch turn.Fault {
	case FaultErrorLineMidStream:
		if err := enc.Encode(errorBody{Error: orDefault(turn.ErrorMessage, DefaultMidStreamError)}); err == nil {
			_ = rc.Flush()
		}
		return
	case FaultCutMidStream:
		Cut(w)
		return
	case FaultMalformedLine:
		if _, err := io.WriteString(w, MalformedLine+"\n"); err != nil {
			return
		}
		_ = rc.Flush()
	}
	if len(calls) > 0 {
		if turn.SplitToolCalls {
			for _, c := range calls {
				if !send(chunk(Message{ToolCalls: []WireToolCall{c}})) {
					return
				}
			}
		} else if !send(chunk(Message{ToolCalls: calls})) {
			return
		}
	}
	if turn.Fault == FaultNoDone {
		return
	}
	send(s.doneChunk(model, turn))
}

// Cut closes the TCP connection under the response without finishing it,
// as a crashed server or a proxy timeout does.
func Cut(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	_ = conn.Close()
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
