package ollama_test

import (
	"context"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/ollama"
)

// A program's model client for an Ollama server: one round of /api/chat;
// here against a scripted server speaking Ollama's wire.
func ExampleNew() {
	srv := ollamatest.NewServer()
	defer srv.Close()
	srv.Script(ollamatest.Turn{Content: []string{"The disk ", "is full."}})

	c, err := ollama.New(ollama.Options{Host: srv.URL(), Model: ollamatest.DefaultModel, NumCtx: 8192, RequestTimeout: 10 * time.Second})
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
