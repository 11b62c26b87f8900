package redis_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/tools/redis"
)

// A query_redis tool over one server: the model asks for one of its fixed,
// read-only views; a URL carrying a password is refused before any dial.
func Example() {
	t, err := redis.New([]redis.Source{{Name: "cache", URL: "redis://127.0.0.1:6379/0", Timeout: 5 * time.Second}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	c, err := t.Canonical(json.RawMessage(`{"view":"slowlog"}`))
	fmt.Println(t.Definition().Name, string(c.Input), err)
	_, err = t.Canonical(json.RawMessage(`{"view":"config"}`))
	fmt.Println(err != nil)
	fmt.Println(redis.URLProblem("redis://:hunter2@cache:6379"))
	// Output:
	// query_redis {"source":"cache","view":"slowlog"} <nil>
	// true
	// must not carry a password: put it in the variable password_env names
}
