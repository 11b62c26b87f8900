package openai_test

import (
	"context"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/openai"
)

// A program's model client for any OpenAI-compatible server (vLLM,
// llama-server, LiteLLM, OpenAI): one round, streamed; here against a
// scripted server speaking the same wire.
func ExampleNew() {
	srv := openaitest.NewServer()
	defer srv.Close()
	srv.Script(openaitest.Turn{Content: []string{"The disk ", "is full."}})

	c, err := openai.New(openai.Options{URL: srv.URL(), Model: openaitest.DefaultModel, Stream: true, RequestTimeout: 10 * time.Second})
	if err != nil {
		panic(err)
	}
	var m model.ChatModel = c
	res, err := m.Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Why do writes fail?"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Message.Content)
	// Output:
	// The disk is full.
}
