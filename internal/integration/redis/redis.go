// Package redis is the Redis integration ([[redis]]): the servers and
// clusters query_redis (pkg/tools/redis) reads, their password resolution,
// their doctor check (PING, the version, and a warning when the account
// can write) and its hints, and what eval reads of their results.
package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// Source is the Redis integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "redis" }

// Build adds query_redis over every [[redis]] entry, and its closer;
// nothing without one. An entry whose password variable is unset is a
// configuration error.
func (Source) Build(_ context.Context, cfg *config.Config, _ integration.Env, parts *integration.Parts) error {
	entries := Entries(cfg)
	if len(entries) == 0 {
		return nil
	}
	for i := range entries {
		if problem := secretProblem(cfg, i); problem != "" {
			return integration.Configf("%s", problem)
		}
	}
	return parts.Add(redistool.New(entries))
}

// Reads names the redis source a call asked for and its result reports.
func (Source) Reads(input, observation json.RawMessage) []string {
	return integration.Named(redistool.ToolName, "source", input, observation)
}

// secretProblem says which variable entry i names but the environment
// lacks, "" when its password (if any) is there.
func secretProblem(cfg *config.Config, i int) string {
	r := Entries(cfg)[i]
	if r.PasswordEnv == "" || !r.Secret.IsZero() {
		return ""
	}
	where := ""
	if cfg.File != "" {
		where = " in " + cfg.File
	}
	return fmt.Sprintf("redis[%d].password_env%s names $%s, which is not set: export it with the %s's password before running superbiz", i, where, r.PasswordEnv, r.Name)
}

// Doctor checks each source the way query_redis reaches it (same URL,
// password and timeout): PING and the version, then whether the account
// can write, which is a warning: query_redis sends only reads, and a
// read-only ACL user (SPEC's line) keeps it so.
func (Source) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	var out []doctor.Result
	entries := Entries(cfg)
	for i, r := range entries {
		name := "redis " + r.Name
		if problem := secretProblem(cfg, i); problem != "" {
			out = append(out, doctor.Failed(name, problem, "export the variable (its value is never printed), or change the [[redis]] entry"))
			continue
		}
		tool, err := redistool.New(entries[i : i+1])
		if err != nil {
			out = append(out, doctor.Failed(name, err.Error(), "fix the [[redis]] entry in "+cfg.File))
			continue
		}
		out = append(out, check(ctx, tool, r))
		_ = tool.Close() // its connections only
	}
	return out
}

// check is one source's doctor line.
func check(ctx context.Context, tool *redistool.Tool, r redistool.Source) doctor.Result {
	name := "redis " + r.Name
	cctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	version, err := tool.Check(cctx, r.Name)
	if err != nil {
		return doctor.Failed(name, err.Error(), hint(r, err))
	}
	verdict, how, err := tool.WriteAccess(cctx, r.Name)
	switch {
	case err != nil:
		return doctor.Warned(name, fmt.Sprintf("%s answers (%s, auth %s), but whether the account can write is unknown: %v", r.URL, version, r.Auth(), err),
			"use a read-only ACL user: "+aclLine())
	case verdict == redistool.WriteAllowed:
		return doctor.Warned(name, fmt.Sprintf("%s answers (%s, auth %s), and the account can write: %s", r.URL, version, r.Auth(), how),
			"query_redis only reads, but give it a read-only ACL user: "+aclLine())
	}
	return doctor.Passed(name, fmt.Sprintf("%s answers (%s, auth %s); read-only: %s", r.URL, version, r.Auth(), how))
}

// aclLine is SPEC's diagnostic user, its password a placeholder.
func aclLine() string { return "ACL SETUSER superbiz on >PASSWORD " + redistool.ACLRules }

// hint names the fix for a failed Redis check.
func hint(r redistool.Source, err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "invalid password"):
		return fmt.Sprintf("the server refused the credentials (user in the url, auth %s): check the value of the variable", r.Auth())
	case strings.Contains(msg, "NOPERM"):
		return "the account may not run a view's command: grant it " + aclLine()
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(msg, "i/o timeout"):
		return "no answer within timeout " + config.FormatDuration(r.Timeout) + ": check the server's load, or raise timeout"
	}
	return "start the server or fix the url (host, port, rediss:// for TLS) of redis " + r.Name
}

// Tool is the tool the source adds.
func (Source) Tool() string { return redistool.ToolName }

// Setup says how to configure the tool when the configuration has none.
func (Source) Setup() string { return "add a [[redis]] source to the config" }

// Guide is query_redis's line in the diagnosis prompt's list of evidence tools.
func (Source) Guide() integration.Guide {
	return integration.Guide{
		EN: "`query_redis`: a Redis server's fixed read-only views (info, slowlog, latency, clients, memory, cluster).",
		ZH: "`query_redis`：Redis 服务器的固定只读视图（info、slowlog、latency、clients、memory、cluster）。",
	}
}
