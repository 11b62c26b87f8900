package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// answer is what a request got back.
type answer struct {
	StatusCode int
	Header     http.Header
}

func post(t *testing.T, s *Server, body string) (answer, string) {
	t.Helper()
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header}, string(b)
}

// A stream is real SSE: an event per chunk, each "data: JSON" and a blank
// line, a usage chunk only when asked for, and data: [DONE] last; the bytes
// are the same however the server cuts its writes.
func TestStreamFraming(t *testing.T) {
	var whole string
	for _, split := range []int{0, 1, 3} {
		s := New(t, WithSplit(split))
		s.Script(Turn{Content: []string{"a", "b"}, ToolCalls: []ToolCall{{ID: "c1", Name: "f", Args: `{"x":1}`}}, PromptTokens: 3, CompletionTokens: 4})
		resp, body := post(t, s, `{"model":"`+DefaultModel+`","stream":true,"stream_options":{"include_usage":true},"messages":[]}`)
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("content type %q", resp.Header.Get("Content-Type"))
		}
		if split == 0 {
			whole = body
		} else if body != whole {
			t.Errorf("split %d changed the bytes", split)
		}
	}
	events := strings.Split(strings.TrimSuffix(whole, "\n\n"), "\n\n")
	if events[0] != ": openaitest" || events[len(events)-1] != "data: [DONE]" {
		t.Fatalf("first %q, last %q", events[0], events[len(events)-1])
	}
	var usage, finish int
	for _, e := range events[1 : len(events)-1] {
		data, ok := strings.CutPrefix(e, "data: ")
		var ch struct {
			Choices []struct {
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if !ok || json.Unmarshal([]byte(data), &ch) != nil {
			t.Fatalf("event %q is not one data line of JSON", e)
		}
		if ch.Usage != nil {
			usage++
		}
		if len(ch.Choices) > 0 && ch.Choices[0].FinishReason != nil {
			finish++
			if *ch.Choices[0].FinishReason != "tool_calls" {
				t.Errorf("finish_reason %q", *ch.Choices[0].FinishReason)
			}
		}
	}
	if usage != 1 || finish != 1 {
		t.Errorf("%d usage chunks, %d finish chunks; want 1 and 1", usage, finish)
	}
	s := New(t)
	s.Script(Turn{Content: []string{"a"}})
	if _, body := post(t, s, `{"model":"`+DefaultModel+`","stream":true,"messages":[]}`); strings.Contains(body, `"usage"`) {
		t.Error("usage sent though the client did not ask for it")
	}
}

// Errors come in OpenAI's shape; tools with response_format is a client bug the server reports.
func TestErrorShape(t *testing.T) {
	s := New(t)
	resp, body := post(t, s, `{"model":"nope","messages":[]}`)
	var e struct {
		Error struct {
			Message, Type string
			Code          *string
		} `json:"error"`
	}
	if resp.StatusCode != 404 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code == nil || *e.Error.Code != "model_not_found" || e.Error.Type != "invalid_request_error" {
		t.Errorf("unknown model: %d %s", resp.StatusCode, body)
	}
	probe := NewServer() // its problem is the point: not reported by New's cleanup
	defer probe.Close()
	resp, _ = post(t, probe, `{"model":"`+DefaultModel+`","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"response_format":{"type":"json_object"}}`)
	if resp.StatusCode != 400 || len(probe.Problems()) != 1 {
		t.Errorf("tools with response_format: %d, problems %q", resp.StatusCode, probe.Problems())
	}
}
