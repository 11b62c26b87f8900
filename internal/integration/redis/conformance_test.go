package redis_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/superbiz/superbiz/internal/conformance"
	"github.com/superbiz/superbiz/internal/integration/redis"
	"github.com/superbiz/superbiz/internal/redistest"
)

// query_redis on a real redis-server: info reads the server, a fresh
// server's slowlog holds nothing.
func TestConformance(t *testing.T) {
	conformance.Run(t, redis.Source{}, func(t *testing.T) conformance.Fixture {
		srv := redistest.Start(t)
		return conformance.Fixture{
			Config:  fmt.Sprintf("[[redis]]\nname = \"cache\"\nurl = %q\n", srv.URL("")),
			Call:    json.RawMessage(`{"source":"cache","view":"info"}`),
			Marker:  "redis_version",
			Empty:   json.RawMessage(`{"source":"cache","view":"slowlog"}`),
			NameKey: "source",
		}
	})
}
