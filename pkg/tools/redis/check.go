package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/superbiz/superbiz/pkg/tools"
)

// Check proves the named source answers the way query_redis reaches it
// (same URL, password and timeout): PING, then INFO server for the
// version and mode. The error is a *NodeError.
func (t *Tool) Check(ctx context.Context, name string) (version string, err error) {
	i, err := tools.Pick(name, t.sourceNames(), "redis source")
	if err != nil {
		return "", err
	}
	s := t.sources[i]
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	c := s.client()
	if err := c.Ping(ctx).Err(); err != nil {
		return "", &NodeError{Addr: s.addr(), Err: fmt.Errorf("PING: %w", err)}
	}
	text, err := c.Info(ctx, "server").Result()
	if err != nil {
		return "", &NodeError{Addr: s.addr(), Err: fmt.Errorf("INFO server: %w", err)}
	}
	server := parseInfo(text)["server"]
	return "Redis " + server["redis_version"] + " (" + server["redis_mode"] + ")", nil
}

// Write access verdicts of WriteAccess.
const (
	// WriteRefused: the probe write was refused by the ACL (NOPERM).
	WriteRefused = "refused"
	// WriteAllowed: the account may write.
	WriteAllowed = "allowed"
)

// WriteAccess says whether the named source's account may write, for
// doctor: ACL DRYRUN of SET, DEL and FLUSHALL when the account may run it
// (an account that may is an administrator, which can write anyway);
// otherwise GETDEL of a random key that does not exist, which deletes
// nothing when allowed and is refused with NOPERM by a read-only ACL. how
// says what was asked and what answered.
func (t *Tool) WriteAccess(ctx context.Context, name string) (verdict, how string, err error) {
	i, err := tools.Pick(name, t.sourceNames(), "redis source")
	if err != nil {
		return "", "", err
	}
	s := t.sources[i]
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	c := s.client()
	if user, err := c.Do(ctx, "acl", "whoami").Text(); err == nil {
		allowed, answered, err := dryRun(ctx, c, user)
		if err != nil {
			return "", "", &NodeError{Addr: s.addr(), Err: err}
		}
		switch {
		case answered && len(allowed) > 0:
			return WriteAllowed, fmt.Sprintf("ACL DRYRUN says user %q may run %s", user, strings.Join(allowed, ", ")), nil
		case answered:
			return WriteRefused, fmt.Sprintf("ACL DRYRUN says user %q may run none of %s", user, strings.Join(writeProbes, ", ")), nil
		}
	}
	key := "superbiz:doctor:write-probe:" + randomHex()
	err = c.Do(ctx, "getdel", key).Err()
	switch {
	case errors.Is(err, goredis.Nil) || err == nil:
		return WriteAllowed, fmt.Sprintf("GETDEL of a key that does not exist (%s) was accepted", key), nil
	case isNoPerm(err):
		return WriteRefused, "GETDEL (a write) was refused with NOPERM", nil
	case strings.HasPrefix(err.Error(), "READONLY"):
		return WriteAllowed, "GETDEL was refused only because the node is a read-only replica: the account may write on its master", nil
	}
	return "", "", &NodeError{Addr: s.addr(), Err: fmt.Errorf("GETDEL probe: %w", err)}
}

// writeProbes are the writes ACL DRYRUN is asked about.
var writeProbes = []string{"SET", "DEL", "FLUSHALL"}

// dryRun asks ACL DRYRUN whether user may run each of writeProbes;
// answered is false when the account may not run ACL DRYRUN itself.
func dryRun(ctx context.Context, c goredis.UniversalClient, user string) (allowed []string, answered bool, err error) {
	for _, cmd := range writeProbes {
		args := []any{"acl", "dryrun", user, cmd}
		if cmd != "FLUSHALL" {
			args = append(args, "superbiz:doctor:probe")
		}
		if cmd == "SET" {
			args = append(args, "x")
		}
		answer, err := c.Do(ctx, args...).Text()
		switch {
		case isNoPerm(err):
			return nil, false, nil
		case err != nil:
			return nil, false, fmt.Errorf("ACL DRYRUN: %w", err)
		case answer == "OK":
			allowed = append(allowed, cmd)
		}
	}
	return allowed, true, nil
}

// isNoPerm says whether err is Redis's ACL refusal.
func isNoPerm(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOPERM")
}

// randomHex is 16 random bytes in hex, for a key no one has written.
func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// ACLRules are the rules of a read-only diagnostic Redis user that every
// view needs (docs/SPEC.md#query_redis): no key, no channel, no write;
// "+command" keeps go-redis from meeting NOPERM when it connects. An ACL
// line is "user NAME on >PASSWORD " + ACLRules.
const ACLRules = "resetkeys resetchannels -@all +ping +hello +auth +info +role +time +slowlog|get +slowlog|len " +
	"+latency|latest +latency|doctor +latency|history +client|list +client|info +memory|stats +memory|doctor " +
	"+cluster|info +cluster|nodes +cluster|slots +cluster|shards +command"
