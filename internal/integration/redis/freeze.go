package redis

import (
	"context"

	"github.com/superbiz/superbiz/internal/frozen"
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// Freezes is query_redis.
func (Source) Freezes() []string { return []string{redistool.ToolName} }

// Freeze refuses a run whose evidence came from query_redis: a pack cannot
// yet hold a Redis server's answers (no recording is written or served
// back), and a pack that left them out would grade a diagnosis without the
// evidence it cited. Nothing is refused when the run made no such call.
func (Source) Freeze(_ context.Context, p *frozen.Pack) error {
	if n := len(p.Calls(redistool.ToolName)); n > 0 {
		return frozen.Refused("the run read Redis through query_redis (%d call(s)), whose answers eval pack cannot freeze yet: freeze a run without Redis evidence", n)
	}
	return nil
}
