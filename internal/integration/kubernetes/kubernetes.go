// Package kubernetes is the Kubernetes integration ([[kubernetes]]): the
// clusters the query_kubernetes tool (pkg/tools/kubernetes) reads through
// a kubeconfig context, their doctor check (can the account read what the
// tool reads, and can it do more) and its hints, and what eval reads of its
// results.
package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// ReadOnlyHint is the fix doctor gives for an account that may do more
// than read, or read less than the tool needs.
const ReadOnlyHint = "bind the account to the read-only ClusterRole of docs/SPEC.md#query_kubernetes (get, list, watch on pods, events, nodes, namespaces, deployments and replicasets; no secrets) and to nothing else"

// Source is the Kubernetes integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "kubernetes" }

// Build adds query_kubernetes over every [[kubernetes]] entry; nothing
// without one. A kubeconfig that cannot be read at its context fails that
// source's calls (UNAVAILABLE) and doctor, not the whole configuration.
func (Source) Build(_ context.Context, cfg *config.Config, _ integration.Env, parts *integration.Parts) error {
	if len(Entries(cfg)) == 0 {
		return nil
	}
	return parts.Add(kubetool.New(Entries(cfg)))
}

// Reads names the kubernetes source a call asked for and its result reports.
func (Source) Reads(input, observation json.RawMessage) []string {
	return integration.Named(kubetool.ToolName, "source", input, observation)
}

// Doctor asks each cluster's API server, with the context and credentials
// a call uses, whether the account can read what the tool reads and what
// it can do beyond reading: read-only passes, more is a warning naming the
// powers (like a database account that can write).
func (Source) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	var out []doctor.Result
	es := Entries(cfg)
	for i, k := range es {
		name := "kubernetes " + k.Name
		tool, err := kubetool.New(es[i : i+1])
		if err != nil {
			out = append(out, doctor.Failed(name, err.Error(), "fix kubeconfig or context of the [[kubernetes]] entry "+k.Name+" in "+cfg.File))
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
		a, err := tool.Check(cctx, k.Name)
		cancel()
		if err != nil && a.Context == "" {
			// no client: the kubeconfig or its context is the trouble
			out = append(out, doctor.Failed(name, err.Error(), "fix kubeconfig or context of the [[kubernetes]] entry "+k.Name+" in "+cfg.File))
			continue
		}
		out = append(out, result(name, a, err))
	}
	return out
}

// result is the doctor line of one source's access.
func result(name string, a kubetool.Access, err error) doctor.Result {
	where := fmt.Sprintf("context %s (%s)", a.Context, a.Server)
	switch {
	case err != nil:
		return doctor.Failed(name, fmt.Sprintf("%s: %v", where, err), kubetool.Hint(a.Context, err))
	case len(a.Missing) > 0 && len(a.Extra) > 0:
		return doctor.Warned(name, fmt.Sprintf("%s reachable; the account may not %s, and can do more than read: %s", where, strings.Join(a.Missing, ", "), strings.Join(a.Extra, ", ")), ReadOnlyHint)
	case len(a.Missing) > 0:
		return doctor.Warned(name, fmt.Sprintf("%s reachable; the account may not %s: those views fail", where, strings.Join(a.Missing, ", ")), ReadOnlyHint)
	case len(a.Extra) > 0:
		return doctor.Warned(name, fmt.Sprintf("%s reachable; the account can do more than read: %s (query_kubernetes still only reads)", where, strings.Join(a.Extra, ", ")), ReadOnlyHint)
	case a.Incomplete != "":
		return doctor.Warned(name, fmt.Sprintf("%s reachable and can read; its rules could not all be listed: %s", where, a.Incomplete), ReadOnlyHint)
	}
	return doctor.Passed(name, where+" reachable, read-only")
}

// Tool is the tool the source adds.
func (Source) Tool() string { return kubetool.ToolName }

// Setup says how to configure the tool when the configuration has none.
func (Source) Setup() string {
	return "add a [[kubernetes]] source (name, and kubeconfig/context when not the current ones) to the config"
}

// Guide is query_kubernetes's line in the diagnosis prompt's list of evidence tools.
func (Source) Guide() integration.Guide {
	return integration.Guide{
		EN: "`query_kubernetes`: what a Kubernetes cluster says, read-only: `pods` (restarts, CrashLoopBackOff, OOMKilled, the last termination), `events` (Warning first), `rollouts` (each Deployment revision with its images) and `nodes` (conditions under pressure). When pods restart or are unhealthy, follow an engineer's order: the unhealthy pods, their last termination, the Warning events, the latest rollout, then the service's logs and metrics.",
		ZH: "`query_kubernetes`：只读地查看 Kubernetes 集群的状态：`pods`（重启次数、CrashLoopBackOff、OOMKilled、上一次终止）、`events`（Warning 优先）、`rollouts`（每个 Deployment 修订版本及其镜像）和 `nodes`（处于压力状态的节点条件）。当 Pod 反复重启或不健康时，按工程师的顺序排查：不健康的 Pod、它们的上一次终止、Warning 事件、最近一次发布，然后再看该服务的日志和指标。",
	}
}
