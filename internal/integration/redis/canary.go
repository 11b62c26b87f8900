package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/localserver"
)

// canaryReady bounds a canary server's start.
const canaryReady = 10 * time.Second

// PlantCanaries starts a redis-server of its own under dir (every command
// slow-logged) and plants lines where Redis keeps what its callers send: as
// key names and values (in the slowlog's arguments, which query_redis never
// shows) and as the names of clients that stay connected (the slowlog's
// and the clients view's client names) where Redis accepts them as a name
// (no space, ASCII). The calls read the slowlog and the clients view.
func (Source) PlantCanaries(dir string, lines []string) (p integration.Planted, err error) {
	bin, err := localserver.Lookup("redis-server", "Debian: apt-get install --no-install-recommends redis-server; .ci/redis.sh")
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	addr, err := localserver.FreeAddr()
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	host, port, _ := strings.Cut(addr, ":")
	conf := filepath.Join(dir, "redis.conf")
	body := fmt.Sprintf("bind %s\nport %s\ndir %s\nsave \"\"\nappendonly no\nslowlog-log-slower-than 0\nslowlog-max-len 1024\n", host, port, dir)
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	admin := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	srv, err := localserver.Start(bin, []string{conf}, filepath.Join(dir, "redis.log"), canaryReady, func(ctx context.Context) error {
		return admin.Ping(ctx).Err()
	})
	if err != nil {
		return p, errors.Join(fmt.Errorf("plant canaries: %w", err), admin.Close())
	}
	clients := []*goredis.Client{admin}
	stop := func() error {
		var errs []error
		for _, c := range clients {
			errs = append(errs, c.Close())
		}
		return errors.Join(append(errs, srv.Stop())...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryReady)
	defer cancel()
	named := 0
	for i, l := range lines {
		if err := admin.Set(ctx, l, l, 0).Err(); err != nil {
			return p, errors.Join(fmt.Errorf("plant canaries: SET line %d: %w", i, err), stop())
		}
		// One connection per name, kept open: the name lives as long as it.
		c := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1, ClientName: l})
		clients = append(clients, c)
		if err := c.Get(ctx, l).Err(); err != nil {
			c.Close()
			clients = clients[:len(clients)-1]
			continue // Redis refuses the name (a space, a non-ASCII byte)
		}
		named++
	}
	if named == 0 {
		return p, errors.Join(errors.New("plant canaries: Redis accepted no line as a client name"), stop())
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[redis]]\nname = \"canary\"\nurl = \"redis://%s\"\n", addr),
		Calls:  []json.RawMessage{json.RawMessage(`{"source":"canary","view":"slowlog"}`), json.RawMessage(`{"source":"canary","view":"clients"}`)},
		Stop:   stop,
	}, nil
}
